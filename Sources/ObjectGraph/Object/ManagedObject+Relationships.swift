import Foundation
import OrderedCollections

// Relationship access and inverse maintenance. Slots hold object IDs; the context turns them
// into its objects (faults where not registered).
extension ManagedObject {
    @usableFromInline
    final func relatedObjects(ordinal: Int32) -> [ManagedObject] {
        relatedObjects(entity.relationshipAtSlot[entity.slotByOrdinal[Int(ordinal)]]!)
    }

    /// The destination of a to-one relationship: no array, one identity-map lookup.
    @usableFromInline
    final func relatedObject(ordinal: Int32) -> ManagedObject? {
        guard let reference = contextReference else {
            if isDetached { detachedUse("read a relationship") }
            return RelationshipProbe.answer(self, slot: entity.slotByOrdinal[Int(ordinal)])?.first
        }
        let slot = entity.slotByOrdinal[Int(ordinal)]
        guard case .object(let id) = primitiveValue(slot: slot) else { return nil }
        return reference._withUnsafeGuaranteedRef { $0.destination(with: id) }
    }

    /// Sets a to-one relationship and its inverse: no sets, no arrays.
    @usableFromInline
    final func setRelatedObject(_ object: ManagedObject?, ordinal: Int32) {
        let relationship = entity.relationshipAtSlot[entity.slotByOrdinal[Int(ordinal)]]!
        guard let context else { relationshipWithoutContext(relationship) }
        if let object, object.context !== context {
            preconditionFailure("ManagedRecord: \(entity.name).\(relationship.name) cannot point at \(object.objectID): it belongs to \(object.context == nil ? "no context" : "another context"); use context.object(with: id) to get this context's copy")
        }
        let old = primitiveValue(slot: relationship.slot).objectID
        let new = object?.objectID
        guard old != new else { return }
        setPrimitiveValue(new.map { .object($0) } ?? .null, slot: relationship.slot)
        guard let inverse = relationship.inverseRelationship else { return }
        if let old, let previous = context.inverseTarget(old) { previous.removeInverse(inverse, pointingAt: objectID, in: context) }
        object?.addInverse(inverse, pointingAt: self, in: context)
    }

    @usableFromInline
    final func setRelatedObjects(_ objects: [ManagedObject], ordinal: Int32) {
        setRelatedObjects(objects, entity.relationshipAtSlot[entity.slotByOrdinal[Int(ordinal)]]!)
    }

    /// The destination objects of `relationship`, loading a to-many with one query when needed.
    final func relatedObjects(_ relationship: RelationshipDescription) -> [ManagedObject] {
        guard let context else {
            if isDetached { detachedUse("read \(relationship.name)") }
            return RelationshipProbe.answer(self, slot: relationship.slot) ?? []
        }
        if case .unloaded = primitiveValue(slot: relationship.slot) {
            // The loading query registered the members: hand them over before they can go.
            return context.loadToMany(self, relationship)
        }
        switch relatedIDs(relationship, in: context) {
        case let ids where ids.isEmpty: return []
        case let ids where ids.count == 1: return [context.destination(with: ids[0])]
        case let ids: return context.objects(with: ids)
        }
    }

    /// The destination IDs of `relationship`, loaded if needed.
    final func relatedIDs(_ relationship: RelationshipDescription, in context: ManagedObjectContext) -> OrderedSet<ObjectID> {
        switch primitiveValue(slot: relationship.slot) {
        case .object(let id): return [id]
        case .objects(let ids): return ids
        case .unloaded:
            context.loadToMany(self, relationship)
            return values[relationship.slot].objectIDs ?? []
        default: return []
        }
    }

    /// Replaces the destinations of `relationship` and updates every inverse in memory.
    final func setRelatedObjects(_ objects: [ManagedObject], _ relationship: RelationshipDescription) {
        guard let context else { relationshipWithoutContext(relationship) }
        for object in objects where object.context !== context {
            preconditionFailure("ManagedRecord: \(entity.name).\(relationship.name) cannot point at \(object.objectID): it belongs to \(object.context.map { _ in "another context" } ?? "no context"); use context.object(with: id) to get this context's copy")
        }
        let old = relatedIDs(relationship, in: context)
        let new = OrderedSet(objects.lazy.map(\.objectID))
        guard old != new else { return }
        // An unordered to-many given the same members in another order (a `Set` rebuilt by an
        // insert of a member it has) is not a change: nothing to mark, save or undo.
        if !relationship.isOrdered && old.count == new.count && new.allSatisfy(old.contains) { return }
        writeRelationship(relationship, new)
        guard let inverse = relationship.inverseRelationship else { return }
        for id in old where !new.contains(id) {
            context.inverseTarget(id)?.removeInverse(inverse, pointingAt: objectID, in: context)
        }
        for object in objects where !old.contains(object.objectID) {
            object.addInverse(inverse, pointingAt: self, in: context)
        }
    }

    /// Stores `ids` in the relationship's slot without touching inverses.
    final func writeRelationship(_ relationship: RelationshipDescription, _ ids: OrderedSet<ObjectID>) {
        let value: SlotValue = relationship.isToMany ? toManyValue(relationship, ids) : (ids.first.map { .object($0) } ?? .null)
        setPrimitiveValue(value, slot: relationship.slot)
    }

    /// The slot value for the to-many `relationship` holding `ids`: the snapshot's own value
    /// when an unordered relationship is back to its saved members (a member removed and
    /// added again, in whatever order), so the slot equals its snapshot and the save sees no
    /// change to write.
    final func toManyValue(_ relationship: RelationshipDescription, _ ids: OrderedSet<ObjectID>) -> SlotValue {
        if !relationship.isOrdered, !snapshot.isEmpty, case .objects(let saved) = snapshot[relationship.slot],
           saved.count == ids.count, ids.allSatisfy(saved.contains) {
            return snapshot[relationship.slot]
        }
        return .objects(ids)
    }

    /// Removes `id` from this object's side `relationship` (the inverse of a change elsewhere).
    final func removeInverse(_ relationship: RelationshipDescription, pointingAt id: ObjectID, in context: ManagedObjectContext) {
        guard relationship.isToMany else {
            if relatedIDs(relationship, in: context).first == id { writeRelationship(relationship, []) }
            return
        }
        var removedAt = 0
        mutateToMany(relationship, in: context, { ids in
            guard let index = ids.firstIndex(of: id) else { return false }
            if relationship.isOrdered {
                ids.remove(at: index)
            } else {
                // Order does not matter: O(1) instead of shifting every later member.
                ids.swapAt(index, ids.count - 1)
                ids.removeLast()
            }
            removedAt = index
            return true
        }, undo: { .toManyRemove(self, slot: relationship.slot, id: id, index: removedAt) })
    }

    /// Adds `object` to this object's side `relationship`, detaching this object from a
    /// previous to-one owner first.
    final func addInverse(_ relationship: RelationshipDescription, pointingAt object: ManagedObject, in context: ManagedObjectContext) {
        guard relationship.isToMany else {
            let current = relatedIDs(relationship, in: context)
            if current.first == object.objectID { return }
            if let previous = current.first, let back = relationship.inverseRelationship {
                context.inverseTarget(previous)?.removeInverse(back, pointingAt: objectID, in: context)
            }
            writeRelationship(relationship, [object.objectID])
            return
        }
        mutateToMany(relationship, in: context, { ids in ids.append(object.objectID).inserted },
                     undo: { .toManyInsert(self, slot: relationship.slot, id: object.objectID) })
    }

    /// Changes a to-many relationship in place (loading it first): the set is taken out of the
    /// slot while `change` runs, so it is not copied unless the snapshot shares it (once per
    /// save). `change` returns whether it changed anything; `undo` makes the undo entry, and is
    /// called only when an undo stack records it.
    final func mutateToMany(_ relationship: RelationshipDescription, in context: ManagedObjectContext,
                            _ change: (inout OrderedSet<ObjectID>) -> Bool, undo: () -> UndoStack.Entry) {
        let slot = relationship.slot
        prepareForAccess()
        if case .unloaded = values[slot] { context.loadToMany(self, relationship) }
        guard case .objects(var ids) = values[slot] else { return }
        values[slot] = .null
        let changed = change(&ids)
        values[slot] = changed ? toManyValue(relationship, ids) : .objects(ids)
        guard changed else { return }
        if let stack = context.undoStack, !state.contains(.insertedInOpenUndoGroup) { stack.record(undo()) }
        markChanged(in: context)
    }
}
