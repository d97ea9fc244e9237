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
        // Names of changed keys only when someone will read them.
        let wantsKeys = !(observers[.didSave]?.isEmpty ?? true) || persistentStoreCoordinator.hasMergingContexts(besides: self)
        var changeSet = ChangeSet()
        var cacheEntries: [(ObjectID, RowCache.Entry)] = []
        let remap = outcome.permanentIDs

        for object in inserted {
            let permanent = remap[object.objectID]!
            registered.removeValue(forKey: object.objectID)
            object.objectID = permanent
            registered[permanent] = Unmanaged.passUnretained(object)
        }
        func remapped(_ values: ContiguousArray<SlotValue>) -> ContiguousArray<SlotValue> {
            guard !remap.isEmpty else { return values }
            var values = values
            for slot in values.indices {
                switch values[slot] {
                case .object(let id) where id.isTemporaryID: values[slot] = .object(remap[id] ?? id)
                case .objects(let ids) where ids.contains(where: \.isTemporaryID):
                    values[slot] = .objects(OrderedSet(ids.map { remap[$0] ?? $0 }))
                default: break
                }
            }
            return values
        }
        func commit(_ object: ManagedObject, isInsert: Bool, slots: [Int]) {
            let key = ObjectIdentifier(object)
            let values = remapped(outcome.resolvedValues[key] ?? object.values)
            object.values = values
            object.snapshot = values
            object.version = outcome.versions[key] ?? object.version
            object.state.remove([.inserted, .updated])
            let stored = storedRow(values, object.entity)
            cacheEntries.append((object.objectID, .init(values: stored, version: object.version)))
            if isInsert {
                changeSet.inserted.append(object.objectID)
                changeSet.changes.inserted.insert(object.objectID)
            } else {
                changeSet.updated.append((object.objectID, stored, object.version))
                changeSet.changes.updated.insert(object.objectID)
                if wantsKeys { changeSet.changes.changedKeys[object.objectID] = Set(slots.map { object.entity.properties[$0].name }) }
            }
        }
        let vanished = Set(outcome.vanished.map(ObjectIdentifier.init))
        for object in inserted { commit(object, isInsert: true, slots: []) }
        for update in updated where !vanished.contains(ObjectIdentifier(update.object)) { commit(update.object, isInsert: false, slots: update.slots) }
        for object in outcome.vanished {
            object.state = [.deleted]
            unregister(object)
        }
        // Objects that only pointed at a new object (not saved themselves) still hold its temporary ID.
        for object in updatedSet where object.isUpdated { object.values = remapped(object.values) }
        for object in deleted {
            changeSet.deleted.append(object.objectID)
            changeSet.changes.deleted.insert(object.objectID)
            unregister(object)
        }
        insertedSet.removeAll()
        deletedSet.removeAll()
        undoStack?.removeAll()
        for object in updatedSet { object.state.remove(.updated) }
        updatedSet.removeAll()
        let coordinator = persistentStoreCoordinator
        coordinator.rowCache.remove(changeSet.deleted)
        coordinator.rowCache.store(cacheEntries)
        for object in inserted { object.didSave() }
        for update in updated { update.object.didSave() }
        for object in deleted { object.didSave() }
        post(.didSave, changeSet.changes)
        coordinator.broadcast(changeSet, from: self)
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
