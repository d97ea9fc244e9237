import Foundation

// A fetch written as JSON lines: one object per line, keys sorted, for scripts and streams.
extension ManagedObjectContext {
    /// Hands `line` the JSON of each object `request` fetches, one at a time, in fetch order:
    /// the same dictionaries as ``exportJSON(_:options:)``, each written on one line with its
    /// keys sorted, and the keys of an unordered to-many relationship sorted too (a set has
    /// no order of its own), so the text is the same in every run and for every copy of the
    /// store (JSON lines, `jq`-friendly).
    ///
    /// For example:
    ///
    /// ```swift
    /// try context.exportJSONLines(FetchRequest<ManagedObject>(entityName: "Employee")) { json in
    ///     FileHandle.standardOutput.write(json + Data("\n".utf8))
    /// }
    /// ```
    ///
    /// Fetches the objects (with one query per relationship written as keys or nested), then
    /// writes them; `line` is called with no trailing newline.
    ///
    /// - Throws: what the fetch throws, ``JSONExportError`` for a value JSON cannot hold, and
    ///   whatever `line` throws (which stops the export).
    public func exportJSONLines<T: ManagedObject>(_ request: FetchRequest<T>, options: JSONExportOptions = JSONExportOptions(),
                                                  line: (Data) throws -> Void) throws {
        let unordered = unorderedToManyKeys(request, options: options)
        let (objects, base) = try fetchForExport(request, options: options)
        guard let base else { return }
        // One object at a time, so that `line` (a progress display) sees the work as it goes.
        let exporter = JSONExporter(options: options)
        let depth = options.relationships.depth
        for managed in objects {
            var object = exporter.jsonObject(managed, base: base, depth: depth)
            for path in unordered { Self.sortKeys(at: path[...], in: &object) }
            var writer = JSONWriter(pretty: false, sortsKeys: true, capacity: 256)
            try writer.write(object)
            try line(Data(writer.bytes))
        }
    }

    /// Sorts the array of keys at `path` (a key path, split at its dots).
    private static func sortKeys(at path: ArraySlice<String>, in object: inout [String: Any]) {
        guard let key = path.first else { return }
        if path.count > 1 {
            guard var nested = object[key] as? [String: Any] else { return }
            sortKeys(at: path.dropFirst(), in: &nested)
            object[key] = nested
        } else if let keys = object[key] as? [String] {
            object[key] = keys.sorted()
        } else if let keys = object[key] as? [Int] {
            object[key] = keys.sorted()
        }
    }

    /// The JSON key paths (split at their dots) of the unordered to-many relationships of the
    /// request's entity and its sub-entities, when relationships are written as keys.
    private func unorderedToManyKeys<T: ManagedObject>(_ request: FetchRequest<T>, options: JSONExportOptions) -> Set<[String]> {
        guard options.relationships == .keys,
              let entity = request.entityName.flatMap({ managedObjectModel.entitiesByName[$0] }) ?? managedObjectModel.entity(for: T.self)
        else { return [] }
        var keys = Set<[String]>()
        for member in entity.selfAndDescendants {
            for relationship in member.relationships where relationship.isToMany && !relationship.isOrdered {
                keys.insert(options.mapping.jsonKey(for: relationship, in: member).split(separator: ".", omittingEmptySubsequences: false).map(String.init))
            }
        }
        return keys
    }
}
