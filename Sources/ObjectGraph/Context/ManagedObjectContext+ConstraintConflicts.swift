import Foundation

/// Uniqueness-constraint conflicts resolved by the context's merge policy, as Core Data's
/// `NSMergePolicy.resolve(constraintConflicts:)` does, before the save writes anything.
///
/// Objects with equal constrained values become one: the object of the row already stored
/// (fetched into this context if it was not registered), or, when only new objects of this
/// save conflict, the one inserted first. Each other new object is merged into it and leaves
/// the context; objects related to it are related to the survivor instead.
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
        var updated: [SaveTransaction.Update] = []
        for object in updatedSet where !object.isDeleted {
            let changes = ChangedSlots(of: object, plans(object.entity))
            updated.append(.init(object: object, changes: changes))
        }
        let inserted = Array(insertedSet)
        let deleted = Array(deletedSet)
        let conflicts = try coordinator.read { connection in
            try SaveTransaction(connection: connection, layout: layout, store: coordinator.store.identity, policy: policy,
                                inserted: inserted, updated: updated, deleted: deleted).uniquenessConflicts()
        }
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
            if let id = stored.first {
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
