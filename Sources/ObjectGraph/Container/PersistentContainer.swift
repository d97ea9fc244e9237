import Foundation

/// The one-line stack: a model, a coordinator with its store, a main context and background
/// contexts.
///
/// For example:
///
/// ```swift
/// let container = try PersistentContainer(name: "Company",
///                                         entities: [Department.self, Employee.self, Manager.self])
/// let context = container.viewContext
/// ```
///
/// The store lives at `$XDG_DATA_HOME/<name>/<name>.sqlite` (else
/// `~/.local/share/<name>/<name>.sqlite`); folders are created, owner-only (`0700`, and the
/// store's files `0600`, unless ``Options/keepsProcessUmask``). Pass `storeURL:` for another
/// file, or ``PersistentContainer/Location/inMemory`` for tests. Loading throws, never aborts.
///
/// Thread-safe; ``viewContext`` belongs to the main queue when the container is created
/// there (see ``viewContext``).
public final class PersistentContainer: Sendable {
    /// Where the store lives.
    public enum Location: Sendable {
        /// `$XDG_DATA_HOME/<name>/<name>.sqlite`, else `~/.local/share/<name>/<name>.sqlite`.
        case defaultLocation
        /// This file.
        case file(URL)
        /// Memory only, gone with the container.
        case inMemory
        /// A database server (`.postgres(url)` from ObjectGraphPostgres): a store several
        /// processes and machines share, whose saves reach every container open on it
        /// (see ``DatabaseServerLocation``).
        case server(DatabaseServerLocation)
    }

    /// The container's name (the store's folder and file name by default).
    public let name: String
    /// How the store was opened (``Options/readOnly``, ``Options/allowsDroppingData``,
    /// ``Options/keepsProcessUmask``).
    public let options: Options
    public let managedObjectModel: ManagedObjectModel
    public let persistentStoreCoordinator: PersistentStoreCoordinator
    /// The main context. Created on the main queue — the main thread, `@MainActor` code or
    /// top-level code — it belongs to the main queue (`.mainQueue`, as Core Data's view
    /// context): usable there before and after any `await`, whichever thread runs the queue.
    /// Created elsewhere, it is confined to the creating thread (`.confined`).
    public let viewContext: ManagedObjectContext

    /// Opens (or creates) the container's store with a model built from `entities`.
    ///
    /// - Throws: ``ModelError`` for an invalid model, ``StoreError`` when the store cannot be
    ///   opened or does not fit the model.
    ///   With `options: [.readOnly]` the store must exist and is never written.
    public convenience init(name: String, entities: [ManagedObject.Type], storeURL: URL? = nil, options: Options = []) throws {
        try self.init(name: name, model: ManagedObjectModel(entities: entities), location: storeURL.map { .file($0) } ?? .defaultLocation,
                      options: options)
    }

    /// Opens a container with `entities` at `location` (`.inMemory` for tests).
    public convenience init(name: String, entities: [ManagedObject.Type], location: Location, options: Options = []) throws {
        try self.init(name: name, model: ManagedObjectModel(entities: entities), location: location, options: options)
    }

    /// Opens a container with `entities` on `store`: a file, memory, or a database server
    /// (`store: .postgres(url)` with ObjectGraphPostgres).
    public convenience init(name: String, entities: [ManagedObject.Type], store: Location, options: Options = []) throws {
        try self.init(name: name, model: ManagedObjectModel(entities: entities), location: store, options: options)
    }

    /// Opens a container with `model` on `store` (see ``init(name:entities:store:options:)``).
    public convenience init(name: String, model: ManagedObjectModel, store: Location, options: Options = []) throws {
        try self.init(name: name, model: model, location: store, options: options)
    }

    /// Opens (or creates) the store at `storeURL` (or the default location) with `model`.
    public convenience init(name: String, model: ManagedObjectModel, storeURL: URL? = nil, options: Options = []) throws {
        try self.init(name: name, model: model, location: storeURL.map { .file($0) } ?? .defaultLocation, options: options)
    }

    /// Opens a container with `model` at `location`. A store written with another version of
    /// the model is migrated first, as Core Data's lightweight migration infers it;
    /// `migrationProgress` hears how far it has got (see docs/migration.md).
    ///
    /// A server store is created in its database on first use; a schema written with another
    /// version of the model is migrated as a file is (in one transaction per stage, under the
    /// schema's advisory lock: see docs/migration.md).
    /// `options: [.readOnly]` works on a server store too: the store must exist, and every
    /// write throws ``StoreError`` `.readOnly`.
    ///
    /// `stagedMigration` lists the stages a store of an older version migrates through, with
    /// code of your own in custom stages (see ``StagedMigrationManager`` and
    /// docs/migration.md); without it, the store migrates straight to `model`.
    ///
    /// - Throws: ``StoreError`` when the store cannot be opened or created,
    ///   ``MigrationError`` when it needs a migration that cannot be inferred or fails (the
    ///   store is then left as it was), or the error a custom stage's handler threw (the
    ///   store is then at the version before that stage).
    public init(name: String, model: ManagedObjectModel, location: Location, options: Options = [],
                stagedMigration: StagedMigrationManager? = nil,
                migrationProgress: MigrationProgressHandler? = nil) throws {
        self.name = name
        self.options = options
        managedObjectModel = model
        let url: URL?
        switch location {
        case .defaultLocation: url = Self.defaultStoreURL(name: name)
        case .file(let file): url = file
        case .inMemory: url = nil
        case .server(let server):
            let migrator = PostgresMigrator(stagedMigration: stagedMigration, allowsDroppingData: options.contains(.allowsDroppingData),
                                            progress: migrationProgress)
            persistentStoreCoordinator = try PersistentStoreCoordinator(model: model, server: server, readOnly: options.contains(.readOnly),
                                                                        persistentHistory: options.contains(.persistentHistory), migrator: migrator)
            viewContext = ManagedObjectContext(coordinator: persistentStoreCoordinator, concurrencyType: MainQueue.isCurrent ? .mainQueue : .confined, name: "\(name).viewContext")
            return
        }
        var migrator = StoreMigrator(progress: migrationProgress, allowsDroppingData: options.contains(.allowsDroppingData))
        migrator.stagedMigration = stagedMigration
        let store = try SQLiteStore(model: model, url: url, readOnly: options.contains(.readOnly), migrator: migrator,
                                    fileMode: StoreFileMode(options))
        persistentStoreCoordinator = PersistentStoreCoordinator(model: model, store: store)
        viewContext = ManagedObjectContext(coordinator: persistentStoreCoordinator, concurrencyType: MainQueue.isCurrent ? .mainQueue : .confined, name: "\(name).viewContext")
        do {
            try persistentStoreCoordinator.startHistory(creatingTables: options.contains(.persistentHistory),
                                                        watchingOtherConnections: !options.contains(.ignoresOtherConnections))
        } catch {
            store.close()
            throw error
        }
    }

    /// A new private-queue context on the same store: use it inside `perform`. Its saves
    /// are merged into ``viewContext`` (and every other context of the container).
    public func newBackgroundContext() -> ManagedObjectContext {
        ManagedObjectContext(coordinator: persistentStoreCoordinator, concurrencyType: .privateQueue, name: "\(name).background")
    }

    /// Runs `block` on a new background context and waits for it.
    public func performBackgroundTask<T>(_ block: (ManagedObjectContext) throws -> T) rethrows -> T {
        let context = newBackgroundContext()
        return try context.performAndWait { try block(context) }
    }

    /// The store URL used when none is given: XDG's data folder.
    public static func defaultStoreURL(name: String) -> URL {
        let environment = ProcessInfo.processInfo.environment
        let base: URL
        if let xdg = environment["XDG_DATA_HOME"], !xdg.isEmpty, xdg.hasPrefix("/") {
            base = URL(fileURLWithPath: xdg, isDirectory: true)
        } else {
            base = FileManager.default.homeDirectoryForCurrentUser.appendingPathComponent(".local/share", isDirectory: true)
        }
        return base.appendingPathComponent(name, isDirectory: true).appendingPathComponent("\(name).sqlite")
    }

    /// The store file, the server's URL (without a password) for a server store, or nil in
    /// memory.
    public var storeURL: URL? { persistentStoreCoordinator.storeURL }
}
