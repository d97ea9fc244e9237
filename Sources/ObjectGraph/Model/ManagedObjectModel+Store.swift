import Foundation

extension ManagedObjectModel {
    /// The model a store written here was written with, rebuilt from the store's metadata
    /// without any Swift class: every entity is a plain ``ManagedObject`` read and written
    /// by key, as with a model loaded from an Xcode file.
    ///
    /// For example, a script that knows nothing of the app's classes:
    ///
    /// ```swift
    /// let model = try ManagedObjectModel(storeURL: url)
    /// let container = try PersistentContainer(name: "Company", model: model, storeURL: url, options: [.readOnly])
    /// let people = try container.viewContext.fetch(FetchRequest<ManagedObject>(entityName: "Employee"))
    /// print(people.first?.value(forKey: "lastName") as? String ?? "-")
    /// ```
    ///
    /// Reads the store's metadata through a read-only connection: the store is not changed.
    /// Stores keep their model from their creation (and after each migration) on; for a
    /// store of Apple's Core Data, the compiled model it keeps in `Z_MODELCACHE` is read
    /// (when its version hashes are the store's); without it, open the store with
    /// ``init(contentsOf:classes:)`` and its `.xcdatamodeld`.
    ///
    /// - Throws: ``StoreError`` with code `.noModel` when the store does not describe its
    ///   model (no model of its own and no `Z_MODELCACHE`, or a cache of another version:
    ///   give the model file), `.notACoreDataStore` when it has no `Z_METADATA`,
    ///   `.corruptMetadata` when its metadata, the model it keeps or its `Z_MODELCACHE`
    ///   cannot be read (the message says why: decompression, the archive, an XML error at a
    ///   line and column, ...), and the codes of an unreadable file (`.permissionDenied`,
    ///   `.notADatabase`, ...).
    public convenience init(storeURL url: URL) throws {
        let metadata = try Self.storeMetadata(at: url)
        let xml: String
        if let own = metadata.modelContentsXML {
            xml = own
        } else {
            // A store of Apple's Core Data: the compiled model it keeps in Z_MODELCACHE.
            switch ModelCacheArchive.read(storeAt: url, hashes: metadata.versionHashes) {
            case .model(_, let cached):
                xml = cached
            case .absent:
                throw StoreError(.noModel, url: url, "the store does not describe its model (it was written by Apple's Core Data without a Z_MODELCACHE, or before ManagedRecord kept the model in the store); give its model with ManagedObjectModel(contentsOf: Model.xcdatamodeld), or --model on the command line")
            case .otherVersion:
                throw StoreError(.noModel, url: url, "the compiled model in the store's Z_MODELCACHE is not the version that wrote the store (its version hashes differ from the store's): give the store's model with ManagedObjectModel(contentsOf: Model.xcdatamodeld), or --model on the command line")
            case .unreadable(let reason):
                throw StoreError(.corruptMetadata, url: url, "the compiled model in the store's Z_MODELCACHE cannot be read: \(reason). Give the store's model with ManagedObjectModel(contentsOf: Model.xcdatamodeld), or --model on the command line")
            }
        }
        do {
            let parsed = try Self.specifications(contentsXML: xml, file: url)
            try self.init(specifications: parsed.entities, versionIdentifiers: parsed.identifier.map { [$0] } ?? [])
        } catch let error as ModelError {
            throw StoreError(.corruptMetadata, url: url, "the model kept in the store's metadata cannot be read: \(error)")
        }
    }

    /// The metadata of the store at `url`, read without writing anything.
    static func storeMetadata(at url: URL) throws -> StoreMetadata {
        guard FileManager.default.fileExists(atPath: url.path) else {
            throw StoreError(.cannotOpen, url: url, "there is no store file here")
        }
        try SQLiteFileAccess.check(url, readOnly: true)
        let connection: SQLiteConnection
        do {
            connection = try SQLiteFileAccess.openReadOnly(url).connection
        } catch let error as SQLiteError {
            throw SQLiteFileAccess.diagnose(error, url: url, readOnly: true, fallback: StoreError(.cannotOpen, url: url, "cannot read the database", underlying: error))
        }
        defer { connection.close() }
        do {
            guard try connection.tableExists("Z_METADATA") else {
                throw StoreError(.notACoreDataStore, url: url, "the database has no Z_METADATA table: it was not written by Core Data or ManagedRecord")
            }
            return try SQLiteStore.readMetadata(writer: connection, url: url)
        } catch let error as SQLiteError {
            throw SQLiteFileAccess.diagnose(error, url: url, readOnly: true, fallback: StoreError(.notADatabase, url: url, "the file cannot be read as a SQLite database", underlying: error))
        }
    }
}
