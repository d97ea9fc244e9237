import Foundation
@_exported import ObjectGraph

/// The entry point of the active-record layer: one line sets up a model's stack, after which
/// every entity class answers `Employee.fetchAll()`, `Employee.commit()` and the rest from
/// any thread.
///
/// For example:
///
/// ```swift
/// try ManagedRecord.setUp(model: "Company", entities: [Department.self, Employee.self, Manager.self])
/// // or, from an Xcode model file: try ManagedRecord.setUp(modelAt: modelFile, classes: [Employee.self])
/// let e = Employee.newEntity()
/// e.firstName = "John"
/// try Employee.commit()
/// ```
///
/// Each model gets its own store and its own ``ContextManager`` (not one global singleton),
/// so several models can be set up side by side. Thread-safe.
public enum ManagedRecord {
    private static let registry = Locked(Registry())

    private struct Registry: @unchecked Sendable {  // guarded by the mutex
        var byModel: [String: ContextManager] = [:]
        var byClass: [ObjectIdentifier: ContextManager] = [:]
    }

    /// Sets up the stack for `model` with its entity classes: opens (or creates) the store at
    /// `storeURL` (default: `$XDG_DATA_HOME/<model>/<model>.sqlite`, else
    /// `~/.local/share/<model>/<model>.sqlite`), first copying `seedStore` there when no
    /// store exists yet. Setting up a model again replaces its stack and closes the old one's
    /// store (as ``tearDown(model:)`` does).
    ///
    /// - Parameters:
    ///   - mergePolicy: how commits resolve rows changed since they were read; by default
    ///     the committing context's changes win per property, as RHManagedObject does.
    ///   - options: `[.readOnly]` opens an existing store for reading only (commits throw
    ///     ``StoreError`` `.readOnly`); `[.allowsDroppingData]` lets a migration drop entities
    ///     and properties the model no longer has, which otherwise throws ``MigrationError``
    ///     `.wouldDropData`; `[.persistentHistory]` records Core Data's persistent history
    ///     with every commit and merges other processes' commits (docs/history.md) (see
    ///     ``PersistentContainer/Options``).
    ///   - stagedMigration: the stages a store of an older model version migrates through,
    ///     custom ones with code of your own (see ``StagedMigrationManager``).
    /// - Throws: ``ModelError`` for an invalid model, ``StoreError`` when the store cannot
    ///   be opened, `CocoaError` when the seed store cannot be copied, ``MigrationError`` or
    ///   a custom stage's own error when a migration fails.
    @discardableResult
    public static func setUp(model: String, entities: [ManagedObject.Type], storeURL: URL? = nil, seedStore: URL? = nil,
                             mergePolicy: MergePolicy = .mergeByPropertyObjectTrump,
                             options: PersistentContainer.Options = [], stagedMigration: StagedMigrationManager? = nil) throws -> ContextManager {
        try setUp(model: model, entities: entities, location: storeURL.map { .file($0) } ?? .defaultLocation,
                  seedStore: seedStore, mergePolicy: mergePolicy, options: options, stagedMigration: stagedMigration)
    }

    /// Sets up `model` on `store`: a file, memory, or a database server
    /// (`store: .postgres(url)` with ObjectGraphPostgres), as
    /// ``setUp(model:entities:location:seedStore:mergePolicy:options:)`` does.
    ///
    /// A `seedStore` is a SQLite file copied into place: it is refused for a server store
    /// (``StoreError`` `.cannotOpen`); fill a new server store by importing instead.
    /// `options: [.readOnly]` works on a server store: every commit throws ``StoreError``
    /// `.readOnly`.
    @discardableResult
    public static func setUp(model: String, entities: [ManagedObject.Type], store: PersistentContainer.Location,
                             seedStore: URL? = nil, mergePolicy: MergePolicy = .mergeByPropertyObjectTrump,
                             options: PersistentContainer.Options = [], stagedMigration: StagedMigrationManager? = nil) throws -> ContextManager {
        try setUp(model: model, entities: entities, location: store, seedStore: seedStore, mergePolicy: mergePolicy, options: options,
                  stagedMigration: stagedMigration)
    }

    /// Sets up `model` at `location` (`.inMemory` for tests).
    @discardableResult
    public static func setUp(model: String, entities: [ManagedObject.Type], location: PersistentContainer.Location,
                             seedStore: URL? = nil, mergePolicy: MergePolicy = .mergeByPropertyObjectTrump,
                             options: PersistentContainer.Options = [], stagedMigration: StagedMigrationManager? = nil) throws -> ContextManager {
        try setUp(name: model, model: ManagedObjectModel(entities: entities), store: location, seedStore: seedStore, mergePolicy: mergePolicy,
                  options: options, stagedMigration: stagedMigration)
    }

    /// Sets up a model built already — read from an Xcode model file with
    /// `ManagedObjectModel(contentsOf:classes:)`, or made from classes — under `name`, with
    /// the store and options of ``setUp(model:entities:storeURL:seedStore:mergePolicy:options:stagedMigration:)``
    /// (default store: `$XDG_DATA_HOME/<name>/<name>.sqlite`). The model's classes answer the
    /// class-level helpers; its entities without a class are reached by name with
    /// ``entity(_:inModel:)``.
    ///
    /// ```swift
    /// let model = try ManagedObjectModel(contentsOf: modelFile, classes: [EmployeeMO.self])
    /// try ManagedRecord.setUp(name: "Company", model: model)
    /// ```
    @discardableResult
    public static func setUp(name: String, model: ManagedObjectModel, storeURL: URL? = nil, seedStore: URL? = nil,
                             mergePolicy: MergePolicy = .mergeByPropertyObjectTrump,
                             options: PersistentContainer.Options = [], stagedMigration: StagedMigrationManager? = nil) throws -> ContextManager {
        try setUp(name: name, model: model, store: storeURL.map { .file($0) } ?? .defaultLocation, seedStore: seedStore,
                  mergePolicy: mergePolicy, options: options, stagedMigration: stagedMigration)
    }

    /// Sets up a model built already under `name` on `store`: a file, memory, or a database
    /// server (`.postgres(url)` with ObjectGraphPostgres), as
    /// ``setUp(model:entities:store:seedStore:mergePolicy:options:stagedMigration:)`` does.
    @discardableResult
    public static func setUp(name: String, model objectModel: ManagedObjectModel, store: PersistentContainer.Location,
                             seedStore: URL? = nil, mergePolicy: MergePolicy = .mergeByPropertyObjectTrump,
                             options: PersistentContainer.Options = [], stagedMigration: StagedMigrationManager? = nil) throws -> ContextManager {
        let manager = try ContextManager(name: name, model: objectModel, location: store, seedStore: seedStore, mergePolicy: mergePolicy,
                                         options: options, stagedMigration: stagedMigration)
        let previous = registry.withLock { registry in
            let previous = registry.byModel[name]
            if let previous {
                registry.byClass = registry.byClass.filter { $0.value !== previous }
            }
            registry.byModel[name] = manager
            for entity in objectModel.entities where entity.managedClass != ManagedObject.self {
                registry.byClass[ObjectIdentifier(entity.managedClass)] = manager
            }
            return previous
        }
        // After the new stack is in place: the old one's contexts get `.closed` from now on.
        previous?.close()
        return manager
    }

    /// Whether opening the store at `storeURL` with a model of `entities` would migrate it
    /// (false when there is no store yet). Touches nothing.
    public static func doesRequireMigration(entities: [ManagedObject.Type], storeURL: URL) throws -> Bool {
        try PersistentStoreCoordinator.requiresMigration(model: ManagedObjectModel(entities: entities), storeURL: storeURL)
    }

    /// Closes and forgets the stack of `model` (its store stays on disk). Its classes need
    /// `setUp` again; contexts of the old stack still held (or alive on other threads) throw
    /// ``StoreError`` `.closed` at their next store access.
    public static func tearDown(model: String) {
        let manager = registry.withLock { registry -> ContextManager? in
            guard let manager = registry.byModel.removeValue(forKey: model) else { return nil }
            registry.byClass = registry.byClass.filter { $0.value !== manager }
            return manager
        }
        manager?.close()
    }

    /// The context manager of the model called `name`, if set up.
    public static func manager(forModel name: String) -> ContextManager? {
        registry.withLock { $0.byModel[name] }
    }

    /// The entity called `name` of a model that is set up, with the class-level helpers
    /// (`fetchAll`, `fetch(where:)`, `count`, `newEntity`, `aggregate`, `deleteAll`, …) on
    /// the calling thread's context: for the entities of a model file that have no Swift
    /// class, whose objects are `ManagedObject`s read and written by key. `model` names the
    /// model; without it, the one set-up model that has the entity.
    ///
    /// ```swift
    /// let shifts = try ManagedRecord.entity("Shift")
    /// let shift = try shifts.newEntity()
    /// try shift.setValue(7.5, forKey: "hours")
    /// try shifts.commit()
    /// print(try shifts.count(where: "hours > %@", 6))
    /// ```
    ///
    /// - Throws: ``ModelError`` `.unknownEntity` naming the entities there are when no model
    ///   (or not the model named) has one called `name`, or naming the models when several
    ///   do and `model` is not given.
    public static func entity(_ name: String, inModel model: String? = nil) throws -> RecordEntity {
        let managers = registry.withLock { registry in
            model.map { registry.byModel[$0].map { [$0] } ?? [] } ?? Array(registry.byModel.values)
        }
        if let model, managers.isEmpty {
            let known = registry.withLock { $0.byModel.keys.sorted().joined(separator: ", ") }
            throw ModelError(.unknownEntity, entity: name, "no model named \(model) is set up (set up: \(known.isEmpty ? "none" : known)); call ManagedRecord.setUp first")
        }
        let having = managers.filter { $0.model.entitiesByName[name] != nil }
        switch having.count {
        case 1:
            return try having[0].entity(named: name)
        case 0 where managers.count == 1:
            return try managers[0].entity(named: name)
        case 0:
            let known = managers.sorted { $0.name < $1.name }.map { "\($0.name): \($0.model.entityNameList)" }.joined(separator: "; ")
            throw ModelError(.unknownEntity, entity: name, "no model that is set up has an entity named \(name) (\(known.isEmpty ? "none is set up; call ManagedRecord.setUp first" : known))")
        default:
            let models = having.map(\.name).sorted().joined(separator: ", ")
            throw ModelError(.unknownEntity, entity: name, "the models \(models) each have an entity named \(name); say which with entity(\"\(name)\", inModel:)")
        }
    }

    /// The context manager whose model has `entity`, if it is set up.
    static func manager(ofEntity entity: EntityDescription) -> ContextManager? {
        registry.withLock { registry in registry.byModel.values.first { $0.model.entitiesByName[entity.name] === entity } }
    }

    /// The context manager that serves `managedClass`: by its `modelName` when it names one,
    /// else the model it was set up with. Stops with a message when there is none.
    public static func manager(for managedClass: ManagedObject.Type) -> ContextManager {
        let found = registry.withLock { registry -> ContextManager? in
            if let name = managedClass.modelName { return registry.byModel[name] }
            return registry.byClass[ObjectIdentifier(managedClass)]
        }
        guard let found else {
            fatalError("ManagedRecord: \(managedClass) belongs to no model that is set up. Call ManagedRecord.setUp(model:entities:), or setUp(modelAt:classes:) for a model file, with \(managedClass).self first\(managedClass.modelName.map { " (its modelName is \"\($0)\")" } ?? "").")
        }
        return found
    }
}
