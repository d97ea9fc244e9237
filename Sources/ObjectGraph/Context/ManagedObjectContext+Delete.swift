extension ManagedObjectContext {
    /// Marks `object` deleted and applies its relationships' delete rules at once: nullify
    /// removes it from the destinations' inverses, cascade deletes the destinations, deny is
    /// checked at save (which then fails validation), no-action does nothing. Saving removes
    /// the row; ``rollback()`` undoes it all.
    ///
    /// Deleting an object that was inserted and never saved simply forgets it.
    public func delete(_ object: ManagedObject) {
        willAccess()
        guard object.context === self, !object.isDeleted else { return }
        if object.isFault { fulfillFault(object) }
        guard object.context === self else { return }
        object.prepareForDeletion()
        undoStack?.record(.delete(object, wasInserted: object.isInserted))
        object.state.insert(.deleted)
        noteChange(deleted: object)
        if !object.isInserted { deletedSet.insert(object) }
        updatedSet.remove(object)

        for relationship in object.entity.relationships {
            let ids = object.relatedIDs(relationship, in: self)
            guard !ids.isEmpty else { continue }
            switch relationship.deleteRule {
            case .cascade:
                for id in ids {
                    let target = self.object(with: id)
                    if let inverse = relationship.inverseRelationship, !target.isDeleted {
                        target.removeInverse(inverse, pointingAt: object.objectID, in: self)
                    }
                    delete(target)
                }
            case .nullify:
                guard let inverse = relationship.inverseRelationship else { continue }
                for id in ids {
                    let target = self.object(with: id)
                    if target.context === self { target.removeInverse(inverse, pointingAt: object.objectID, in: self) }
                }
            case .deny, .noAction:
                continue
            }
        }

        if object.isInserted {
            insertedSet.remove(object)
            object.state.remove(.inserted)
            unregister(object)
        }
    }
}
