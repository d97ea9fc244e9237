import Foundation

// Throwing unsaved work away: back to the saved values, or an empty context.
extension ManagedObjectContext {
    /// Discards every unsaved change: inserted objects leave the context, changed and
    /// deleted ones return to their saved values. The ``undoStack`` is cleared too (as in
    /// Core Data): there is nothing left to undo, and undoing would re-apply discarded changes.
    public func rollback() {
        willAccess()
        undoStack?.removeAll()
        var changes = ContextChanges()
        for object in insertedSet {
            object.state.remove(.inserted)
            unregister(object)
            changes.deleted.insert(object.objectID)
        }
        for object in updatedSet.union(deletedSet) {
            if !object.snapshot.isEmpty { object.values = object.snapshot }
            object.state.remove([.updated, .deleted])
            changes.updated.insert(object.objectID)
        }
        insertedSet.removeAll()
        updatedSet.removeAll()
        deletedSet.removeAll()
        unannounced = ContextChanges()
        objectsDidChangePending = false
        post(.objectsDidChange, changes)
    }

    /// Forgets every registered object and unsaved change. Objects you still hold belong to
    /// no context afterwards; fetch them again.
    public func reset() {
        willAccess()
        detachAllObjects()
        retainedDestinations.removeAll()
        insertedSet.removeAll()
        updatedSet.removeAll()
        deletedSet.removeAll()
        unannounced = ContextChanges()
        objectsDidChangePending = false
    }
}
