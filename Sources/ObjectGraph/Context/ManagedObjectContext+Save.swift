import Foundation
import OrderedCollections

extension ManagedObjectContext {
    /// Writes every insert, change and delete to the store in one transaction.
    ///
    /// First `willSave()` runs on each changed object, then validation: required attributes,
    /// deny rules and the `validateFor...` overrides, with all problems reported together.
    /// Rows changed by someone else since they were read are resolved by ``mergePolicy``
    /// (the default, `.error`, throws a ``MergeConflictError``). Afterwards inserted objects
    /// have permanent IDs, `didSave()` runs, `.didSave` observers hear the change, and other
    /// contexts merge it.
    ///
    /// - Throws: ``ValidationError``, ``MergeConflictError`` or ``SQLiteError``. On any
    ///   failure the store and this context's pending changes stay exactly as they were.
    public func save() throws {
        willAccess()
        processPendingChanges()
        guard hasChanges else { return }
        let inserted = Array(insertedSet)
        let deleted = Array(deletedSet)
        let changed = updatedSet
        for object in inserted { object.willSave() }
        for object in changed { object.willSave() }
        for object in deleted { object.willSave() }
        // Each updated object's changed slots, computed once for validation, SQL and merge.
        let layout = persistentStoreCoordinator.layout
        var plans = SavePlans(layout)
        var updated: [SaveTransaction.Update] = []
        updated.reserveCapacity(updatedSet.count)
        for object in updatedSet where !object.isDeleted {
            let plan = plans(object.entity)
            let changes = ChangedSlots(of: object, plan)
            if plan.changesPersistentSlots(changes) { updated.append(.init(object: object, changes: changes)) }
        }
        try validate(inserted: inserted, updated: updated, deleted: deleted, layout)

        let coordinator = persistentStoreCoordinator
        let transaction = SaveTransaction(connection: coordinator.store.writer, layout: layout,
                                          store: coordinator.store.identity, policy: mergePolicy,
                                          inserted: inserted, updated: updated, deleted: deleted)
        let outcome = try coordinator.write { _ in try transaction.run() }
        apply(outcome, inserted: inserted, updated: updated, deleted: deleted, layout)
    }

    // MARK: Validation

    private func validate(inserted: [ManagedObject], updated: [SaveTransaction.Update], deleted: [ManagedObject],
                          _ layout: StoreLayout) throws {
        var problems: [ValidationError.Problem] = []
        var plans = SavePlans(layout)
        for object in inserted {
            let required = plans(object.entity).requiredSlots
            if !required.isEmpty && Self.lacksRequired(object, required, changed: nil) {
                Self.requiredProblems(object, required, changed: nil, &problems)
            }
            do { try object.validateForInsert() } catch { Self.record(object, error, &problems) }
        }
        for update in updated {
            let object = update.object
            let plan = plans(object.entity)
            // An update can only have made its changed slots nil.
            if plan.changesRequiredSlots(update.changes) && Self.lacksRequired(object, plan.requiredSlots, changed: update.changes) {
                Self.requiredProblems(object, plan.requiredSlots, changed: update.changes, &problems)
            }
            do { try object.validateForUpdate() } catch { Self.record(object, error, &problems) }
        }
        for object in deleted {
            for relationship in object.entity.denyRelationships {
                let live = object.relatedIDs(relationship, in: self).filter { registered[$0]?.takeUnretainedValue().isDeleted != true }
                if !live.isEmpty {
                    problems.append(.init(object, key: relationship.name,
                                          "cannot be deleted while \(relationship.name) is not empty (deny rule; \(live.count) related)"))
                }
            }
            do { try object.validateForDelete() } catch { Self.record(object, error, &problems) }
        }
        if !problems.isEmpty { throw ValidationError(problems: problems) }
    }

    /// Whether a required slot is nil (for an update, a changed one: only those can have become nil).
    @inline(__always)
    private static func lacksRequired(_ object: ManagedObject, _ required: [Int], changed: ChangedSlots?) -> Bool {
        object.values.withUnsafeBufferPointer { values in
            for slot in required where values[slot].isNull {
                if let changed, !changed.contains(slot) { continue }
                return true
            }
            return false
        }
    }

    private static func requiredProblems(_ object: ManagedObject, _ required: [Int], changed: ChangedSlots?,
                                         _ problems: inout [ValidationError.Problem]) {
        for slot in required where object.values[slot].isNull {
            if let changed, !changed.contains(slot) { continue }
            let name = object.entity.properties[slot].name
            problems.append(.init(object, key: name, "\(name) is required but is nil"))
        }
    }

    private static func record(_ object: ManagedObject, _ error: any Error, _ problems: inout [ValidationError.Problem]) {
        switch error {
        case let problem as ValidationError.Problem: problems.append(problem)
        case let error as ValidationError: problems += error.problems
        default: problems.append(.init(object, "\(error)"))
        }
    }

    // MARK: After commit

    private func apply(_ outcome: SaveTransaction.Outcome, inserted: [ManagedObject], updated: [SaveTransaction.Update],
                       deleted: [ManagedObject], _ layout: StoreLayout) {
        let coordinator = persistentStoreCoordinator
        let store = coordinator.store.identity
        // The change set is built only when someone will read it.
        let observed = !(observers[.didSave]?.isEmpty ?? true)
        let announced = observed || coordinator.hasMergingContexts(besides: self)
        var changeSet = ChangeSet()
        let keys = outcome.keys
        let vanished = Set(outcome.vanished.map(ObjectIdentifier.init))
        let resolved = outcome.resolved
        var deletedIDs: [ObjectID] = []
        deletedIDs.reserveCapacity(deleted.count)
        for object in deleted { deletedIDs.append(object.objectID) }
        coordinator.rowCache.remove(deletedIDs)
        // One pass per saved object, under the row cache's lock (the body only touches the
        // objects and the identity map): the new ID, the new snapshot, and the row as saved,
        // which faults of this coordinator's contexts then read without SQL.
        coordinator.rowCache.store(count: inserted.count + updated.count - vanished.count) { add in
            var plans = SavePlans(layout)
            for object in inserted {
                let plan = plans(object.entity)
                let temporary = object.objectID
                registered.removeValue(forKey: temporary)
                let id = Self.permanent(temporary, keys, store)
                object.objectID = id
                registered[id] = Unmanaged.passUnretained(object)
                Self.commit(object, version: 1, plan, keys, store)
                add(id, Self.storedRow(object.values, plan), 1)
                if announced {
                    changeSet.inserted.append(id)
                    changeSet.changes.inserted.insert(id)
                }
            }
            for update in updated {
                let object = update.object
                if !vanished.isEmpty && vanished.contains(ObjectIdentifier(object)) { continue }
                let plan = plans(object.entity)
                let version: Int64
                if !resolved.isEmpty, let resolution = resolved[ObjectIdentifier(object)] {
                    object.values = resolution.values
                    version = resolution.version
                } else {
                    version = object.version + 1
                }
                Self.commit(object, version: version, plan, keys, store)
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
            for object in updatedSet where object.isUpdated { Self.remap(object, plans(object.entity), keys, store) }
        }
        for object in deleted {
            if announced { changeSet.changes.deleted.insert(object.objectID) }
            unregister(object)
        }
        changeSet.deleted = deletedIDs
        insertedSet.removeAll()
        deletedSet.removeAll()
        undoStack?.removeAll()
        for object in updatedSet { object.state.remove(.updated) }
        updatedSet.removeAll()
        for object in inserted { object.didSave() }
        for update in updated { update.object.didSave() }
        for object in deleted { object.didSave() }
        if observed { post(.didSave, changeSet.changes) }
        if announced { coordinator.broadcast(changeSet, from: self) }
    }

    @inline(__always)
    private static func permanent(_ id: ObjectID, _ keys: TemporaryKeys, _ store: StoreIdentity) -> ObjectID {
        guard id.isTemporaryID, let key = keys.key(for: id) else { return id }
        return ObjectID(entity: id.entity, store: store, primaryKey: key)
    }

    /// The saved values become the snapshot, at `version`.
    @inline(__always)
    private static func commit(_ object: ManagedObject, version: Int64, _ plan: EntitySavePlan, _ keys: TemporaryKeys,
                               _ store: StoreIdentity) {
        if !keys.isEmpty && !plan.relationshipSlots.isEmpty { remap(object, plan, keys, store) }
        object.snapshot = object.values
        object.version = version
        object.state.remove([.inserted, .updated])
    }

    /// Replaces temporary IDs of objects just inserted, in place.
    private static func remap(_ object: ManagedObject, _ plan: EntitySavePlan, _ keys: TemporaryKeys, _ store: StoreIdentity) {
        for slot in plan.relationshipSlots {
            switch object.values[slot] {
            case .object(let id) where id.isTemporaryID:
                object.values[slot] = .object(permanent(id, keys, store))
            case .objects(let ids) where ids.contains(where: \.isTemporaryID):
                // Distinct temporary IDs map to distinct keys, permanent IDs stay as they are.
                object.values[slot] = .objects(OrderedSet(uncheckedUniqueElements: ids.map { permanent($0, keys, store) }))
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
