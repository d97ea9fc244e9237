import Foundation
import OrderedCollections

extension ManagedObjectContext {
    /// Writes every insert, change and delete to the store in one transaction.
    ///
    /// First `willSave()` runs on each changed object, and again on each object the hooks
    /// insert, delete or change, until a round changes nothing (as in Core Data). Then
    /// validation: required attributes, deny rules, references to objects deleted before they
    /// were ever saved, values a `Codable` attribute cannot store, numbers the store would not
    /// read back unchanged (NaN; on SQLite, a Decimal of more than 15 significant digits:
    /// docs/stores.md), and the `validateFor...` overrides, with all problems reported together.
    /// Rows changed by someone else since they were read are resolved by ``mergePolicy``
    /// (the default, `.error`, throws a ``MergeConflictError``), and so are new objects whose
    /// uniqueness-constrained values another object already has (`.error` throws a
    /// ``ConstraintConflictError``; see docs/saving-and-errors.md). Afterwards inserted objects
    /// have permanent IDs, `didSave()` runs, `.didSave` observers hear the change, and other
    /// contexts merge it.
    ///
    /// - Throws: ``ValidationError``, ``MergeConflictError``, ``ConstraintConflictError``, ``StoreError``, or
    ///   ``ContextError`` when `willSave()` hooks never stop changing objects. On any failure
    ///   the store is as it was and this context's changes (the hooks' too) stay pending.
    public func save() throws {
        willAccess()
        processPendingChanges()
        guard hasChanges else {
            // Nothing to write (an object inserted and deleted again is no change), but a save
            // still ends what can be undone: undoing that delete would bring back an object
            // the save never wrote.
            undoStack?.removeAll()
            return
        }
        try runWillSaveHooks()
        processPendingChanges()
        if try resolveConstraintConflicts() { processPendingChanges() }
        let inserted = SaveOrder.inCreationOrder(Array(insertedSet))
        let deleted = SaveOrder.sorted(Array(deletedSet)) { $0.objectID }
        // Each updated object's changed slots, computed once for validation, SQL and merge.
        let layout = persistentStoreCoordinator.layout
        var plans = SavePlans(layout)
        var updated: [SaveRequest.Update] = []
        updated.reserveCapacity(updatedSet.count)
        for object in SaveOrder.sorted(Array(updatedSet), by: { $0.objectID }) where !object.isDeleted {
            let plan = plans(object.entity)
            let changes = ChangedSlots(of: object, plan)
            // A child hands its parent every change, also to a to-many the store keeps on the other side.
            if plan.changesPersistentSlots(changes) || (parent != nil && !changes.isEmpty) {
                updated.append(.init(object: object, changes: changes))
            }
        }
        try validate(inserted: inserted, updated: updated, deleted: deleted, layout)

        let coordinator = persistentStoreCoordinator
        let outcome = try store.save(SaveRequest(policy: mergePolicy, inserted: inserted, updated: updated, deleted: deleted,
                                                  author: transactionAuthor, contextName: name))
        if parent != nil { return applyToParent(inserted: inserted, updated: updated, deleted: deleted) }
        apply(outcome, inserted: inserted, updated: updated, deleted: deleted, layout)
        // Derived attributes an Apple store's triggers recomputed: cached rows are stale.
        if outcome.recomputedRows { coordinator.rowCache.removeAll() }
    }

    // MARK: After commit

    private func apply(_ outcome: SaveOutcome, inserted: [ManagedObject], updated: [SaveRequest.Update],
                       deleted: [ManagedObject], _ layout: StoreLayout) {
        let coordinator = persistentStoreCoordinator
        let store = self.store.identity
        // The change set is built only when someone will read it.
        let observed = !(observers[.didSave]?.isEmpty ?? true)
        let merging = coordinator.hasMergingContexts(besides: self)
        let children = hasMergingChildren
        let announced = observed || coordinator.changeObservers.isObserved || merging || children
        var changeSet = ChangeSet()
        // The permanent IDs of new objects by their temporary ones, for children only (no other
        // context holds a temporary ID of this one).
        var remapped: [ObjectID: ObjectID] = [:]
        let keys = outcome.keys
        let vanished = Set(outcome.vanished.map(ObjectIdentifier.init))
        let resolved = outcome.resolved
        // Values the merge policy took from the store change objects in memory: observers hear it.
        var resolvedChanges = ContextChanges()
        var deletedIDs: [ObjectID] = []
        deletedIDs.reserveCapacity(deleted.count)
        for object in deleted { deletedIDs.append(object.objectID) }
        coordinator.rowCache.remove(deletedIDs)
        // One pass per saved object, under the row cache's lock (the body only touches the
        // objects and the identity map): the new ID, the new snapshot, and the row as saved.
        // The rows are added to the row cache only when another context merges this save (its
        // refreshed objects and the inserted ones it faults then read them without SQL); with
        // none, a row only replaces the cached one it makes stale. This context has the
        // values itself, other contexts read what they miss with SQL (as Core Data's do once
        // no context holds the object), and caching rows nobody may ask for again costs memory
        // and, at the next delete of those rows, freeing them (87 % of a script's delete all).
        coordinator.rowCache.store(count: inserted.count + updated.count - vanished.count, addingNew: merging) { add in
            var plans = SavePlans(layout)
            for object in inserted {
                let plan = plans(object.entity)
                let temporary = object.objectID
                registered.removeValue(forKey: temporary)
                let id = Self.permanent(temporary, keys: keys, store: store)
                object.objectID = id
                registered.set(object, for: id)
                Self.commit(object, version: 1, plan: plan, keys: keys, store: store)
                add(id, Self.storedRow(object.values, plan), 1)
                if announced {
                    changeSet.inserted.append(id)
                    changeSet.changes.inserted.insert(id)
                    if children { remapped[temporary] = id }
                }
            }
            for update in updated {
                let object = update.object
                if !vanished.isEmpty && vanished.contains(ObjectIdentifier(object)) { continue }
                let plan = plans(object.entity)
                let version: Int64
                if !resolved.isEmpty, let resolution = resolved[ObjectIdentifier(object)] {
                    if announcesObjectChanges { resolvedChanges.note(object, taking: resolution.values) }
                    object.values = resolution.values
                    version = resolution.version
                } else {
                    version = object.version + 1
                }
                Self.commit(object, version: version, plan: plan, keys: keys, store: store)
                let id = object.objectID
                let row = Self.storedRow(object.values, plan)
                add(id, row, version)
                guard announced else { continue }
                changeSet.updated.append((id, row, version))
                changeSet.changes.updated.insert(id)
                var names = Set<String>()
                update.changes.forEach { names.insert(object.entity.properties[$0].name) }
                changeSet.changes.changedKeys[id] = names
            }
        }
        for object in outcome.vanished {
            object.state = [.deleted]
            unregister(object)
        }
        // Objects that only pointed at a new object (not saved themselves) still hold its temporary ID.
        if !keys.isEmpty {
            var plans = SavePlans(layout)
            for object in updatedSet where object.isUpdated { Self.remap(object, plan: plans(object.entity), keys: keys, store: store) }
        }
        for object in deleted {
            if announced { changeSet.changes.deleted.insert(object.objectID) }
            unregister(object)
        }
        changeSet.deleted = deletedIDs
        endSave(inserted: inserted, updated: updated, deleted: deleted)
        if !resolvedChanges.isEmpty { post(.objectsDidChange, resolvedChanges) }
        if observed { post(.didSave, changeSet.changes) }
        if merging || observed || coordinator.changeObservers.isObserved { coordinator.broadcast(changeSet, from: self) }
        if children {
            // Children hold the objects under the temporary IDs this context gave them.
            changeSet.remapped = remapped
            changeSet.fromParent = true
            tellChildren(changeSet)
        }
    }

    /// After a child's save went into its parent: the saved values become the snapshot (the
    /// inserted objects keep their temporary IDs, as the parent has them), `didSave()` runs
    /// and `.didSave` observers hear it. Nothing is broadcast: the parent tells its other
    /// children.
    private func applyToParent(inserted: [ManagedObject], updated: [SaveRequest.Update], deleted: [ManagedObject]) {
        let observed = !(observers[.didSave]?.isEmpty ?? true)
        var changes = ContextChanges()
        for object in inserted {
            object.snapshot = object.values
            object.state.remove([.inserted, .updated])
            if observed { changes.inserted.insert(object.objectID) }
        }
        for update in updated {
            let object = update.object
            object.snapshot = object.values
            object.state.remove(.updated)
            guard observed else { continue }
            changes.updated.insert(object.objectID)
            var names = Set<String>()
            update.changes.forEach { names.insert(object.entity.properties[$0].name) }
            changes.changedKeys[object.objectID] = names
        }
        for object in deleted {
            if observed { changes.deleted.insert(object.objectID) }
            unregister(object)
        }
        endSave(inserted: inserted, updated: updated, deleted: deleted)
        if observed { post(.didSave, changes) }
    }

    /// What every save ends with, to the store or into the parent: nothing is pending any
    /// more, nothing can be undone, and every saved object hears `didSave()`.
    private func endSave(inserted: [ManagedObject], updated: [SaveRequest.Update], deleted: [ManagedObject]) {
        insertedSet.removeAll()
        deletedSet.removeAll()
        undoStack?.removeAll()
        for object in updatedSet { object.state.remove(.updated) }
        updatedSet.removeAll()
        for object in inserted { object.didSave() }
        for update in updated { update.object.didSave() }
        for object in deleted { object.didSave() }
    }

    @inline(__always)
    private static func permanent(_ id: ObjectID, keys: TemporaryKeys, store: StoreIdentity) -> ObjectID {
        guard id.isTemporaryID, let key = keys.key(for: id) else { return id }
        return ObjectID(entity: id.entity, store: store, primaryKey: key)
    }

    /// The saved values become the snapshot, at `version`.
    @inline(__always)
    private static func commit(_ object: ManagedObject, version: Int64, plan: EntitySavePlan, keys: TemporaryKeys,
                               store: StoreIdentity) {
        if !keys.isEmpty && !plan.relationshipSlots.isEmpty { remap(object, plan: plan, keys: keys, store: store) }
        object.snapshot = object.values
        object.version = version
        object.state.remove([.inserted, .updated])
    }

    /// Replaces temporary IDs of objects just inserted, in place.
    private static func remap(_ object: ManagedObject, plan: EntitySavePlan, keys: TemporaryKeys, store: StoreIdentity) {
        for slot in plan.relationshipSlots {
            switch object.values[slot] {
            case .object(let id) where id.isTemporaryID:
                object.values[slot] = .object(permanent(id, keys: keys, store: store))
            case .objects(let ids) where ids.contains(where: \.isTemporaryID):
                // Distinct temporary IDs map to distinct keys, permanent IDs stay as they are.
                object.values[slot] = .objects(OrderedSet(uncheckedUniqueElements: ids.map { permanent($0, keys: keys, store: store) }))
            default: break
            }
        }
    }

    /// A row as other contexts should see it: to-many slots left to load on demand,
    /// transient attributes at their defaults.
    @inline(__always)
    private static func storedRow(_ values: ContiguousArray<SlotValue>, _ plan: EntitySavePlan) -> ContiguousArray<SlotValue> {
        guard !plan.unstoredSlots.isEmpty else { return values }
        var stored = values
        for (slot, value) in plan.unstoredValues { stored[slot] = value }
        return stored
    }
}

extension ContextChanges {
    /// Records that `object` is about to take `values`: an update of the keys that differ.
    fileprivate mutating func note(_ object: ManagedObject, taking values: ContiguousArray<SlotValue>) {
        var keys = Set<String>()
        for slot in values.indices where slot < object.values.count && values[slot] != object.values[slot] {
            keys.insert(object.entity.properties[slot].name)
        }
        guard !keys.isEmpty else { return }
        updated.insert(object.objectID)
        changedKeys[object.objectID] = keys
    }
}
