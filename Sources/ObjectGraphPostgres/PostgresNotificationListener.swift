import Dispatch
import Logging
import ObjectGraph
import PostgresNIO

/// One ``PostgresDriver/listen(_:_:)``: a connection of its own that LISTENs on a channel and
/// hands each notification's payload to the handler on a serial queue (never on an event
/// loop, so the handler may call the driver). When the connection breaks it is made again
/// with a growing delay (0.1 s, doubling, at most 5 s), and once it listens again the handler
/// is called with nil: notifications may have been missed meanwhile.
///
/// Everything runs on the driver's event loops through futures, never on Swift's shared
/// task pool: `start` blocks its caller until LISTEN is confirmed, and a caller that is
/// itself one of the pool's threads (any `async` code) would otherwise wait for work that
/// needs a pool thread to run.
final class PostgresNotificationListener: Sendable {
    private let channel: String
    private let handler: @Sendable (String?) -> Void
    private let queue: DispatchQueue
    private let group: MultiThreadedEventLoopGroup
    private let configuration: PostgresConnection.Configuration
    private let errors: PostgresErrorTranslator
    private let logger: Logger

    private struct State {
        var connection: PostgresConnection?
        var stopped = false
        /// Consecutive failed attempts to listen again.
        var failures = 0
    }
    private let state = Locked(State())

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
        do {
            try bridge.wait(for: listenOnce(), atMost: limit)
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
        let connection = state.withLock { state in
            state.stopped = true
            defer { state.connection = nil }
            return state.connection
        }
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

    /// Connects, adds the notification handler and sends LISTEN; succeeds once the server
    /// confirmed it. The connection, once adopted, starts listening again when it closes.
    private func listenOnce() -> EventLoopFuture<Void> {
        let loop = group.next()
        return PostgresConnection.connect(on: loop, configuration: configuration, id: 0, logger: logger)
            .flatMapErrorThrowing { error in throw ConnectFailed(underlying: error) }
            .flatMap { connection -> EventLoopFuture<Void> in
                let adopted = self.state.withLock { state in
                    if !state.stopped { state.connection = connection }
                    return !state.stopped
                }
                guard adopted else {
                    connection.closeInBackground()
                    return loop.makeFailedFuture(CancellationError())
                }
                connection.addListener(channel: self.channel) { _, notification in
                    self.deliver(notification.payload)
                }
                let listen = PostgresQuery(unsafeSQL: "LISTEN \"\(self.channel)\"")
                return connection.query(listen, logger: self.logger).map { _ in
                    connection.closeFuture.whenComplete { _ in self.connectionClosed(connection) }
                }
            }
    }

    /// The listening connection closed: unless stopped, listen again after a delay.
    private func connectionClosed(_ connection: PostgresConnection) {
        let failures = state.withLock { state -> Int? in
            guard !state.stopped, state.connection === connection else { return nil }
            state.connection = nil
            return state.failures
        }
        guard let failures else { return }
        if failures == 0 {
            logger.warning("The PostgreSQL connection listening on channel \"\(channel)\" broke; connecting again")
        }
        retry(after: failures)
    }

    private func retry(after failures: Int) {
        let delay = TimeAmount.milliseconds(100 * Int64(1 << min(failures, 6)))
        group.next().scheduleTask(in: min(delay, .seconds(5))) {
            guard !self.isStopped else { return }
            self.listenOnce().whenComplete { result in
                switch result {
                case .success:
                    self.state.withLock { $0.failures = 0 }
                    self.logger.info("Listening on PostgreSQL channel \"\(self.channel)\" again")
                    self.deliver(nil)
                case .failure:
                    let failures = self.state.withLock { state -> Int? in
                        guard !state.stopped else { return nil }
                        // A connection adopted before LISTEN failed is dropped, not left half-open.
                        state.connection?.closeInBackground()
                        state.connection = nil
                        state.failures += 1
                        return state.failures
                    }
                    if let failures { self.retry(after: failures) }
                }
            }
        }
    }
}
