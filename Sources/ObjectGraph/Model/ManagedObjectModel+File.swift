import Foundation

extension ManagedObjectModel {
    /// Loads a model from an Xcode model file: an `.xcdatamodeld` bundle (its current
    /// version), one `.xcdatamodel` folder, or a bare `contents` XML file.
    ///
    /// ```swift
    /// let model = try ManagedObjectModel(contentsOf: URL(fileURLWithPath: "Cars.xcdatamodeld"))
    /// let container = try PersistentContainer(name: "Cars", model: model, storeURL: storeFromAnIPhone)
    /// let car = try container.viewContext.insertNewObject(forEntityName: "Car")   // a ManagedObject
    /// try car.setValue("AB-123", forKey: "numberPlate")
    /// ```
    ///
    /// Entities without a class in `classes` are plain ``ManagedObject``s with key-based
    /// access (`value(forKey:)`, `setValue(_:forKey:)`); a class-less sub-entity shares its
    /// parent entity's class. A class in `classes` is used for the entity named by its
    /// `entityName`; its `@Attribute`s and `@Relationship`s must be properties of that entity.
    ///
    /// In a bundle every version is read and checked; `.xccurrentversion` names the current
    /// one (without it: the only version, or the last in numeric name order). A store written
    /// with an earlier version of the bundle migrates through each later version in turn.
    ///
    /// - Throws: ``ModelError`` with code `.invalidModelFile` naming the file, the element
    ///   and what is wrong; `.classMismatch` when a class does not fit its entity; the codes
    ///   of Swift-declared models for an unknown parent, destination or inverse.
    public convenience init(contentsOf url: URL, classes: [ManagedObject.Type] = []) throws {
        let versions = try Self.modelVersionFiles(at: url)
        var parsed: [(entities: [EntitySpecification], identifier: String?)] = []
        for file in versions.files { parsed.append(try Self.readModelFile(file)) }
        var current = parsed[versions.current]
        try Self.bind(classes, to: &current.entities, file: versions.files[versions.current])
        do {
            try self.init(specifications: current.entities, versionIdentifiers: current.identifier.map { [$0] } ?? [])
        } catch let error as ModelError where error.file == nil {
            throw ModelError(error.code, entity: error.entity, property: error.property, error.message, file: versions.files[versions.current])
        }
        try checkNamedProperties(file: versions.files[versions.current])
        for index in 0..<versions.current {
            earlierVersions.append(try ManagedObjectModel(specifications: parsed[index].entities,
                                                          versionIdentifiers: parsed[index].identifier.map { [$0] } ?? []))
        }
    }

    /// Every version of an `.xcdatamodeld` bundle (one for a single `.xcdatamodel` or
    /// `contents` file), by version name in numeric order, and which one is current.
    public static func versions(contentsOf url: URL, classes: [ManagedObject.Type] = []) throws -> (models: [(name: String, model: ManagedObjectModel)], current: Int) {
        let versions = try modelVersionFiles(at: url)
        var models: [(String, ManagedObjectModel)] = []
        for (index, file) in versions.files.enumerated() {
            let name = file.lastPathComponent == "contents" ? file.deletingLastPathComponent().deletingPathExtension().lastPathComponent
                                                           : file.deletingPathExtension().lastPathComponent
            models.append((name, try ManagedObjectModel(contentsOf: file, classes: index == versions.current ? classes : [])))
        }
        return (models, versions.current)
    }

    // MARK: Files

    /// The `contents` files of the versions at `url`, and the index of the current one.
    static func modelVersionFiles(at url: URL) throws -> (files: [URL], current: Int) {
        var isDirectory: ObjCBool = false
        guard FileManager.default.fileExists(atPath: url.path, isDirectory: &isDirectory) else {
            throw ModelError(.invalidModelFile, "there is no file or folder here", file: url)
        }
        guard isDirectory.boolValue else { return ([url], 0) }
        let contents = url.appendingPathComponent("contents")
        if FileManager.default.fileExists(atPath: contents.path) { return ([contents], 0) }
        let names = (try? FileManager.default.contentsOfDirectory(atPath: url.path)) ?? []
        // By name without the extension, numbers compared as numbers: Xcode names versions
        // "Model", "Model 2", "Model 10" (with it, "Model." would sort after "Model 2").
        let versions = names.filter { $0.hasSuffix(".xcdatamodel") }
            .sorted { $0.dropLast(12).compare($1.dropLast(12), options: [.numeric]) == .orderedAscending }
        guard !versions.isEmpty else {
            throw ModelError(.invalidModelFile, "the folder holds neither a contents file nor .xcdatamodel versions", file: url)
        }
        var current = versions.count - 1
        let marker = url.appendingPathComponent(".xccurrentversion")
        if let data = FileManager.default.contents(atPath: marker.path) {
            let plist = try? PropertyListSerialization.propertyList(from: data, format: nil) as? [String: Any]
            guard let name = plist?["_XCCurrentVersionName"] as? String else {
                throw ModelError(.invalidModelFile, "it is not a property list with a _XCCurrentVersionName string", file: marker)
            }
            guard let index = versions.firstIndex(of: name) else {
                throw ModelError(.invalidModelFile, "the current version \(name) is not in the bundle (it has \(versions.joined(separator: ", ")))", file: marker)
            }
            current = index
        }
        return (versions.map { url.appendingPathComponent($0).appendingPathComponent("contents") }, current)
    }

    static func readModelFile(_ file: URL) throws -> (entities: [EntitySpecification], identifier: String?) {
        guard let data = FileManager.default.contents(atPath: file.path) else {
            throw ModelError(.invalidModelFile, "the file cannot be read", file: file)
        }
        let root = try ModelFileElement.parse(data, file: file)
        return try ModelFileReader(file: file).specifications(of: root)
    }

    /// Fetch indexes name properties of the entity (own or inherited); uniqueness constraints
    /// are checked for every model when it is built.
    private func checkNamedProperties(file: URL) throws {
        for entity in entities {
            let names = entity.fileDetails.fetchIndexes.flatMap { $0.elements.map(\.property) }
            if let missing = names.first(where: { entity.propertiesByName[$0] == nil }) {
                throw ModelError(.invalidModelFile, entity: entity.name, "a fetch index names \(missing), which is not a property of \(entity.name)",
                                 file: file, element: "<entity name=\"\(entity.name)\">")
            }
        }
    }
}
