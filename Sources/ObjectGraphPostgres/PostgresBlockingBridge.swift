import NIOCore
import NIOPosix

/// How a synchronous caller waits for postgres-nio: it blocks its own thread on an
/// `EventLoopFuture` (`wait()`, a condition variable inside NIO) while the driver's event loop
/// thread does the I/O and completes the future.
///
/// Why not a `Task` and a semaphore: a `Task` would run on Swift's cooperative pool (two
/// threads on a two-core machine), and blocking callers there can starve it; a future's
/// `wait()` needs no async context and no unchecked box for the result, so it compiles under
/// strict concurrency as it is (the value is `Sendable`). The one way it can deadlock is
/// waiting on the thread that must complete the future, so calls from the driver's own event
/// loop stop with a precondition failure instead.
struct PostgresBlockingBridge: Sendable {
    let group: MultiThreadedEventLoopGroup

    /// The deadline of a wait passed before the future completed.
    struct DeadlinePassed: Error {}

    /// Stops the process when called on one of the driver's event loop threads, where a
    /// blocking wait would never end.
    func checkCaller(_ function: String) {
        for loop in group.makeIterator() {
            precondition(
                !loop.inEventLoop,
                "PostgresDriver: \(function) was called on one of the driver's own event loop threads, where it would wait for itself forever. Call it from another thread (a context's queue, a DispatchQueue, a Thread); a notification handler already runs on one."
            )
        }
    }

    /// Blocks until `future` completes and returns its value, or throws its error; throws
    /// ``DeadlinePassed`` when `limit` passes first (`future` then completes unobserved).
    func wait<Value: Sendable>(for future: EventLoopFuture<Value>, atMost limit: TimeAmount) throws -> Value {
        checkCaller("a blocking call")
        let loop = future.eventLoop
        let promise = loop.makePromise(of: Value.self)
        let timer = loop.scheduleTask(in: limit) { promise.fail(DeadlinePassed()) }
        future.whenComplete { result in
            timer.cancel()
            // A promise completes once; if the timer already failed it, this is ignored.
            promise.completeWith(result)
        }
        return try promise.futureResult.wait()
    }
}
