import Foundation
import OrderedCollections

/// Uniqueness-constraint conflicts resolved by the context's merge policy, as Core Data's
/// `NSMergePolicy.resolve(constraintConflicts:)` does, before the save writes anything.
///
/// Objects with equal constrained values become one. Against a row already stored, the
/// first new object takes the row's identity (its ID, version and snapshot; the row's values
/// and relationships merged into it as the policy says) and the save updates that row; when
/// the row's object is already registered in the context (or is of another sub-entity), that
/// object is the survivor instead. Among new objects of one save, the one inserted first
/// survives. Each other new object is merged into the survivor and leaves the context;
/// objects related to it are related to the survivor instead.
///
/// | policy | attributes of the survivor | to-one relationships | to-many relationships |
/// |---|---|---|---|
/// | `.mergeByPropertyObjectTrump` | the new object's | the new object's when it has one | both sets |
/// | `.mergeByPropertyStoreTrump` | kept | kept; the new object's fills a nil | both sets |
/// | `.overwrite` | the new object's | the new object's | the new object's |
/// | `.rollback` | kept | kept | kept (the new object's links are dropped) |
/// | `.error` | — the save throws ``ConstraintConflictError`` naming the objects | | |
///
/// An existing object whose constrained values were changed onto another's is not merged:
/// the save refuses it with a ``ConstraintConflictError``.
extension ManagedObjectContext {
    /// Resolves what `mergePolicy` resolves; returns whether it changed anything.
    func resolveConstraintConflicts() throws -> Bool {
        let policy = mergePolicy
        let coordinator = persistentStoreCoordinator
        let layout = coordinator.layout
        let constrained = layout.model.entitiesWithUniquenessConstraints
        guard policy != .error, !constrained.isEmpty,
              insertedSet.contains(where: { object in !object.isDeleted && constrained.contains { object.entity.isKind(of: $0) } })
        else { return false }
        var plans = SavePlans(layout)
        var updated: [SaveRequest.Update] = []
        for object in updatedSet where !object.isDeleted {
            let changes = ChangedSlots(of: object, plans(object.entity))
            updated.append(.init(object: object, changes: changes))
        }
        let inserted = Array(insertedSet)
        let deleted = Array(deletedSet)
        let conflicts = try store.uniquenessConflicts(SaveRequest(policy: policy, inserted: inserted,
                                                                               updated: updated, deleted: deleted))
        var groups: [Set<ObjectID>] = []
        for conflict in conflicts {
            let members = Set([conflict.objectID] + conflict.conflictingObjectIDs)
            if !groups.contains(members) { groups.append(members) }
        }
        var changed = false
        for group in groups {
            let stored = group.filter { !$0.isTemporaryID }
            // Only new objects are merged; a changed existing object is refused by the save.
            guard stored.count <= 1, !stored.contains(where: { registeredObject(for: $0)?.isUpdated == true }) else { continue }
            var newcomers = group.filter(\.isTemporaryID).compactMap { registeredObject(for: $0) }.filter { !$0.isDeleted }
            newcomers.sort { $0.objectID.key > $1.objectID.key }   // temporary keys count down: first inserted first
            let survivor: ManagedObject
            if let id = stored.first, registeredObject(for: id) == nil, let first = newcomers.first, first.entity === id.entity {
                // The first new object takes the stored row's identity, as in Core Data.
                newcomers.removeFirst()
                try takeIdentity(of: id, into: first, policy)
                survivor = first
                changed = true
            } else if let id = stored.first {
                survivor = try existingObject(with: id)
            } else {
                guard !newcomers.isEmpty else { continue }
                survivor = newcomers.removeFirst()
            }
            for newcomer in newcomers {
                try merge(newcomer, into: survivor, policy)
                delete(newcomer)
                changed = true
            }
        }
        return changed
    }

    /// Makes `newcomer` the object of the stored row `id`: the row's values and
    /// relationships are merged into it as `policy` says (the row's object stands in for the
    /// old side, so each policy is applied the other way round), then it takes the row's ID,
    /// snapshot and version and is saved as an update of that row. Objects that pointed at
    /// the newcomer's temporary ID point at the row's ID.
    private func takeIdentity(of id: ObjectID, into newcomer: ManagedObject, _ policy: MergePolicy) throws {
        let stored = try existingObject(with: id)
        let reversed: MergePolicy
        switch policy {
        case .mergeByPropertyObjectTrump: reversed = .mergeByPropertyStoreTrump
        case .mergeByPropertyStoreTrump: reversed = .mergeByPropertyObjectTrump
        case .overwrite: reversed = .rollback
        case .rollback, .error: reversed = .overwrite
        }
        try merge(stored, into: newcomer, reversed)
        // The stored row's object leaves the context unsaved; the newcomer is that row now.
        updatedSet.remove(stored)
        stored.state.remove(.updated)
        unregister(stored)
        let temporary = newcomer.objectID
        registered.remove(temporary, ifItIs: newcomer)
        newcomer.objectID = id
        registered.set(newcomer, for: id)
        newcomer.snapshot = stored.snapshot
        newcomer.version = stored.version
        newcomer.state.remove(.inserted)
        newcomer.state.insert(.updated)
        insertedSet.remove(newcomer)
        updatedSet.insert(newcomer)
        for object in insertedSet.union(updatedSet) {
            for relationship in object.entity.relationships {
                switch object.values[relationship.slot] {
                case .object(let target) where target == temporary:
                    object.values[relationship.slot] = .object(id)
                case .objects(let targets) where targets.contains(temporary):
                    object.values[relationship.slot] = .objects(OrderedSet(targets.map { $0 == temporary ? id : $0 }))
                default: break
                }
            }
        }
    }

    /// Moves `newcomer`'s values and relationships into `survivor` as `policy` says, and
    /// leaves `newcomer` related to nothing.
    private func merge(_ newcomer: ManagedObject, into survivor: ManagedObject, _ policy: MergePolicy) throws {
        let takesValues = policy == .mergeByPropertyObjectTrump || policy == .overwrite
        for attribute in newcomer.entity.attributes where !attribute.isTransient && takesValues {
            guard let own = survivor.entity.propertiesByName[attribute.name] as? AttributeDescription,
                  own.attributeType == attribute.attributeType,
                  survivor.values[own.slot] != newcomer.values[attribute.slot] else { continue }
            survivor.setPrimitiveValue(newcomer.values[attribute.slot], slot: own.slot)
        }
        for relationship in newcomer.entity.relationships {
            let value = try newcomer.checkedValue(forKey: relationship.name)
            try newcomer.setValue(relationship.isToMany ? [ManagedObject]() : nil, forKey: relationship.name)
            guard policy != .rollback,
                  let own = survivor.entity.propertiesByName[relationship.name] as? RelationshipDescription,
                  own.isToMany == relationship.isToMany, own.destinationEntity === relationship.destinationEntity else { continue }
            if relationship.isToMany {
                let incoming = (value as? Set<ManagedObject>).map(Array.init) ?? (value as? [ManagedObject]) ?? []
                if policy == .overwrite {
                    try survivor.setValue(incoming, forKey: own.name)
                } else if !incoming.isEmpty {
                    let existing = try survivor.checkedValue(forKey: own.name)
                    var current = (existing as? Set<ManagedObject>).map(Array.init) ?? (existing as? [ManagedObject]) ?? []
                    current += incoming.filter { object in !current.contains { $0 === object } }
                    try survivor.setValue(current, forKey: own.name)
                }
            } else {
                let current = try survivor.checkedValue(forKey: own.name)
                switch policy {
                case .overwrite: try survivor.setValue(value, forKey: own.name)
                case .mergeByPropertyObjectTrump where value != nil: try survivor.setValue(value, forKey: own.name)
                case .mergeByPropertyStoreTrump where current == nil && value != nil: try survivor.setValue(value, forKey: own.name)
                default: break
                }
            }
        }
    }
}
