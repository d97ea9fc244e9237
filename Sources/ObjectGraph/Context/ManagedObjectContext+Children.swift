import Foundation
import OrderedCollections

// Child contexts (Core Data's `parent`): a context that reads through this one and saves into
// it. This file is the parent's side: answering a child's reads with this context's unsaved
// changes applied, taking a child's save as unsaved changes of its own, and telling children
// what reaches this context. The child's side is `ParentContextStore`.
extension ManagedObjectContext {
    /// A new context whose parent is this one (Core Data's `parent`), for an editing sheet or
    /// a batch of work that is kept or thrown away as a whole.
    ///
    /// The child's fetches, counts and faults see this context's unsaved inserts, changes and
    /// deletes (and those of the contexts above it). Its ``save()`` hands its changes to this
    /// context only, which then holds them as unsaved changes of its own; nothing reaches the
    /// store until the context at the top saves. Dropping the child, or ``rollback()`` on it,
    /// leaves this context as it was. Children can have children of their own.
    ///
    /// ```swift
    /// let sheet = context.newChildContext()
    /// let draft = try sheet.existingObject(with: employee.objectID) as! Employee
    /// draft.salary += 100
    /// try sheet.save()        // now an unsaved change of `context`
    /// try context.save()      // now in the store
    /// ```
    ///
    /// The child may have another concurrency type than this context (a `.privateQueue` child
    /// of the main-queue context); it reads this context as a ``performAndWait(_:)`` of it
    /// would (docs/threading.md, "Child contexts").
    ///
    /// - Parameters:
    ///   - concurrencyType: how the child is confined; `.confined` (the default) binds it to
    ///     the calling thread, as ``init(coordinator:concurrencyType:name:)`` does.
    ///   - name: a name for messages; "child of <this context's name>" when nil.
    public func newChildContext(concurrencyType: ConcurrencyType = .confined, name: String? = nil) -> ManagedObjectContext {
        ManagedObjectContext(parent: self, concurrencyType: concurrencyType, name: name)
    }

    func adopt(_ inbox: MergeInbox) {
        childInboxes.withLock { $0[ObjectIdentifier(inbox)] = inbox }
    }

    func abandon(_ inbox: MergeInbox) {
        _ = childInboxes.withLock { $0.removeValue(forKey: ObjectIdentifier(inbox)) }
    }

    /// Whether a child context would hear what reaches this one.
    var hasMergingChildren: Bool {
        childInboxes.withLock { $0.values.contains { $0.mergesChanges } }
    }

    /// Tells every child context that merges changes (but `except`) about `changes`.
    func tellChildren(_ changes: ChangeSet, except: MergeInbox? = nil) {
        var wakeUps: [@Sendable () -> Void] = []
        childInboxes.withLock {
            for inbox in $0.values where inbox !== except && inbox.mergesChanges {
                if let wakeUp = inbox.post(changes) { wakeUps.append(wakeUp) }
            }
        }
        for wakeUp in wakeUps { wakeUp() }
    }

    /// Tells every child context to refresh everything it holds.
    func tellChildrenToRefreshAll() {
        let wakeUps = childInboxes.withLock { $0.values.compactMap { $0.mergesChanges ? $0.postRefreshAll() : nil } }
        for wakeUp in wakeUps { wakeUp() }
    }

    /// Runs `body` on this context for a child, as Core Data's child runs a `performAndWait`
    /// on its parent: at once when the calling thread may use this context now (its owner, or
    /// inside one of its perform blocks), else under this context's perform lock, serialized
    /// with every other perform. Other contexts' saves waiting for this one are merged first.
    func servingChild<T>(_ body: () throws -> T) rethrows -> T {
        if guardian.isAllowed() {
            willAccess()
            return try body()
        }
        return try guardian.perform("context '\(name)'") {
            willAccess()
            return try body()
        }
    }

    // MARK: A child's reads

    /// A row of `object` as a child sees it: this context's current values (unsaved ones
    /// included), to-many relationships left to load on demand, transient attributes at their
    /// defaults, as a store hands out rows.
    func childRow(_ object: ManagedObject, _ plans: inout SavePlans) -> StoreRow {
        let plan = plans(object.entity)
        var values = object.values
        for (slot, value) in plan.unstoredValues { values[slot] = value }
        return StoreRow(id: object.objectID, version: object.version, values: values)
    }

    /// The rows a child's `query` selects, this context's unsaved changes applied.
    func childRows(_ query: StoreQuery) throws -> [StoreRow] {
        let objects = try fetchObjects(FetchPlan(query), includesPendingChanges: true, limit: query.limit, offset: query.offset)
        var plans = SavePlans(persistentStoreCoordinator.layout)
        return objects.map { childRow($0, &plans) }
    }

    func childObjectIDs(_ query: StoreQuery) throws -> [ObjectID] {
        let plan = FetchPlan(query)
        if !hasPendingChanges(for: plan.entity) { return try store.fetchObjectIDs(query) }
        return try fetchObjects(plan, includesPendingChanges: true, limit: query.limit, offset: query.offset).map(\.objectID)
    }

    /// How many objects a child's `query` selects here, leaving out those in `excluded` (the
    /// child judges its own changed objects in memory).
    func childCount(_ query: StoreQuery, excluding excluded: Set<ObjectID>) throws -> Int {
        let plan = FetchPlan(query)
        if !hasPendingChanges(for: plan.entity) { return try store.count(query, excluding: excluded.map(\.key)) }
        return try fetchObjects(plan, includesPendingChanges: true, limit: 0, offset: 0).count { !excluded.contains($0.objectID) }
    }

    /// This context's object for `id` with its values loaded, or nil when it is deleted here
    /// or exists nowhere (a temporary ID this context never had).
    func objectForChild(_ id: ObjectID) throws -> ManagedObject? {
        let object: ManagedObject
        if let registered = registered[id] {
            object = registered
        } else if id.isTemporaryID && parent == nil {
            return nil
        } else {
            object = makeFault(id)
        }
        if object.isFault { try loadFault(object) }
        guard object.context === self, !object.isDeleted else { return nil }
        return object
    }

    func childRows(of ids: [ObjectID]) throws -> [StoreRow] {
        var plans = SavePlans(persistentStoreCoordinator.layout)
        var rows: [StoreRow] = []
        for id in ids {
            if let object = try objectForChild(id) { rows.append(childRow(object, &plans)) }
        }
        return rows
    }

    /// The members of the to-many `relationship` of each of `owners`, as this context has them.
    func childRelatedRows(_ relationship: RelationshipDescription, owners: [ObjectID]) throws -> [(Int64, StoreRow)] {
        var plans = SavePlans(persistentStoreCoordinator.layout)
        var rows: [(Int64, StoreRow)] = []
        for id in owners {
            guard let owner = try objectForChild(id) else { continue }
            if case .unloaded = owner.values[relationship.slot] { _ = try readToMany(owner, relationship) }
            for member in owner.values[relationship.slot].objectIDs ?? [] {
                if let object = try objectForChild(member) { rows.append((id.key, childRow(object, &plans))) }
            }
        }
        return rows
    }

    /// Whether the temporary ID `id` names an object still to be saved: inserted here, or, in
    /// a child, an object a context above inserted and nobody deleted (a save's validation
    /// asks, for references to objects deleted before they were ever saved).
    func holdsUnsavedObject(_ id: ObjectID) -> Bool {
        if let object = registered[id], object.context === self {
            return object.isInserted || (parent != nil && !object.isDeleted)
        }
        guard let parent else { return false }
        return parent.servingChild { parent.holdsUnsavedObject(id) }
    }

    // MARK: A child's save

    /// Takes a child's save as unsaved changes of this context: its new objects are inserted
    /// here under the same (temporary) IDs, its changed values set on this context's objects,
    /// its deleted objects deleted here (without running their delete rules again). There are
    /// no version conflicts between a child and its parent (as in Core Data): the child's
    /// values win. An object this context deleted after the child read it stays deleted. This
    /// context's ``undoStack`` records none of it. Other children of this context hear the
    /// change.
    ///
    /// Everything the save needs is read first; a read that fails throws before anything
    /// here changed, so the child keeps its changes and this context is as it was.
    func receiveChildSave(_ save: SaveRequest, from child: MergeInbox?) throws {
        let updated = try save.updated.map { update -> ManagedObject? in
            guard let object = try objectForChild(update.object.objectID) else { return nil }
            try update.changes.forEach { slot in
                // A to-many about to be replaced is read first: its stored members become the snapshot.
                if let relationship = object.entity.relationshipAtSlot[slot], relationship.isToMany,
                   case .unloaded = object.values[slot] {
                    _ = try readToMany(object, relationship)
                }
            }
            return object
        }
        let deleted = try save.deleted.map { try objectForChild($0.objectID) }

        // The child's changes are not this context's to undo.
        let recording = undoStack
        undoStack = nil
        defer { undoStack = recording }
        var told = ChangeSet()
        told.fromParent = true
        for pushed in save.inserted {
            let id = pushed.objectID
            if let existing = registered[id], existing.context === self { continue }
            let object = ReflectionRecorder.materialize(id)
            object.context = self
            object.values = pushed.values
            object.snapshot = []
            object.state = [.inserted]
            registered.set(object, for: id)
            insertedSet.insert(object)
            noteChange(inserted: object)
            told.inserted.append(id)
            told.changes.inserted.insert(id)
        }
        var plans = SavePlans(persistentStoreCoordinator.layout)
        for (update, target) in zip(save.updated, updated) {
            guard let object = target else { continue }
            let pushed = update.object
            var names = Set<String>()
            update.changes.forEach { slot in
                let property = object.entity.properties[slot]
                guard !property.isTransient, object.values[slot] != pushed.values[slot] else { return }
                object.values[slot] = pushed.values[slot]
                object.markChanged(in: self)
                names.insert(property.name)
            }
            guard !names.isEmpty else { continue }
            let row = childRow(object, &plans)
            told.updated.append((row.id, row.values, row.version))
            told.changes.updated.insert(row.id)
            told.changes.changedKeys[row.id] = names
        }
        for object in deleted.compactMap({ $0 }) where !object.isDeleted {
            told.deleted.append(object.objectID)
            told.changes.deleted.insert(object.objectID)
            takeDeletion(of: object)
        }
        tellChildren(told, except: child)
    }

    /// Marks `object` deleted as a child's save deleted it. Its delete rules ran in the child,
    /// over what the child read from this context, and what they changed is among the child's
    /// changes; run again here, they would act on this context's older view of the object's
    /// relationships (a to-many still listing a member the child moved elsewhere, and then
    /// cascading to it: generator seed 700094). Nor does `prepareForDeletion()` run again.
    private func takeDeletion(of object: ManagedObject) {
        object.state.insert(.deleted)
        noteChange(deleted: object)
        updatedSet.remove(object)
        if object.isInserted {
            insertedSet.remove(object)
            object.state.remove(.inserted)
            unregister(object)
        } else {
            deletedSet.insert(object)
        }
    }
}
