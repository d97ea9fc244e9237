// What happens to an object whose context is gone: it keeps the values it had, for reading,
// but nothing it is told afterwards could ever be saved, so every change — and every read
// that would need the store — stops at once with a message instead of vanishing silently.
extension ManagedObject {
    /// Whether the object was registered in a context that has since been released or reset
    /// (not an object that was never inserted, nor one deleted and saved).
    var isDetached: Bool { state.contains(.detached) }

    /// Marks the object as left behind by its context (released or reset).
    final func detachFromContext() {
        context = nil
        state.insert(.detached)
    }

    /// Stops: `action` on an object whose context is gone can never reach the store.
    @inline(never)
    final func detachedUse(_ action: String) -> Never {
        fatalError("ManagedRecord: cannot \(action) of \(entity.name) \(objectID): the object belongs to no context any more — its context was reset, or released (a ManagedRecord perform block's context ends with the block; a context nobody holds is released). A change could never be saved, so nothing is done silently. Return object IDs instead of objects, and get the object in the context that will save it: context.object(with: id), or try object.inCurrentThreadContext() before the old context goes.")
    }

    /// Stops when a change to this object, which belongs to no context, could never be saved
    /// because its context is gone. Passes for a new object never inserted (its values are
    /// set before `context.insert(_:)`), and for an object deleted — by this context's save
    /// or by another's, merged — where the deletion is the outcome the change lost to.
    @inline(never)
    final func checkChangeWithoutContext(_ property: String) {
        if isDetached { detachedUse("change \(property)") }
    }
}

extension ManagedObject {
    /// Stops: a fault whose context is gone has no values to read and no store to read them from.
    @inline(never)
    final func detachedFault() -> Never {
        if isDetached { detachedUse("read a property (it is a fault whose values were never loaded)") }
        fatalError("ManagedRecord: \(entity.name) \(objectID) is a fault that belongs to no context, so its values cannot be loaded; get the object from a context with context.object(with: id).")
    }

    /// Stops: relationships are kept by a context, so an object needs one to set them.
    @inline(never)
    final func relationshipWithoutContext(_ relationship: RelationshipDescription) -> Never {
        checkChangeWithoutContext(relationship.name)
        preconditionFailure("ManagedRecord: insert \(entity.name) into a context before setting its relationship \(relationship.name)")
    }
}
