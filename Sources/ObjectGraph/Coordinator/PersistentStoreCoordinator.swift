import Foundation
import Logging

/// Connects contexts to one store (a SQLite file or database, or a database server): it owns
/// the store, the row cache, and the list of contexts that hear about saves.
///
/// Thread-safe: the store serializes its own writes (a SQLite store funnels every save
/// through one writer in `BEGIN IMMEDIATE` transactions while reads use their own
/// connections in WAL mode, so a long read never blocks a save).
public final class PersistentStoreCoordinator: @unchecked Sendable {  // mutable state behind locks
    /// The model the store was opened with.
    public let managedObjectModel: ManagedObjectModel
    /// The store; every request of the contexts goes through it (``PersistentStore``).
    let store: any PersistentStore
    let rowCache = RowCache()
    let logger = Logger(label: "ObjectGraph.coordinator")
    /// The merge inboxes of live contexts, by context. Broadcasts
    /// (`Merge/PersistentStoreCoordinator+Broadcast.swift`) post into inboxes and never touch
    /// (or retain) a context; each context removes its inbox in `deinit`.
    let inboxes = Locked<[ObjectIdentifier: MergeInbox]>([:])
    /// Callbacks and streams that hear of every commit (``changes``).
    let changeObservers = ChangeObservers()

    /// Opens (or creates) the store at `url`, or an in-memory store when `url` is nil.
    ///
    /// - Parameters:
    ///   - migrate: migrate a store written with another model version to `model`, as Core
    ///     Data's lightweight migration infers it (see docs/migration.md).
    ///   - readOnly: open the existing store for reading only; nothing is ever written, and
    ///     writes throw ``StoreError`` `.readOnly`.
    ///   - allowsDroppingData: let a migration drop entities and properties the model no
    ///     longer has, with their values (see ``PersistentContainer/Options/allowsDroppingData``).
    ///   - migrationProgress: called as a migration copies rows (see ``MigrationProgress``).
    /// - Throws: ``StoreError`` when the file is not a store, does not fit the model, or
    ///   cannot be written; ``MigrationError`` when a migration cannot be inferred, would drop
    ///   data, or fails (the store is then left byte for byte as it was). Never aborts.
    public convenience init(model: ManagedObjectModel, storeURL url: URL?, migrate: Bool = true, readOnly: Bool = false,
                            allowsDroppingData: Bool = false, migrationProgress: MigrationProgressHandler? = nil) throws {
        try self.init(model: model, storeURL: url, migrate: migrate, readOnly: readOnly,
                      migrator: StoreMigrator(progress: migrationProgress, allowsDroppingData: allowsDroppingData))
    }

    /// Opens the store with `migrator` doing any migration (tests set its limits).
    init(model: ManagedObjectModel, storeURL url: URL?, migrate: Bool = true, readOnly: Bool = false, migrator: StoreMigrator) throws {
        managedObjectModel = model
        store = try SQLiteStore(model: model, url: url, migrate: migrate, readOnly: readOnly, migrator: migrator)
        // A store with Core Data's history tables records history and hears other processes.
        try startHistory(creatingTables: false)
    }

    /// Opens (or creates) the store of `model` on a database server (see
    /// ``DatabaseServerLocation``), and starts hearing the commits of other processes on it.
    /// With `persistentHistory` it creates the history tables where missing; a store that has
    /// them records history either way. A schema written with another version of the model is
    /// migrated by `migrator`.
    ///
    /// - Throws: ``StoreError`` when the server cannot be reached, the database holds a store
    ///   that does not fit the model (`.incompatibleModel`), or `readOnly` finds no store.
    convenience init(model: ManagedObjectModel, server: DatabaseServerLocation, readOnly: Bool, persistentHistory: Bool = false,
                     migrator: PostgresMigrator = PostgresMigrator()) throws {
        let store = try PostgresStore(model: model, location: server, readOnly: readOnly, migrator: migrator)
        self.init(model: model, store: store)
        do {
            try startHistory(creatingTables: persistentHistory)
            try store.listen(for: self)
        } catch {
            store.close()
            throw error
        }
    }

    /// A coordinator over `store`, opened for `model`.
    init(model: ManagedObjectModel, store: any PersistentStore) {
        managedObjectModel = model
        self.store = store
    }

    /// Whether the store was opened read-only.
    public var isReadOnly: Bool { store.isReadOnly }

    /// The store file, the server's URL (without a password) for a server store, or nil for
    /// an in-memory store.
    public var storeURL: URL? { store.url }
    /// The store's UUID (`Z_METADATA.Z_UUID`), part of every object ID's URI.
    public var storeIdentifier: String { store.identity.uuid }

    /// Records every SQL statement the store runs, for tests and diagnostics.
    public var sqlTrace: (@Sendable (String) -> Void)? {
        get { store.trace }
        set { store.trace = newValue }
    }

    var layout: StoreLayout { store.layout }

    func mapping(for entity: EntityDescription) -> EntityMapping { store.layout.mappings[entity.index] }

    /// Closes the store's connections once the saves under way finish. Every later fetch or
    /// save through this coordinator throws ``StoreError`` `.closed`. Call it before deleting
    /// or replacing the store file: SQLite must not have a file open while it is unlinked.
    public func close() {
        store.close()
    }

    /// Closes the store and removes it with everything in it (Core Data's
    /// `destroyPersistentStore`): a SQLite store's file with its `-wal` and `-shm` files, or a
    /// server store's schema. Every later call through this coordinator throws
    /// ``StoreError`` `.closed`; opening the location again creates an empty store.
    ///
    /// - Throws: ``StoreError`` when the store cannot be removed (`.readOnly` for a store
    ///   opened read-only, a server's error), or the file system's error for a file.
    public func destroyStore() throws {
        try store.destroy()
    }

    // MARK: Contexts

    func register(_ context: ManagedObjectContext) {
        inboxes.withLock { $0[ObjectIdentifier(context)] = context.inbox }
    }

    func unregister(_ context: ManagedObjectContext) {
        _ = inboxes.withLock { $0.removeValue(forKey: ObjectIdentifier(context)) }
    }

    /// Whether a context other than `context` would merge a save.
    func hasMergingContexts(besides context: ManagedObjectContext) -> Bool {
        inboxes.withLock {
            $0.contains { key, inbox in key != ObjectIdentifier(context) && inbox.mergesChanges }
        }
    }

    // MARK: Object IDs

    /// The object ID that `uri` (from ``ObjectID/uriRepresentation``) names in this store,
    /// or nil when it names another store, an unknown entity or a temporary object.
    public func managedObjectID(forURIRepresentation uri: URL) -> ObjectID? {
        guard uri.scheme == "x-coredata", uri.host == store.identity.uuid else { return nil }
        let parts = uri.path.split(separator: "/")
        guard parts.count == 2, let entity = managedObjectModel.entitiesByName[String(parts[0])],
              parts[1].hasPrefix("p"), let key = Int64(parts[1].dropFirst()), key > 0 else { return nil }
        return ObjectID(entity: entity, store: store.identity, primaryKey: key)
    }

    /// Whether opening the store at `url` with `model` would have to migrate it.
    public static func requiresMigration(model: ManagedObjectModel, storeURL url: URL) throws -> Bool {
        do { return try SQLiteStore.requiresMigration(model: model, url: url) }
        catch let error as SQLiteError {
            throw SQLiteFileAccess.diagnose(error, url: url, readOnly: true, fallback: StoreError(
                .cannotOpen, url: url, "cannot read the store's metadata", underlying: error))
        }
    }
}

