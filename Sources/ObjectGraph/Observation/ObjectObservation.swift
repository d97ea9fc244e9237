/// Observes one managed object: every change to it and its deletion, as callbacks and as an
/// `AsyncSequence` (RHManagedObject's didUpdate / didDelete).
///
/// **Thread safety.** Like the object, an observation belongs to the object's context owner:
/// callbacks run there. Its ``changes`` stream may be iterated from any task. On a
/// main-queue context, another thread's commit reaches the observation as soon as the main
/// queue runs; on other contexts, at the owner's next access to the context.
///
/// The observation lasts while you hold it and until ``cancel()``; after a deletion it ends
/// by itself. It keeps the object alive (so the context keeps its values) until then.
///
/// For example:
///
/// ```swift
/// let observation = ObjectObservation(john)
/// observation.onChange { change in
///     switch change {
///     case .updated(let keys): print("changed:", keys.sorted())
///     case .deleted: print("gone")
///     }
/// }
/// ```
public final class ObjectObservation {
    /// The observed object's ID (permanent once the object is saved).
    public var objectID: ObjectID { object.objectID }

    private let object: ManagedObject
    private let context: ManagedObjectContext
    private var handlers: [(ObjectChange) -> Void] = []
    private let streams = ObserverContinuations<ObjectChange>()
    private var token: ManagedObjectContext.ObserverToken?

    /// Starts observing `object`, which must belong to a context.
    public init(_ object: ManagedObject) {
        guard let context = object.managedObjectContext else {
            preconditionFailure("ManagedRecord: \(object.objectID) belongs to no context, so nothing can change it; observe an object of a live context")
        }
        self.object = object
        self.context = context
        token = context.addObserver(for: .objectsDidChange, whileAlive: { [weak self] in self != nil }) { [weak self] changes in
            self?.contextDidChange(changes)
        }
    }

    deinit {
        streams.finish()
    }

    /// Every change, as an `AsyncSequence`; it ends after `.deleted`, on ``cancel()`` and when
    /// the observation is released.
    public var changes: AsyncStream<ObjectChange> { streams.makeStream() }

    /// Calls `block` with every change, on the context's thread.
    public func onChange(_ block: @escaping (ObjectChange) -> Void) {
        handlers.append(block)
    }

    /// Stops the observation: callbacks are dropped and the streams end.
    public func cancel() {
        if let token { context.removeObserver(token) }
        token = nil
        handlers.removeAll()
        streams.finish()
    }

    private func contextDidChange(_ changes: ContextChanges) {
        let id = object.objectID
        if changes.deleted.contains(id) {
            notify(.deleted)
            cancel()
        } else if changes.updated.contains(id) {
            notify(.updated(keys: changes.changedKeys[id] ?? []))
        }
    }

    private func notify(_ change: ObjectChange) {
        for handler in handlers { handler(change) }
        streams.yield(change)
    }
}

extension ManagedObject {
    /// Observes this object's changes and deletion (see ``ObjectObservation``).
    ///
    /// ```swift
    /// let observation = john.observe()
    /// for await change in observation.changes { print(change) }
    /// ```
    public func observe() -> ObjectObservation {
        ObjectObservation(self)
    }
}
