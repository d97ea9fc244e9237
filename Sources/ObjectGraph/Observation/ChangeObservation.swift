/// A running observation of commits, from ``PersistentStoreCoordinator/addChangeObserver(_:)``.
/// It lasts until ``cancel()`` or until the observation is released.
///
/// Thread-safe: cancel from any thread.
public final class ChangeObservation: Sendable {
    private let observers: ChangeObservers
    private let token: Int

    init(observers: ChangeObservers, token: Int) {
        self.observers = observers
        self.token = token
    }

    /// Stops the observation: the callback is not called again (a call already running on
    /// another thread finishes).
    public func cancel() {
        observers.remove(token)
    }

    deinit {
        observers.remove(token)
    }
}
