import Foundation

/// The contents of `Z_METADATA`: the store UUID and a binary property list with the store
/// type and the model's version hashes.
struct StoreMetadata {
    var uuid: String
    var versionHashes: [String: Data]
    var versionIdentifiers: [String]
    /// Keys this framework does not use, kept as they were when rewriting.
    var otherKeys: [String: Any] = [:]

    static let frameworkVersion = 1044

    init(uuid: String, model: ManagedObjectModel) {
        self.uuid = uuid
        self.versionHashes = [:]
        self.versionIdentifiers = []
        record(model)
    }

    /// Makes this the metadata of a store written with `model` (on creation and after a
    /// migration): its version hashes, version identifiers and description.
    mutating func record(_ model: ManagedObjectModel) {
        versionHashes = model.entityVersionHashesByName
        versionIdentifiers = model.versionIdentifiers.isEmpty ? [""] : model.versionIdentifiers
        describe(model)
    }

    init(uuid: String, plist: Data) throws {
        self.uuid = uuid
        guard let dictionary = try PropertyListSerialization.propertyList(from: plist, format: nil) as? [String: Any] else {
            throw CocoaError(.propertyListReadCorrupt)
        }
        versionHashes = dictionary["NSStoreModelVersionHashes"] as? [String: Data] ?? [:]
        versionIdentifiers = dictionary["NSStoreModelVersionIdentifiers"] as? [String] ?? []
        otherKeys = dictionary.filter { !["NSStoreModelVersionHashes", "NSStoreModelVersionIdentifiers"].contains($0.key) }
    }

    func plist() throws -> Data {
        var dictionary = otherKeys
        dictionary["NSStoreType"] = "SQLite"
        dictionary["NSStoreModelVersionHashes"] = versionHashes
        dictionary["NSStoreModelVersionIdentifiers"] = versionIdentifiers
        dictionary["NSStoreModelVersionHashesVersion"] = 3
        dictionary["NSPersistenceFrameworkVersion"] = Self.frameworkVersion
        dictionary["_NSAutoVacuumLevel"] = "2"
        return try PropertyListSerialization.data(fromPropertyList: dictionary, format: .binary, options: 0)
    }
}
