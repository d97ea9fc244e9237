import Dispatch
import Logging
import ObjectGraph
import PostgresNIO
import Synchronization

/// One ``PostgresDriver/listen(_:_:)``: a connection of its own that LISTENs on a channel and
/// hands each notification's payload to the handler on a serial queue (never on an event
/// loop, so the handler may call the driver). When the connection breaks it is made again
/// with a growing delay (0.1 s, doubling, at most 5 s), and once it listens again the handler
/// is called with nil: notifications may have been missed meanwhile.
final class PostgresNotificationListener: Sendable {
    private let channel: String
    private let handler: @Sendable (String?) -> Void
    private let queue: DispatchQueue
    private let group: MultiThreadedEventLoopGroup
    private let configuration: PostgresConnection.Configuration
    private let errors: PostgresErrorTranslator
    private let logger: Logger

    private struct State {
        var task: Task<Void, Never>?
        var connection: PostgresConnection?
        var stopped = false
    }
    private let state = Mutex(State())

    init(
        channel: String, handler: @escaping @Sendable (String?) -> Void, group: MultiThreadedEventLoopGroup,
        configuration: PostgresConnection.Configuration, errors: PostgresErrorTranslator, logger: Logger
    ) {
        self.channel = channel
        self.handler = handler
        self.queue = DispatchQueue(label: "ObjectGraph.postgres.listen.\(channel)")
        self.group = group
        self.configuration = configuration
        self.errors = errors
        self.logger = logger
    }

    /// Connects and LISTENs, returning once the server confirmed it; a first failure throws
    /// (`.connectionFailed`, or `.timeout` after `limit`) and nothing keeps trying.
    func start(bridge: PostgresBlockingBridge, limit: TimeAmount) throws(StoreError) {
        let ready = group.next().makePromise(of: Void.self)
        let task = Task { await self.run(ready: ready) }
        state.withLock { $0.task = task }
        do {
            try bridge.wait(for: ready.futureResult, atMost: limit)
        } catch {
            stop()
            if error is PostgresBlockingBridge.DeadlinePassed {
                throw StoreError(
                    .timeout, url: errors.address.url,
                    "PostgreSQL at \(errors.address.host):\(errors.address.port) did not confirm LISTEN on channel \"\(channel)\" in time. Check that the server is not overloaded, or give the driver a longer timeout."
                )
            }
            if let error = error as? ConnectFailed { throw errors.connectFailure(error.underlying) }
            throw errors.statementFailure(error, statement: "LISTEN \"\(channel)\"").error
        }
    }

    /// Stops listening and closes the connection; the handler is not called after this.
    func stop() {
        let (task, connection) = state.withLock { state in
            state.stopped = true
            defer { state.connection = nil }
            return (state.task, state.connection)
        }
        task?.cancel()
        connection?.closeInBackground()
    }

    /// The connection could not be made (as opposed to LISTEN failing on it).
    private struct ConnectFailed: Error {
        let underlying: any Error
    }

    private var isStopped: Bool { state.withLock { $0.stopped } }

    private func deliver(_ payload: String?) {
        queue.async {
            if !self.isStopped { self.handler(payload) }
        }
    }

    /// Keeps a connection listening until stopped; fulfils `ready` after the first LISTEN, or
    /// fails it with the first error.
    private func run(ready: EventLoopPromise<Void>) async {
        // A promise left open is a bug NIO reports; once completed, this does nothing.
        defer { ready.fail(CancellationError()) }
        var hasListened = false
        var failures = 0
        while !Task.isCancelled {
            do {
                let connection: PostgresConnection
                do {
                    connection = try await PostgresConnection.connect(
                        on: group.next(), configuration: configuration, id: 0, logger: logger
                    )
                } catch {
                    throw ConnectFailed(underlying: error)
                }
                let adopted = state.withLock { state in
                    if !state.stopped { state.connection = connection }
                    return !state.stopped
                }
                guard adopted else {
                    connection.closeInBackground()
                    return
                }
                try await connection.listen(on: channel) { notifications in
                    if hasListened {
                        logger.info("Listening on PostgreSQL channel \"\(channel)\" again")
                        deliver(nil)
                    } else {
                        ready.succeed(())
                    }
                    hasListened = true
                    failures = 0
                    for try await notification in notifications {
                        deliver(notification.payload)
                    }
                }
            } catch {
                if !hasListened {
                    ready.fail(error)
                    return
                }
                if isStopped { return }
                if failures == 0 {
                    let cause = (error as? ConnectFailed)?.underlying ?? error
                    logger.warning(
                        "The PostgreSQL connection listening on channel \"\(channel)\" broke; connecting again",
                        metadata: ["error": "\(PostgresErrorTranslator.summary(of: cause))"]
                    )
                }
            }
            let broken = state.withLock { state in
                defer { state.connection = nil }
                return state.connection
            }
            broken?.closeInBackground()
            failures += 1
            let delay = Duration.milliseconds(100) * (1 << min(failures - 1, 6))
            try? await Task.sleep(for: min(delay, .seconds(5)))
        }
    }
}
