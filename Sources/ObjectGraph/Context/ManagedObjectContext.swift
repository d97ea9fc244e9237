import Foundation
import Logging
import OrderedCollections
#if canImport(Glibc)
import Glibc
#endif

/// A scratch pad of managed objects: it registers one object per ID (uniquing), tracks
/// their changes, fires their faults, and saves them to the store in one transaction.
///
/// **Thread safety.** A context is confined: a `.mainQueue` context (the container's
/// `viewContext`) belongs to the main queue — the main thread, `@MainActor` code, and
/// top-level code after an `await`, on whichever thread runs it; a `.confined` context
/// belongs to the thread that created it; a `.privateQueue` context is used only inside
/// ``perform(_:)-(()->T)`` or ``performAndWait(_:)``; and any context bound to a task with
/// ``withTaskBinding(_:)`` belongs to that task alone. A use from anywhere else stops with a
/// message naming the context. Objects never cross contexts: pass ``ObjectID``s.
///
/// For example:
///
/// ```swift
/// let john = Employee(context: context)
/// john.firstName = "John"
/// try context.save()
/// ```
public final class ManagedObjectContext: @unchecked Sendable {  // must reach perform blocks on other threads, as NSManagedObjectContext does; every other entry checks confinement at run time (ConfinementGuard)
    /// How a context is confined.
    public enum ConcurrencyType: Sendable {
        /// Bound to the thread that creates it; `perform` may also be used from other threads.
        case confined
        /// Belongs to the main queue, as Core Data's `NSMainQueueConcurrencyType`: usable from
        /// the main thread, from `@MainActor` code and from top-level code before and after any
        /// `await` (on Linux a worker thread runs the main queue once it has awaited);
        /// `perform` may also be used from other threads.
        case mainQueue
        /// Used only inside `perform` / `performAndWait`, from any thread.
        case privateQueue
    }

    /// The coordinator whose store this context reads and saves.
    public let persistentStoreCoordinator: PersistentStoreCoordinator
    /// The context this one reads through and saves into (Core Data's `parent`), or nil for a
    /// context of the coordinator's store. See ``newChildContext(concurrencyType:name:)``.
    public let parent: ManagedObjectContext?
    /// Where every fetch, fault and save of this context goes: the coordinator's store, or,
    /// for a child context, its parent (``ParentContextStore``). A coordinator opens its
    /// store once and never replaces it (`let`), so the context keeps it from the start
    /// instead of asking the coordinator on every request.
    let store: any PersistentStore
    /// The inboxes of this context's child contexts, which hear what reaches this context
    /// (its saves, merges, and its children's saves); thread-safe (children register and
    /// leave from their own threads).
    let childInboxes = Locked<[ObjectIdentifier: MergeInbox]>([:])
    /// A name for messages and logs; the persistent history records it with each save
    /// (``HistoryTransaction/contextName``).
    public var name: String
    /// Who saves, as the persistent history records it with each save of this context
    /// (``HistoryTransaction/author``, Core Data's `transactionAuthor`): set it before a
    /// save to tell an importer's commits from the user's. Nil records none.
    public var transactionAuthor: String?
    /// How a save resolves rows changed by someone else since they were read.
    public var mergePolicy: MergePolicy = .error
    /// Whether saves of other contexts on the same coordinator are merged into this one
    /// (at its next entry point, on its own thread).
    public var automaticallyMergesChanges: Bool {
        get { inbox.mergesChanges }
        set { inbox.mergesChanges = newValue }
    }
    /// The most saved objects other contexts' saves may leave waiting for this context's next
    /// access. Past it the waiting changes are dropped and, at that access, every registered
    /// object without unsaved changes turns into a fault that reloads on touch — so an idle
    /// context never hoards memory. Thread-safe to set only before the context is shared.
    public var mergeInboxCapacity: Int {
        get { inbox.capacity }
        set { inbox.capacity = newValue }
    }
    public let concurrencyType: ConcurrencyType
    /// Records changes for ``undo()``; nil (the default) records nothing.
    @exclusivity(unchecked) public var undoStack: UndoStack?

    let guardian: ConfinementGuard
    let logger = Logger(label: "ObjectGraph.context")

    /// Registered objects, held without a reference; each removes itself when it deallocates.
    let registered = IdentityMap()
    /// Objects with changes are held strongly until saved or rolled back.
    /// (The fields marked `@exclusivity(unchecked)` are touched on every property write; a
    /// context is used on one thread at a time, and no access to them overlaps another.)
    @exclusivity(unchecked) var insertedSet = ChangeTable(.inserted)
    @exclusivity(unchecked) var updatedSet = ChangeTable(.updated)
    @exclusivity(unchecked) var deletedSet = ChangeTable(.deleted)

    /// Change sets posted by other contexts' saves, merged at the next entry point.
    let inbox = MergeInbox()

    /// Observers by event; `isAlive` is false once an observing object (fetched results, an
    /// object observation) was released, and the entry is then dropped at the next post.
    var observers: [ContextEvent: [(token: Int, isAlive: () -> Bool, block: (ContextChanges) -> Void)]] = [:]
    var nextObserverToken = 0
    /// Whether other contexts' saves wake this context to merge at once (see `updateMergePush`).
    var pushesMerges = false
    /// Whether changes are recorded object by object: while `.objectsDidChange` has observers
    /// (`announcesObjectChanges`) or a save runs `willSave()` hooks (`changedDuringHooks`).
    @exclusivity(unchecked) var observesObjectChanges = false
    @exclusivity(unchecked) var announcesObjectChanges = false
    /// Objects changed, inserted or deleted since the current round of `willSave()` hooks
    /// began; nil when no save is running hooks.
    @exclusivity(unchecked) var changedDuringHooks: [ManagedObject]?
    /// Relationship destinations the context keeps alive (see `destination(with:)`).
    @exclusivity(unchecked) var retainedDestinations: [ManagedObject] = []
    /// Changes not yet announced with `objectsDidChange` (tracked only while observed).
    @exclusivity(unchecked) var unannounced = ContextChanges()
    @exclusivity(unchecked) var objectsDidChangePending = false

    /// Creates a context on `coordinator`.
    public init(coordinator: PersistentStoreCoordinator, concurrencyType: ConcurrencyType = .confined, name: String? = nil) {
        persistentStoreCoordinator = coordinator
        parent = nil
        store = coordinator.store
        self.concurrencyType = concurrencyType
        self.name = name ?? "context"
        guardian = ConfinementGuard(concurrencyType)
        coordinator.register(self)
    }

    /// A child of `parent`: it reads through the parent and saves into it; it hears the
    /// parent's changes, not the coordinator's broadcasts.
    init(parent: ManagedObjectContext, concurrencyType: ConcurrencyType, name: String?) {
        persistentStoreCoordinator = parent.persistentStoreCoordinator
        self.parent = parent
        let parentStore = ParentContextStore(parent: parent)
        store = parentStore
        self.concurrencyType = concurrencyType
        self.name = name ?? "child of \(parent.name)"
        guardian = ConfinementGuard(concurrencyType)
        parentStore.childInbox = inbox
        parent.adopt(inbox)
    }

    deinit {
        if let parent {
            parent.abandon(inbox)
        } else {
            persistentStoreCoordinator.unregister(self)
        }
        detachAllObjects()
    }

    /// Clears every registered or changed object's reference to this context, and empties
    /// the identity map (waiting for objects that are deallocating on other threads to leave
    /// it, so the context stays alive for them).
    func detachAllObjects() {
        registered.detachAll { $0.detachFromContext() }
        for object in insertedSet.union(updatedSet).union(deletedSet) { object.detachFromContext() }
    }

    /// The model of the coordinator.
    public var managedObjectModel: ManagedObjectModel { persistentStoreCoordinator.managedObjectModel }

    // MARK: Entry

    /// Every entry point: check confinement, then merge what other contexts saved.
    @inline(__always)
    func willAccess() {
        if !guardian.isAllowed() { guardian.violation("context '\(name)'") }
        if inbox.hasWaiting { drainInbox() }
    }

    /// Runs `block` on this context, serialized with other `perform` calls, and returns its result.
    public func performAndWait<T>(_ block: () throws -> T) rethrows -> T {
        try guardian.perform("context '\(name)'", block)
    }

    /// Runs `block` on this context from async code, serialized with other `perform` calls.
    /// The block is synchronous, so it cannot suspend halfway and resume on another thread.
    ///
    /// The block and its result are `sending`, so main-actor code can call it with a closure
    /// that captures the context and object IDs, and get its result back.
    public func perform<T>(_ block: sending () throws -> T) async rethrows -> sending T {
        try guardian.perform("context '\(name)'", block)
    }

    /// Runs async code with this context bound to the current task: the context (and its
    /// objects) may be used from whichever thread the task resumes on after an `await`, and
    /// from that task only — not from its child tasks (`async let`, task groups, `Task { }`),
    /// which are tasks of their own. Bind an idle private-queue context, or a context the
    /// calling code owns (the view context from main-actor code); binding a context another
    /// task holds stops with a message.
    ///
    /// ```swift
    /// let context = container.newBackgroundContext()
    /// let names = try await context.withTaskBinding {
    ///     try await someAsyncWork()
    ///     return try context.fetch(FetchRequest<Employee>()).map(\.firstName)
    /// }
    /// ```
    public func withTaskBinding<T>(_ body: sending () async throws -> T) async rethrows -> sending T {
        try await guardian.bindToTask("context '\(name)'", body)
    }

    /// Binds the context to `task` for the rest of its life: a context made for one task
    /// (ManagedRecord's per-task contexts).
    package func bindForever(to task: TaskIdentity) {
        guardian.bindForever(to: task)
    }

    // MARK: Registration

    /// The entity of `managedClass` in this context's model; stops with a message when the
    /// class is not part of it.
    func entity(forClass managedClass: ManagedObject.Type) -> EntityDescription {
        guard let entity = managedObjectModel.entity(for: managedClass) else {
            fatalError("ManagedRecord: \(managedClass) is not an entity of this context's model; add \(managedClass).self to the entity list")
        }
        return entity
    }

    /// Inserts an object created without a context. Objects created with `init(context:)`
    /// are inserted already.
    public func insert(_ object: ManagedObject) {
        willAccess()
        if object.context === self { return }
        precondition(object.context == nil, "ManagedRecord: \(object.objectID) belongs to another context")
        precondition(object.objectID.isTemporaryID, "ManagedRecord: only new objects can be inserted")
        object.context = self
        object.state.remove(.detached)
        object.state.insert(.inserted)
        registered.set(object, for: object.objectID)
        insertedSet.insert(object)
        if let undoStack {
            undoStack.record(.insert(object))
            object.state.insert(.insertedInOpenUndoGroup)
        }
        noteChange(inserted: object)
        object.awakeFromInsert()
    }

    /// Creates and inserts an object of the entity named `entityName`: an instance of the
    /// entity's Swift class, or a plain `ManagedObject` for an entity without one.
    ///
    /// - Throws: ``ModelError`` when the model has no such entity, or when it is abstract
    ///   (``ModelError/Code/abstractEntity``).
    @discardableResult
    public func insertNewObject(forEntityName entityName: String) throws -> ManagedObject {
        willAccess()
        guard let entity = managedObjectModel.entitiesByName[entityName] else {
            throw ModelError(.unknownEntity, entity: entityName, "the model has no entity named \(entityName)")
        }
        guard !entity.isAbstract else { throw ModelError.abstract(entity) }
        return entity.managedClass.init(entity: entity, insertInto: self)
    }

    func unregister(_ object: ManagedObject) {
        registered.remove(object.objectID, ifItIs: object)
        object.context = nil
    }

    /// The objects registered now (faults included).
    public var registeredObjects: Set<ManagedObject> {
        willAccess()
        return Set(registered.objects)
    }

    /// The registered object for `id`, or nil; never touches the store.
    public func registeredObject(for id: ObjectID) -> ManagedObject? {
        willAccess()
        return registered[id]
    }

    /// The object for `id` in this context: the registered one, or a fault that loads on
    /// first touch. Never touches the store; use ``existingObject(with:)`` to check the row.
    public func object(with id: ObjectID) -> ManagedObject {
        willAccess()
        if let object = registered[id] { return object }
        precondition(!id.isTemporaryID || parent != nil, "ManagedRecord: \(id) is a temporary ID of another context; save that context first and use the permanent ID")
        precondition(id.isTemporaryID || id.store === store.identity, "ManagedRecord: \(id) belongs to another store")
        return makeFault(id)
    }

    /// The object at the other end of a relationship. A fault made for it is kept alive by
    /// the context (as Core Data's relationships keep theirs) until ``reset()``, so reading
    /// `employee.department` on many employees does not make and drop a fault each time.
    func destination(with id: ObjectID) -> ManagedObject {
        if let object = registered[id] { return object }
        let fault = makeFault(id)
        retainedDestinations.append(fault)
        return fault
    }

    /// The object at the other end of a relationship being changed, whose inverse must follow;
    /// nil for the temporary ID of an object deleted before it was ever saved (it has left the
    /// context, so there is nothing to update, and the reference can still be cleared).
    func inverseTarget(_ id: ObjectID) -> ManagedObject? {
        if let object = registered[id] { return object }
        return id.isTemporaryID && parent == nil ? nil : object(with: id)
    }

    func makeFault(_ id: ObjectID) -> ManagedObject {
        let object = ReflectionRecorder.materialize(id)
        object.context = self
        registered.set(object, for: id)
        return object
    }

    /// The objects for `ids`, in order: registered ones as they are, the others loaded with
    /// one query per 500 (never one per object). IDs whose rows no longer exist are left out.
    public func objects(for ids: [ObjectID]) -> [ManagedObject] {
        willAccess()
        return objects(with: OrderedSet(ids))
    }

    /// The object for `id`, with its values loaded; throws when no such row exists.
    ///
    /// - Throws: ``ContextError`` (`objectNotFound`, `foreignObjectID`), or a store error.
    public func existingObject(with id: ObjectID) throws -> ManagedObject {
        willAccess()
        if let object = registered[id] {
            if object.isFault { try loadFault(object) }
            guard object.context === self else {
                throw ContextError(code: .objectNotFound, objectID: id, message: "\(id) no longer exists in the store")
            }
            return object
        }
        guard !id.isTemporaryID || parent != nil, id.isTemporaryID || id.store === store.identity else {
            throw ContextError(code: .foreignObjectID, objectID: id, message: "\(id) is temporary or belongs to another store")
        }
        let object = makeFault(id)
        try loadFault(object)
        guard object.context === self else {
            throw ContextError(code: .objectNotFound, objectID: id, message: "\(id) does not exist in the store")
        }
        return object
    }

    // MARK: Changes

    /// Objects inserted since the last save.
    public var insertedObjects: Set<ManagedObject> { willAccess(); return Set(insertedSet) }
    /// Objects changed since the last save (not inserted, not deleted).
    public var updatedObjects: Set<ManagedObject> { willAccess(); return Set(updatedSet.filter { !$0.changedSlots().isEmpty }) }
    /// Objects deleted since the last save.
    public var deletedObjects: Set<ManagedObject> { willAccess(); return Set(deletedSet) }

    /// Whether a save would write anything.
    public var hasChanges: Bool {
        willAccess()
        return !insertedSet.isEmpty || !deletedSet.isEmpty || updatedSet.contains { !$0.changedSlots().isEmpty }
    }

    func registerUpdate(_ object: ManagedObject) {
        updatedSet.insert(object)
        noteChange(updated: object)
    }
}
