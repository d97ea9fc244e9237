import Foundation

// Fetches and object graphs written as JSON.
extension ManagedObjectContext {
    /// The objects `request` fetches, as a JSON array of ``ManagedObject/jsonObject(options:)``
    /// dictionaries. Relationships written as keys or nested objects are prefetched with one
    /// query per relationship, not one per object.
    ///
    /// ```swift
    /// var request = FetchRequest<Employee>()
    /// request.predicate = try FetchPredicate("age > %@", 40)
    /// let json: Data = try context.exportJSON(request)
    /// ```
    public func exportJSON<T: ManagedObject>(_ request: FetchRequest<T>, options: JSONExportOptions = JSONExportOptions()) throws -> Data {
        try Self.jsonData(exportJSONObjects(request, options: options), options: options)
    }

    /// The objects `request` fetches as JSON-ready dictionaries (what ``exportJSON(_:options:)`` writes).
    public func exportJSONObjects<T: ManagedObject>(_ request: FetchRequest<T>, options: JSONExportOptions = JSONExportOptions()) throws -> [[String: Any]] {
        let (objects, base) = try fetchForExport(request, options: options)
        return base.map { jsonObjects(objects, base: $0, options: options) } ?? []
    }

    /// The objects `request` fetches, with the relationships the export writes prefetched
    /// (one query per relationship), and the entity they are exported as (nil for none).
    func fetchForExport<T: ManagedObject>(_ request: FetchRequest<T>, options: JSONExportOptions) throws -> ([ManagedObject], EntityDescription?) {
        var request = request
        if options.relationships != .omitted, request.relationshipKeyPathsForPrefetching.isEmpty, request.resultType == .managedObject,
           let entity = request.entityName.flatMap({ managedObjectModel.entitiesByName[$0] }) ?? managedObjectModel.entity(for: T.self) {
            request.relationshipKeyPathsForPrefetching = entity.relationships.map(\.name)
        }
        let fetched = try fetch(request)
        let objects: [ManagedObject] = fetched
        let base = objects.first.map({ request.entityName.flatMap { managedObjectModel.entitiesByName[$0] } ?? managedObjectModel.entity(for: T.self) ?? $0.entity })
        try Self.checkMapping(options, from: base)
        return (objects, base)
    }

    /// An object graph as JSON: `objects`, with relationships nested to the depth `options` say.
    public func exportJSON(_ objects: [ManagedObject], options: JSONExportOptions = JSONExportOptions()) throws -> Data {
        let base = Self.commonEntity(of: objects)
        try Self.checkMapping(options, from: base)
        return try Self.jsonData(base.map { jsonObjects(objects, base: $0, options: options) } ?? [], options: options)
    }

    /// Refuses a mapping the export cannot follow (one key inside another's, a related-by
    /// entry that names no attribute), as the import does, rather than leave values out.
    private static func checkMapping(_ options: JSONExportOptions, from base: EntityDescription?) throws {
        guard let base, let problem = options.mapping.problem(reachableFrom: base) else { return }
        throw JSONExportError(message: problem.message)
    }

    /// The objects `request` fetches, decoded as `type` from their JSON: a `Codable` form to
    /// hand to other code. Dates decode with the strategy matching `options.dates`.
    ///
    /// ```swift
    /// struct EmployeeRow: Decodable { let firstName: String; let badge: UUID; let hired: Date? }
    /// let rows = try context.export(FetchRequest<Employee>(), as: EmployeeRow.self)
    /// ```
    public func export<T: ManagedObject, Row: Decodable>(_ request: FetchRequest<T>, as type: Row.Type,
                                                        options: JSONExportOptions = JSONExportOptions()) throws -> [Row] {
        try Self.decoder(for: options).decode([Row].self, from: exportJSON(request, options: options))
    }

    /// A `JSONDecoder` that reads what an export with `options` writes.
    public static func decoder(for options: JSONExportOptions) -> JSONDecoder {
        let decoder = JSONDecoder()
        switch options.dates {
        case .iso8601:
            decoder.dateDecodingStrategy = .custom { decoder in
                let text = try decoder.singleValueContainer().decode(String.self)
                guard let date = ISO8601Date.parse(text) else {
                    throw DecodingError.dataCorrupted(.init(codingPath: decoder.codingPath, debugDescription: "'\(text)' is not an ISO 8601 date"))
                }
                return date
            }
        case .secondsSince1970: decoder.dateDecodingStrategy = .secondsSince1970
        case .millisecondsSince1970: decoder.dateDecodingStrategy = .millisecondsSince1970
        }
        return decoder
    }

    private func jsonObjects(_ objects: [ManagedObject], base: EntityDescription, options: JSONExportOptions) -> [[String: Any]] {
        let exporter = JSONExporter(options: options)
        let depth = options.relationships.depth
        return objects.map { exporter.jsonObject($0, base: base, depth: depth) }
    }

    private static func commonEntity(of objects: [ManagedObject]) -> EntityDescription? {
        guard var common = objects.first?.entity else { return nil }
        for object in objects.dropFirst() {
            while !object.entity.isKind(of: common), let parent = common.superentity { common = parent }
        }
        return common
    }

    /// - Throws: ``JSONExportError`` for a value JSON cannot hold (an infinite or NaN Double).
    static func jsonData(_ objects: [[String: Any]], options: JSONExportOptions) throws -> Data {
        var writer = JSONWriter(pretty: options.prettyPrinted, capacity: objects.count * 128)
        try writer.write(objects)
        return Data(writer.bytes)
    }
}
