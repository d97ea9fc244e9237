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
        var updated: [SaveTransaction.Update] = []
        updated.reserveCapacity(updatedSet.count)
        for object in updatedSet where !object.isDeleted {
            let changes = ChangedSlots(of: object)
            if changes.intersects(object.entity.savePlan(in: layout).persistent) { updated.append(.init(object: object, changes: changes)) }
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
        @inline(__always)
        func check(_ object: ManagedObject, changed: ChangedSlots?) {
            let required = object.entity.savePlan(in: layout).requiredSlots
            guard !required.isEmpty else { return }
            object.values.withUnsafeBufferPointer { values in
                for slot in required where values[slot].isNull {
                    // An update can only have made its changed slots nil.
                    if let changed, !changed.contains(slot) { continue }
                    let name = object.entity.properties[slot].name
                    problems.append(.init(object, key: name, "\(name) is required but is nil"))
                }
            }
        }
        @inline(__always)
        func record(_ object: ManagedObject, _ hook: () throws -> Void) {
            do { try hook() } catch let problem as ValidationError.Problem {
                problems.append(problem)
            } catch let error as ValidationError {
                problems += error.problems
            } catch {
                problems.append(.init(object, "\(error)"))
            }
        }
        for object in inserted {
            check(object, changed: nil)
            record(object) { try object.validateForInsert() }
        }
        for update in updated {
            check(update.object, changed: update.changes)
            record(update.object) { try update.object.validateForUpdate() }
        }
        for object in deleted {
            for relationship in object.entity.denyRelationships {
                let live = object.relatedIDs(relationship, in: self).filter { registered[$0]?.takeUnretainedValue().isDeleted != true }
                if !live.isEmpty {
                    problems.append(.init(object, key: relationship.name,
                                          "cannot be deleted while \(relationship.name) is not empty (deny rule; \(live.count) related)"))
                }
            }
            record(object) { try object.validateForDelete() }
        }
        if !problems.isEmpty { throw ValidationError(problems: problems) }
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

        @inline(__always)
        func permanent(_ id: ObjectID) -> ObjectID {
            guard id.isTemporaryID, let key = keys.key(for: id) else { return id }
            return ObjectID(entity: id.entity, store: store, primaryKey: key)
        }
        /// Replaces temporary IDs of objects just inserted, in place.
        func remap(_ object: ManagedObject) {
            for slot in object.values.indices {
                switch object.values[slot] {
                case .object(let id) where id.isTemporaryID:
                    object.values[slot] = .object(permanent(id))
                case .objects(let ids) where ids.contains(where: \.isTemporaryID):
                    // Distinct temporary IDs map to distinct keys, permanent IDs stay as they are.
                    object.values[slot] = .objects(OrderedSet(uncheckedUniqueElements: ids.map(permanent)))
                default: break
                }
            }
        }
        for object in inserted {
            let temporary = object.objectID
            registered.removeValue(forKey: temporary)
            let id = permanent(temporary)
            object.objectID = id
            registered[id] = Unmanaged.passUnretained(object)
        }
        @inline(__always)
        func commit(_ object: ManagedObject, version: Int64) {
            if !keys.isEmpty { remap(object) }
            object.snapshot = object.values
            object.version = version
            object.state.remove([.inserted, .updated])
        }
        for object in inserted {
            commit(object, version: 1)
            if announced {
                changeSet.inserted.append(object.objectID)
                changeSet.changes.inserted.insert(object.objectID)
            }
        }
        let vanished = Set(outcome.vanished.map(ObjectIdentifier.init))
        let resolved = outcome.resolved
        for update in updated {
            let object = update.object
            if !vanished.isEmpty && vanished.contains(ObjectIdentifier(object)) { continue }
            if !resolved.isEmpty, let resolution = resolved[ObjectIdentifier(object)] {
                object.values = resolution.values
                commit(object, version: resolution.version)
            } else {
                commit(object, version: object.version + 1)
            }
            guard announced else { continue }
            changeSet.updated.append((object.objectID, storedRow(object.values, object.savePlan(layout)), object.version))
            changeSet.changes.updated.insert(object.objectID)
            var names = Set<String>()
            update.changes.forEach { names.insert(object.entity.properties[$0].name) }
            changeSet.changes.changedKeys[object.objectID] = names
        }
        for object in outcome.vanished {
            object.state = [.deleted]
            unregister(object)
        }
        // Objects that only pointed at a new object (not saved themselves) still hold its temporary ID.
        if !keys.isEmpty {
            for object in updatedSet where object.isUpdated { remap(object) }
        }
        var deletedIDs: [ObjectID] = []
        for object in deleted {
            deletedIDs.append(object.objectID)
            if announced { changeSet.changes.deleted.insert(object.objectID) }
            unregister(object)
        }
        changeSet.deleted = deletedIDs
        insertedSet.removeAll()
        deletedSet.removeAll()
        undoStack?.removeAll()
        for object in updatedSet { object.state.remove(.updated) }
        updatedSet.removeAll()
        coordinator.rowCache.remove(deletedIDs)
        coordinator.rowCache.store(count: inserted.count + updated.count - vanished.count) { add in
            for object in inserted { add(object.objectID, storedRow(object.values, object.savePlan(layout)), 1) }
            for update in updated {
                let object = update.object
                if !vanished.isEmpty && vanished.contains(ObjectIdentifier(object)) { continue }
                add(object.objectID, storedRow(object.values, object.savePlan(layout)), object.version)
            }
        }
        for object in inserted { object.didSave() }
        for update in updated { update.object.didSave() }
        for object in deleted { object.didSave() }
        if observed { post(.didSave, changeSet.changes) }
        if announced { coordinator.broadcast(changeSet, from: self) }
    }

    /// A row as other contexts should see it: to-many slots left to load on demand,
    /// transient attributes at their defaults.
    @inline(__always)
    private func storedRow(_ values: ContiguousArray<SlotValue>, _ plan: EntitySavePlan) -> ContiguousArray<SlotValue> {
        guard !plan.unstoredSlots.isEmpty else { return values }
        var stored = values
        for (slot, value) in plan.unstoredValues { stored[slot] = value }
        return stored
    }
}

private extension ManagedObject {
    @inline(__always)
    func savePlan(_ layout: StoreLayout) -> EntitySavePlan { entity.savePlan(in: layout) }
}
