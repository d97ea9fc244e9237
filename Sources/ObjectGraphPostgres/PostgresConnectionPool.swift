import Foundation
import Logging
import ObjectGraph
import PostgresNIO

/// The driver's connections: at most `capacity` open at once, each lent to one session at a
/// time, made when needed, and dropped when they broke (the next checkout makes a new one).
///
/// `@unchecked Sendable`: every mutable property is read and written only while `condition` is locked.
final class PostgresConnectionPool: @unchecked Sendable {
    private let capacity: Int
    private let group: MultiThreadedEventLoopGroup
    private let configuration: PostgresConnection.Configuration
    private let bridge: PostgresBlockingBridge
    private let errors: PostgresErrorTranslator
    private let logger: Logger
    /// How long a connection attempt or a wait for a free connection may take.
    private let timeout: Duration

    private let condition = NSCondition()
    /// Connections open and not lent.
    private var idle: [PostgresConnection] = []
    /// Every connection open, idle or lent, so `close()` reaches them all.
    private var open: [PostgresConnection.ID: PostgresConnection] = [:]
    /// Connections being made (they count against `capacity`).
    private var connecting = 0
    private var nextID = 1
    private var isClosed = false

    init(
        capacity: Int, group: MultiThreadedEventLoopGroup, configuration: PostgresConnection.Configuration,
        errors: PostgresErrorTranslator, timeout: Duration, logger: Logger
    ) {
        self.capacity = capacity
        self.group = group
        self.configuration = configuration
        self.bridge = PostgresBlockingBridge(group: group)
        self.errors = errors
        self.timeout = timeout
        self.logger = logger
    }

    /// A connection for one session: an idle one, a new one while fewer than `capacity` are
    /// open, or the next one given back (for at most the timeout).
    func checkOut() throws(StoreError) -> PostgresConnection {
        let deadline = Date.now.addingTimeInterval(timeout.timeInterval)
        condition.lock()
        while true {
            if isClosed {
                condition.unlock()
                throw errors.closed
            }
            if let connection = idle.popLast() {
                if connection.isClosed {
                    // It broke while idle (the server restarted, an administrator ended it).
                    open[connection.id] = nil
                    logger.debug("Dropping a PostgreSQL connection that closed while idle", metadata: ["connection": "\(connection.id)"])
                    continue
                }
                condition.unlock()
                return connection
            }
            if open.count + connecting < capacity {
                connecting += 1
                let id = nextID
                nextID += 1
                condition.unlock()
                return try connect(id: id)
            }
            guard condition.wait(until: deadline) else {
                condition.unlock()
                throw StoreError(
                    .timeout, url: errors.address.url,
                    "All \(capacity) connections to \(errors.address.displayName) stayed in use for \(timeout). Make transactions shorter, or give the driver a larger poolSize."
                )
            }
        }
    }

    /// Makes connection `id` (already counted in `connecting`).
    private func connect(id: PostgresConnection.ID) throws(StoreError) -> PostgresConnection {
        let future = PostgresConnection.connect(on: group.next(), configuration: configuration, id: id, logger: logger)
        let connection: PostgresConnection
        do {
            // The login has its own deadline: connectTimeout only covers the TCP connect.
            connection = try bridge.wait(for: future, atMost: timeout.timeAmount + .seconds(1))
        } catch {
            // A login that finishes after the deadline is closed at once.
            future.whenSuccess { $0.closeInBackground() }
            condition.withLock {
                connecting -= 1
                condition.signal()
            }
            throw errors.connectFailure(error)
        }
        let closedMeanwhile = condition.withLock {
            connecting -= 1
            if !isClosed { open[id] = connection }
            return isClosed
        }
        if closedMeanwhile {
            connection.closeInBackground()
            throw errors.closed
        }
        logger.debug("Connected to PostgreSQL", metadata: ["connection": "\(id)", "server": "\(errors.address.displayName)"])
        return connection
    }

    /// Gives back a connection lent by ``checkOut()``; one that broke (or that is not
    /// `reusable`) is closed and forgotten, making room for a new one.
    func checkIn(_ connection: PostgresConnection, reusable: Bool) {
        let keep = condition.withLock {
            let keep = reusable && !isClosed && !connection.isClosed
            if keep {
                idle.append(connection)
            } else {
                open[connection.id] = nil
            }
            condition.signal()
            return keep
        }
        if !keep {
            logger.debug("Dropping a PostgreSQL connection", metadata: ["connection": "\(connection.id)"])
            connection.closeInBackground()
        }
    }

    /// Closes every connection, idle or lent (a statement under way fails); later checkouts
    /// throw `.closed`.
    func close() {
        let connections = condition.withLock {
            isClosed = true
            let connections = Array(open.values)
            open = [:]
            idle = []
            condition.broadcast()
            return connections
        }
        for connection in connections { connection.closeInBackground() }
    }
}

extension PostgresConnection {
    /// Starts closing the connection without waiting (a statement under way on it fails).
    /// The connection is kept until it is closed: postgres-nio asserts that none is freed open.
    func closeInBackground() {
        let closing: EventLoopFuture<Void> = close()
        closing.whenComplete { _ in withExtendedLifetime(self) {} }
    }
}
