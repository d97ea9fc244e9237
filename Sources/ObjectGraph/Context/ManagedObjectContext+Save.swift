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
        for object in inserted + updatedSet + deleted { object.willSave() }
        // Each updated object's changed slots, computed once for validation, SQL and merge.
        var updated: [SaveTransaction.Update] = []
        for object in updatedSet where !object.isDeleted {
            let slots = object.changedSlots()
            if slots.contains(where: { !object.entity.properties[$0].isTransient }) { updated.append(.init(object: object, slots: slots)) }
        }
        try validate(inserted: inserted, updated: updated, deleted: deleted)

        let coordinator = persistentStoreCoordinator
        let transaction = SaveTransaction(connection: coordinator.store.writer, layout: coordinator.layout,
                                          store: coordinator.store.identity, policy: mergePolicy,
                                          inserted: inserted, updated: updated, deleted: deleted)
        let outcome = try coordinator.write { _ in try transaction.run() }
        apply(outcome, inserted: inserted, updated: updated, deleted: deleted)
    }

    // MARK: Validation

    private func validate(inserted: [ManagedObject], updated: [SaveTransaction.Update], deleted: [ManagedObject]) throws {
        var problems: [ValidationError.Problem] = []
        func check(_ object: ManagedObject, changed: [Int]?, _ hook: () throws -> Void) {
            for property in object.entity.requiredProperties where object.values[property.slot].isNull {
                // An update can only have made its changed slots nil.
                if let changed, !changed.contains(property.slot) { continue }
                problems.append(.init(object, key: property.name, "\(property.name) is required but is nil"))
            }
            record(object, hook)
        }
        func record(_ object: ManagedObject, _ hook: () throws -> Void) {
            do { try hook() } catch let problem as ValidationError.Problem {
                problems.append(problem)
            } catch let error as ValidationError {
                problems += error.problems
            } catch {
                problems.append(.init(object, "\(error)"))
            }
        }
        for object in inserted { check(object, changed: nil) { try object.validateForInsert() } }
        for update in updated { check(update.object, changed: update.slots) { try update.object.validateForUpdate() } }
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

    private func apply(_ outcome: SaveTransaction.Outcome, inserted: [ManagedObject], updated: [SaveTransaction.Update], deleted: [ManagedObject]) {
        let coordinator = persistentStoreCoordinator
        let store = coordinator.store.identity
        // The change set is built only when someone will read it.
        let observed = !(observers[.didSave]?.isEmpty ?? true)
        let announced = observed || coordinator.hasMergingContexts(besides: self)
        var changeSet = ChangeSet()
        var cacheEntries: [(ObjectID, RowCache.Entry)] = []
        cacheEntries.reserveCapacity(inserted.count + updated.count)
        let keys = outcome.keys

        func permanent(_ id: ObjectID) -> ObjectID {
            guard id.isTemporaryID, let key = keys[id] else { return id }
            return ObjectID(entity: id.entity, store: store, primaryKey: key)
        }
        /// Replaces temporary IDs of objects just inserted, in place.
        func remap(_ object: ManagedObject) {
            guard !keys.isEmpty else { return }
            for slot in object.values.indices {
                switch object.values[slot] {
                case .object(let id) where id.isTemporaryID:
                    object.values[slot] = .object(permanent(id))
                case .objects(let ids) where ids.contains(where: \.isTemporaryID):
                    object.values[slot] = .objects(OrderedSet(ids.map(permanent)))
                default: break
                }
            }
        }
        for object in inserted {
            registered.removeValue(forKey: object.objectID)
            object.objectID = permanent(object.objectID)
            registered[object.objectID] = Unmanaged.passUnretained(object)
        }
        func commit(_ object: ManagedObject, version: Int64) {
            remap(object)
            object.snapshot = object.values
            object.version = version
            object.state.remove([.inserted, .updated])
            cacheEntries.append((object.objectID, .init(values: storedRow(object.values, object.entity), version: version)))
        }
        for object in inserted {
            commit(object, version: 1)
            if announced {
                changeSet.inserted.append(object.objectID)
                changeSet.changes.inserted.insert(object.objectID)
            }
        }
        let vanished = Set(outcome.vanished.map(ObjectIdentifier.init))
        for update in updated where !vanished.contains(ObjectIdentifier(update.object)) {
            let object = update.object
            if let resolution = outcome.resolved[ObjectIdentifier(object)] {
                object.values = resolution.values
                commit(object, version: resolution.version)
            } else {
                commit(object, version: object.version + 1)
            }
            guard announced else { continue }
            changeSet.updated.append((object.objectID, cacheEntries[cacheEntries.count - 1].1.values, object.version))
            changeSet.changes.updated.insert(object.objectID)
            changeSet.changes.changedKeys[object.objectID] = Set(update.slots.map { object.entity.properties[$0].name })
        }
        for object in outcome.vanished {
            object.state = [.deleted]
            unregister(object)
        }
        // Objects that only pointed at a new object (not saved themselves) still hold its temporary ID.
        for object in updatedSet where object.isUpdated { remap(object) }
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
        coordinator.rowCache.store(cacheEntries)
        for object in inserted { object.didSave() }
        for update in updated { update.object.didSave() }
        for object in deleted { object.didSave() }
        if observed { post(.didSave, changeSet.changes) }
        if announced { coordinator.broadcast(changeSet, from: self) }
    }

    /// A row as other contexts should see it: to-many slots left to load on demand,
    /// transient attributes at their defaults.
    func storedRow(_ values: ContiguousArray<SlotValue>, _ entity: EntityDescription) -> ContiguousArray<SlotValue> {
        let mapping = persistentStoreCoordinator.mapping(for: entity)
        guard !mapping.unstoredSlots.isEmpty else { return values }
        var stored = values
        for slot in mapping.unstoredSlots { stored[slot] = mapping.readTemplate[slot] }
        return stored
    }
}
