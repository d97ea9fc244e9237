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
    ///   model (give the model file), `.notACoreDataStore` when it has no `Z_METADATA`,
    ///   `.corruptMetadata` when its metadata or model cannot be read, and the codes of an
    ///   unreadable file (`.permissionDenied`, `.notADatabase`, ...).
    public convenience init(storeURL url: URL) throws {
        let metadata = try Self.storeMetadata(at: url)
        // A store of Apple's Core Data: the compiled model it keeps in Z_MODELCACHE.
        guard let xml = metadata.modelContentsXML ?? ModelCacheArchive.xml(storeAt: url, hashes: metadata.versionHashes) else {
            throw StoreError(.noModel, url: url, "the store does not describe its model (it was written by Apple's Core Data, or before ManagedRecord kept the model in the store); give its model with ManagedObjectModel(contentsOf: Model.xcdatamodeld), or --model on the command line")
        }
        do {
            let root = try ModelFileElement.parse(Data(xml.utf8), file: url)
            let parsed = try ModelFileReader(file: url).specifications(of: root)
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
