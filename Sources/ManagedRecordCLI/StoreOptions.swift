import ArgumentParser
import Foundation
import ObjectGraph
import ObjectGraphPostgres

/// The store argument and `--model`, shared by every command, and how the store is opened:
/// a SQLite file, or a PostgreSQL URL (``ServerStore``).
struct StoreOptions: ParsableArguments {
    @Argument(help: "The store: a file (.sqlite), or a PostgreSQL URL (postgres://user@host:5432/database; the password from PGPASSWORD or ~/.pgpass).")
    var store: String

    @Option(name: .long, help: "The Xcode model (.xcdatamodeld, .xcdatamodel or contents file); needed for stores written by Apple's Core Data.")
    var model: String?

    var storeURL: URL { URL(fileURLWithPath: store) }

    /// Whether the store argument is a database server's URL rather than a file.
    var namesAServer: Bool { Self.namesAServer(store) }

    /// Whether `argument` is a PostgreSQL URL rather than a file.
    static func namesAServer(_ argument: String) -> Bool {
        guard let scheme = URL(string: argument)?.scheme?.lowercased() else { return false }
        return scheme == "postgres" || scheme == "postgresql"
    }

    /// Throws when `arguments` holds a PostgreSQL URL: `command` works on SQLite files only.
    /// The URL is not repeated (it may hold a password).
    static func refuseServer(_ arguments: [String], command: String, instead: String) throws {
        guard arguments.contains(where: namesAServer) else { return }
        throw CLIError(.serverStore, "\(command) works on SQLite store files only, and was given a PostgreSQL URL; \(instead)")
    }

    /// The store as messages name it: the path, or the URL without its password.
    var display: String { namesAServer ? (URL(string: store).map(DatabaseServerLocation.redacted) ?? "the PostgreSQL URL") : store }

    /// The server store the argument names; nil for a file.
    func server() throws -> ServerStore? { namesAServer ? try ServerStore(store) : nil }

    /// The error for a store argument that names no store file.
    var missingStore: CLIError {
        CLIError("there is no store at \(store); this tool never creates one (check the path)")
    }

    /// Throws ``missingStore`` unless the store argument names a file that exists.
    func requireStoreFile() throws {
        guard FileManager.default.fileExists(atPath: storeURL.path) else { throw missingStore }
    }

    /// The model given with `--model`.
    func givenModel() throws -> ManagedObjectModel? {
        try model.map { try ManagedObjectModel(contentsOf: URL(fileURLWithPath: $0)) }
    }

    /// The model given with `--model`, else the one the store keeps.
    func loadModel() throws -> ManagedObjectModel {
        if let model = try givenModel() { return model }
        if let server = try server() { return try server.model(server.metadata()) }
        return try ManagedObjectModel(storeURL: storeURL)
    }

    /// Opens the store with its model; read-only unless `writable` (read commands never
    /// change the file), with `options` added (`history --enable` adds `.persistentHistory`).
    /// No open migrates, whatever the command (only `migrate` does): a writable open of a
    /// store written with another version of the model is refused before anything is
    /// written, and a read-only open that would need a migration says to run `migrate`.
    /// Every command opens its store here.
    func open(writable: Bool = false, options: PersistentContainer.Options = []) throws -> OpenStore {
        let options = options.union(writable ? [] : [.readOnly])
        if let server = try server() {
            // Read first: a database without a store is refused, never given one.
            let metadata = try server.metadata()
            let model = try givenModel() ?? server.model(metadata)
            guard ServerStore.fits(model, metadata) else { throw needsMigration }
            let container = try PersistentContainer(name: server.database, model: model, location: .postgres(server.url), options: options)
            return OpenStore(model: model, container: container)
        }
        let model = try loadModel()
        if writable {
            try requireStoreFile()
            if try PersistentStoreCoordinator.requiresMigration(model: model, storeURL: storeURL) { throw needsMigration }
        } else if (try? PersistentStoreCoordinator.requiresMigration(model: model, storeURL: storeURL)) == true {
            // Checked before the container opens the store: a read-only open of a WAL store
            // leaves its -wal and -shm behind, and a refused command leaves the folder as it was.
            throw needsMigration
        }
        do {
            let container = try PersistentContainer(name: storeURL.deletingPathExtension().lastPathComponent, model: model,
                                                    storeURL: storeURL, options: options)
            return OpenStore(model: model, container: container)
        } catch let error as StoreError where !writable {
            // A read-only open refuses a store that needs migrating (it writes nothing): say
            // what to run rather than how a program would open it.
            if (try? PersistentStoreCoordinator.requiresMigration(model: model, storeURL: storeURL)) == true { throw needsMigration }
            throw error
        }
    }

    /// The error for a store written with another version of the model than the one given
    /// (or kept): no command but `migrate` changes a store's version.
    var needsMigration: CLIError {
        let option = model.map { " --model \($0)" } ?? ""
        let first = namesAServer
            ? "run `managedrecord migrate \(display)\(option)` to migrate it (one transaction per stage: a failure changes nothing; the forecast, --dry-run, is SQLite-only)"
            : "run `managedrecord migrate \(store)\(option) --dry-run` to see what the migration would do, then without --dry-run to migrate"
        return CLIError(.needsMigration, "the store was written with another version of the model, and this command does not migrate it (only `managedrecord migrate` does; an app with the older model could no longer open it): \(first)")
    }
}

/// A store opened by a command: its model and container.
struct OpenStore {
    let model: ManagedObjectModel
    let container: PersistentContainer
    var context: ManagedObjectContext { container.viewContext }

    /// The entity named `name`, or an error listing the model's entities.
    func entity(_ name: String) throws -> EntityDescription {
        guard let entity = model.entitiesByName[name] else {
            throw CLIError("the model has no entity \"\(name)\"; its entities: \(model.entities.map(\.name).sorted().joined(separator: ", "))")
        }
        return entity
    }

    /// A fetch request for `entityName` (sub-entities included), filtered by `predicate`.
    func request(_ entityName: String, _ predicate: String?) throws -> FetchRequest<ManagedObject> {
        _ = try entity(entityName)
        var request = FetchRequest<ManagedObject>(entityName: entityName)
        if let predicate, !predicate.isEmpty { request.predicate = try FetchPredicate(predicate, argumentArray: []) }
        return request
    }

    /// The entity named by `query` and its request, sorted and limited by `order`.
    func request(_ query: QueryOptions, _ order: OrderOptions) throws -> (EntityDescription, FetchRequest<ManagedObject>) {
        let entity = try entity(query.entity)
        var request = try query.request(in: self)
        try order.apply(to: &request, entity: entity, store: self)
        return (entity, request)
    }

    /// The property `key` (a key path through relationships) leads to from `entity`, or an
    /// error naming the step that is not a key, with the keys that exist.
    @discardableResult
    func checkKey(_ key: String, of entity: EntityDescription) throws -> PropertyDescription {
        var current = entity
        var found: PropertyDescription?
        for part in key.split(separator: ".", omittingEmptySubsequences: false).map(String.init) {
            guard let property = current.property(named: part) else {
                throw CLIError.unknownKey(part, entity: current, path: key)
            }
            found = property
            if let relationship = property as? RelationshipDescription { current = relationship.destinationEntity }
        }
        return found!
    }
}
