// Commits pushed to observers on any thread.
extension PersistentStoreCoordinator {
    /// Every commit through this coordinator — a save of any context, on any thread or task,
    /// a batch delete or update — as it happens, as an `AsyncSequence`. The stream ends when
    /// the task iterating it is cancelled (the observer is then removed).
    ///
    /// Commits are delivered in order; a consumer slower than the commits keeps them
    /// buffered (use `bufferingPolicy` with ``changes(bufferingPolicy:)`` to bound it).
    /// Nothing is observed, and no change set is built for it, while no stream is iterated.
    ///
    /// For example:
    ///
    /// ```swift
    /// let stream = container.persistentStoreCoordinator.changes   // hears commits from here on
    /// Task {
    ///     for await change in stream {
    ///         print(change.inserted, change.updated, change.deleted)
    ///     }
    /// }
    /// ```
    public var changes: AsyncStream<CommittedChanges> { changes(bufferingPolicy: .unbounded) }

    /// ``changes`` with a chosen buffering policy (`.bufferingNewest(1)` keeps only the
    /// latest commit for a consumer that only needs to know that something changed).
    public func changes(bufferingPolicy: AsyncStream<CommittedChanges>.Continuation.BufferingPolicy) -> AsyncStream<CommittedChanges> {
        let (stream, continuation) = AsyncStream.makeStream(of: CommittedChanges.self, bufferingPolicy: bufferingPolicy)
        let observation = addChangeObserver { continuation.yield($0) }
        continuation.onTermination = { _ in observation.cancel() }
        return stream
    }

    /// Calls `block` after every commit through this coordinator, on the committing thread,
    /// right after the transaction commits and before the saving context's `save()` returns.
    /// Keep it short, touch no context of another thread in it: pass the IDs on (to the
    /// main queue, to a task) and turn them into objects there.
    ///
    /// For example:
    ///
    /// ```swift
    /// let observation = coordinator.addChangeObserver { change in
    ///     DispatchQueue.main.async { print("committed:", change) }
    /// }
    /// // ...
    /// observation.cancel()                 // or let it go
    /// ```
    ///
    /// - Returns: the observation; it lasts while you hold it and until ``ChangeObservation/cancel()``.
    public func addChangeObserver(_ block: @escaping @Sendable (CommittedChanges) -> Void) -> ChangeObservation {
        ChangeObservation(observers: changeObservers, token: changeObservers.add(block))
    }

    /// How many commit observers (callbacks and streams being iterated) are registered now:
    /// for diagnostics, and for checking that cancelled observations were released.
    public var changeObserverCount: Int { changeObservers.observerCount }
}

extension PersistentContainer {
    /// Every commit to the container's store, as an `AsyncSequence` (see
    /// ``PersistentStoreCoordinator/changes``).
    ///
    /// ```swift
    /// for await change in container.changes { print(change.inserted, change.updated, change.deleted) }
    /// ```
    public var changes: AsyncStream<CommittedChanges> { persistentStoreCoordinator.changes }

    /// Calls `block` after every commit to the container's store (see
    /// ``PersistentStoreCoordinator/addChangeObserver(_:)``).
    public func addChangeObserver(_ block: @escaping @Sendable (CommittedChanges) -> Void) -> ChangeObservation {
        persistentStoreCoordinator.addChangeObserver(block)
    }
}
