import Synchronization

/// What a context may learn of an object that belongs to another context, possibly on
/// another thread, without touching that context's state: see
/// ``ManagedObjectContext/sharedState(of:)``.
public enum SharedObjectState: Sendable, Equatable {
    /// The object is registered in the asking context: use it as it is.
    case registered
    /// Saved, and unchanged since in its own context: its permanent ID.
    case saved(ObjectID)
    /// Saved, with changes (or a deletion) its context has not saved yet: its permanent ID.
    case unsavedChanges(ObjectID)
    /// Never saved: its ID is temporary, and means nothing outside its context.
    case neverSaved
}

// An object's context publishes two words that any thread may read: the address of the
// context (`contextReference`) and `sharedKey`. Everything else about the object — its
// values, snapshot, state and even its `objectID`, which a save rewrites — belongs to the
// context's thread and is never read here.
extension ManagedObject {
    /// Publishes what `state` and `objectID` now say, for other threads. Called by `state`'s
    /// observer: every change of saved/unsaved status goes through `state` (a save sets the
    /// permanent `objectID` before it clears `.inserted`).
    @inline(__always)
    final func publishSharedKey() {
        let key = objectID.key
        let shared: Int64 = key <= 0 ? 0 : (state.isDisjoint(with: [.inserted, .updated, .deleted]) ? key : -key)
        sharedKey.store(shared, ordering: .relaxed)
    }
}

extension ManagedObjectContext {
    /// Where `object` stands as seen from this context, read without touching the state of
    /// the context that owns it (which may be in use on another thread right now): whether
    /// it is registered here, and otherwise whether its own context has it saved and
    /// unchanged (so ``object(with:)`` gives the same object here, with its saved values),
    /// changed but unsaved, or never saved.
    ///
    /// Thread-safe with respect to `object`: call it on this context's thread with an
    /// object of any context of the same coordinator. The answer is a moment's: the other
    /// thread may change or save the object right after.
    ///
    /// ```swift
    /// if case .saved(let id) = context.sharedState(of: objectFromAnotherThread) {
    ///     let mine = context.object(with: id)
    /// }
    /// ```
    public func sharedState(of object: ManagedObject) -> SharedObjectState {
        if object.contextReference?.toOpaque() == Unmanaged.passUnretained(self).toOpaque() { return .registered }
        precondition(managedObjectModel.entitiesByName[object.entity.name] === object.entity,
                     "ManagedRecord: \(object.entity.name) belongs to another model than context '\(name)'s")
        let key = object.sharedKey.load(ordering: .relaxed)
        guard key != 0 else { return .neverSaved }
        let id = ObjectID(entity: object.entity, store: persistentStoreCoordinator.store.identity, primaryKey: Swift.abs(key))
        return key > 0 ? .saved(id) : .unsavedChanges(id)
    }
}
