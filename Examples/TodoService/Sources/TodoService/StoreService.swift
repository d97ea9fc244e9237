import Logging
import ManagedRecord
import ServiceLifecycle
import Synchronization

/// A `PersistentContainer` run as a ServiceLifecycle `Service`, with request-scoped contexts.
///
/// Every request's store work goes through ``perform(_:)``: a new private-queue context
/// (`container.newBackgroundContext()`), used inside its `perform`, and dropped when the
/// block returns, so no two requests share a context and nothing outlives its request.
/// (The per-thread contexts of the ManagedRecord layer are wrong in async handlers: an
/// `await` may resume on another thread. See docs/threading.md and docs/servers.md.)
///
/// On graceful shutdown (SIGTERM or SIGINT through the `ServiceGroup`), ``run()`` stops
/// admitting new work (it gets ``StoreUnavailableError``, a 503), waits for every block under
/// way to finish — a save that has started is committed or rolled back, never cut off — and
/// then closes the store. Put it *before* the HTTP server in the group's services: a group
/// shuts its services down in reverse order, so the server first stops taking requests and
/// finishes those it has, and only then is the store closed.
///
/// The library does not offer this yet; issue 41 makes `PersistentContainer` itself a
/// `Service` with the same behaviour (finish in-flight saves, stop listeners, close), and this
/// wrapper then reduces to passing the container to the group.
public final class StoreService: Service, Sendable {
    /// The container whose store this service closes at shutdown.
    public let container: PersistentContainer
    private let logger: Logger
    private let state = Mutex(State())

    private struct State: ~Copyable {
        var admitting = true
        var inFlight = 0
        var closed = false
        var drainWaiters: [CheckedContinuation<Void, Never>] = []
    }

    /// Wraps `container`; `logger` hears when shutdown starts and when the store is closed.
    public init(container: PersistentContainer, logger: Logger) {
        self.container = container
        self.logger = logger
    }

    /// Runs until graceful shutdown (or cancellation), then drains the work under way and
    /// closes the store (``shutDown()``).
    public func run() async throws {
        // Returns when the group starts a graceful shutdown; throws if the task is cancelled.
        // Either way, the store is drained and closed.
        try? await gracefulShutdown()
        await shutDown()
    }

    /// Stops admitting new work, waits for the blocks under way to finish, and closes the
    /// store. For programs without a `ServiceGroup` (a Vapor lifecycle handler, a script);
    /// calling it again waits for the same close.
    public func shutDown() async {
        let inFlight = state.withLock { state -> Int in
            state.admitting = false
            return state.inFlight
        }
        logger.info("store: shutting down, waiting for the work under way", metadata: ["in-flight": "\(inFlight)"])
        await waitUntilDrained()
        container.persistentStoreCoordinator.close()
        state.withLock { $0.closed = true }
        logger.info("store: closed")
    }

    /// True once ``shutDown()`` (or ``run()``) has closed the store.
    public var isClosed: Bool { state.withLock { $0.closed } }

    /// Runs `body` on a new private-queue context of its own, inside the context's
    /// `perform`, and returns its result. Return values (`Sendable` structs, `ObjectID`s),
    /// never managed objects: the context ends with the block.
    ///
    /// - Throws: ``StoreUnavailableError`` once shutdown has begun, or what `body` throws.
    public func perform<T: Sendable>(_ body: @escaping @Sendable (ManagedObjectContext) throws -> T) async throws -> T {
        try admit()
        defer { release() }
        let context = container.newBackgroundContext()
        return try await context.perform { try body(context) }
    }

    private func admit() throws {
        try state.withLock { state in
            guard state.admitting else { throw StoreUnavailableError() }
            state.inFlight += 1
        }
    }

    private func release() {
        let waiters = state.withLock { state -> [CheckedContinuation<Void, Never>] in
            state.inFlight -= 1
            guard state.inFlight == 0, !state.admitting else { return [] }
            defer { state.drainWaiters = [] }
            return state.drainWaiters
        }
        for waiter in waiters { waiter.resume() }
    }

    private func waitUntilDrained() async {
        await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
            let drained = state.withLock { state -> Bool in
                if state.inFlight == 0 { return true }
                state.drainWaiters.append(continuation)
                return false
            }
            if drained { continuation.resume() }
        }
    }
}

/// The store is shutting down and takes no new work: the request may be retried against
/// another instance (HTTP 503).
public struct StoreUnavailableError: Error, CustomStringConvertible, Sendable {
    public var description: String { "the service is shutting down and takes no new requests; retry on another instance" }
}
