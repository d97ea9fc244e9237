import ArgumentParser
import Foundation
import ObjectGraph

/// The store argument and `--model`, shared by every command, and how the store is opened.
struct StoreOptions: ParsableArguments {
    @Argument(help: "The store file (.sqlite).")
    var store: String

    @Option(name: .long, help: "The Xcode model (.xcdatamodeld, .xcdatamodel or contents file); needed for stores written by Apple's Core Data.")
    var model: String?

    var storeURL: URL { URL(fileURLWithPath: store) }

    /// Whether the store argument is a database server's URL rather than a file.
    var namesAServer: Bool {
        guard let scheme = URL(string: store)?.scheme?.lowercased() else { return false }
        return scheme == "postgres" || scheme == "postgresql"
    }

    /// The error for a store argument that names no store file: a PostgreSQL URL (not echoed:
    /// it may hold a password), or a path where nothing is.
    var missingStore: CLIError {
        if namesAServer {
            return CLIError("the store is a PostgreSQL URL; this tool works on SQLite store files only. A PostgreSQL store is read, changed and migrated by the program that opens it (PersistentContainer with location: .postgres(url), see docs/stores.md)")
        }
        return CLIError("there is no store at \(store); this tool never creates one (check the path)")
    }

    /// Throws ``missingStore`` unless the store argument names a file that exists.
    func requireStoreFile() throws {
        guard !namesAServer, FileManager.default.fileExists(atPath: storeURL.path) else { throw missingStore }
    }

    /// The model given with `--model`, else the one the store keeps.
    func loadModel() throws -> ManagedObjectModel {
        if let model { return try ManagedObjectModel(contentsOf: URL(fileURLWithPath: model)) }
        return try ManagedObjectModel(storeURL: storeURL)
    }

    /// Opens the store with its model; read-only unless `writable` (read commands never
    /// change the file), with `options` added (`history --enable` adds `.persistentHistory`).
    /// No open migrates, whatever the command (only `migrate` does): a writable open of a
    /// store written with another version of the model is refused before anything is
    /// written, and a read-only open that would need a migration says to run `migrate`.
    /// Every command opens its store here.
    func open(writable: Bool = false, options: PersistentContainer.Options = []) throws -> OpenStore {
        if namesAServer { throw missingStore }
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
                                                    storeURL: storeURL, options: options.union(writable ? [] : [.readOnly]))
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
        return CLIError(.needsMigration, "the store was written with another version of the model, and this command does not migrate it (only `managedrecord migrate` does; an app with the older model could no longer open it): run `managedrecord migrate \(store)\(option) --dry-run` to see what the migration would do, then without --dry-run to migrate")
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
