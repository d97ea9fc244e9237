/// Observers hear about a context's changes on the context's own thread or queue.
extension ManagedObjectContext {
    /// An observation; pass it to ``removeObserver(_:)`` to stop.
    public struct ObserverToken: Hashable, Sendable {
        let event: ContextEvent
        let value: Int
    }

    /// Calls `block` with the IDs of inserted, updated and deleted objects (and changed
    /// keys) whenever `event` happens: `.objectsDidChange` when in-memory changes are
    /// processed (before a save or fetch, on ``processPendingChanges()``, after a merge);
    /// `.didSave` after a save is committed. `block` runs on the context's thread.
    ///
    /// For example:
    ///
    /// ```swift
    /// let token = context.addObserver(for: .didSave) { changes in print(changes.inserted.count) }
    /// ```
    @discardableResult
    public func addObserver(for event: ContextEvent, _ block: @escaping (ContextChanges) -> Void) -> ObserverToken {
        addObserver(for: event, whileAlive: { true }, block)
    }

    /// Adds an observer that lasts while `isAlive` says so (an observing object holds it
    /// weakly), and until ``removeObserver(_:)``.
    @discardableResult
    func addObserver(for event: ContextEvent, whileAlive isAlive: @escaping () -> Bool,
                     _ block: @escaping (ContextChanges) -> Void) -> ObserverToken {
        willAccess()
        nextObserverToken += 1
        observers[event, default: []].append((nextObserverToken, isAlive, block))
        updateChangeTracking()
        return ObserverToken(event: event, value: nextObserverToken)
    }

    /// How many observers are registered (for every event): for diagnostics, and for checking
    /// that cancelled or released observations let go. Observations whose owner was released
    /// are dropped first.
    public var observerCount: Int {
        willAccess()
        pruneReleasedObservers()
        return observers.values.reduce(0) { $0 + $1.count }
    }

    private func pruneReleasedObservers() {
        for event in observers.keys { observers[event]?.removeAll { !$0.isAlive() } }
        updateChangeTracking()
    }

    /// Stops an observation.
    public func removeObserver(_ token: ObserverToken) {
        willAccess()
        observers[token.event]?.removeAll { $0.token == token.value }
        updateChangeTracking()
    }

    /// Announces the in-memory changes made since the last announcement to
    /// `.objectsDidChange` observers.
    public func processPendingChanges() {
        willAccess()
        undoStack?.closeGroup()
        guard objectsDidChangePending else { return }
        objectsDidChangePending = false
        let changes = unannounced
        unannounced = ContextChanges()
        post(.objectsDidChange, withKeys(changes))
    }

    func post(_ event: ContextEvent, _ changes: ContextChanges) {
        guard let list = observers[event], !changes.isEmpty else { return }
        var released = false
        for observer in list {
            if observer.isAlive() { observer.block(changes) } else { released = true }
        }
        if released { pruneReleasedObservers() }
    }

    /// Fills in the changed keys of updated objects.
    private func withKeys(_ changes: ContextChanges) -> ContextChanges {
        var changes = changes
        for id in changes.updated {
            guard let object = registered[id] else { continue }
            changes.changedKeys[id] = Set(object.changedSlots().map { object.entity.properties[$0].name })
        }
        return changes
    }

    /// Records changes object by object while someone wants them: `.objectsDidChange`
    /// observers, or a save running `willSave()` hooks.
    func updateChangeTracking() {
        announcesObjectChanges = !(observers[.objectsDidChange]?.isEmpty ?? true)
        observesObjectChanges = announcesObjectChanges || changedDuringHooks != nil
        updateMergePush()
    }

    func noteChange(inserted object: ManagedObject) {
        objectsDidChangePending = true
        guard observesObjectChanges else { return }
        changedDuringHooks?.append(object)
        if announcesObjectChanges { unannounced.inserted.insert(object.objectID) }
    }

    func noteChange(updated object: ManagedObject) {
        objectsDidChangePending = true
        guard observesObjectChanges else { return }
        changedDuringHooks?.append(object)
        if announcesObjectChanges, !object.isInserted { unannounced.updated.insert(object.objectID) }
    }

    func noteChange(deleted object: ManagedObject) {
        objectsDidChangePending = true
        guard observesObjectChanges else { return }
        changedDuringHooks?.append(object)
        guard announcesObjectChanges else { return }
        if unannounced.inserted.remove(object.objectID) == nil { unannounced.deleted.insert(object.objectID) }
        unannounced.updated.remove(object.objectID)
    }

    /// A change to an object already inserted or deleted: announced with the insert or
    /// delete, but a new change for the save's `willSave()` rounds.
    @inline(__always)
    func noteChange(insertedOrDeleted object: ManagedObject) {
        objectsDidChangePending = true
        if observesObjectChanges { changedDuringHooks?.append(object) }
    }
}
