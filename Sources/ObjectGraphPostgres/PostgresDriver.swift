import Foundation
import Logging
import ObjectGraph
import PostgresNIO
import Synchronization

/// A ``DatabaseServerDriver`` for PostgreSQL on postgres-nio: a pool of connections to one
/// database, used from synchronous code on any number of threads.
///
/// Every call blocks its thread until the server answers, while one event loop thread owned
/// by the driver does the network I/O; calling the driver on that thread stops the process
/// with a precondition failure (it would wait for itself). A statement running longer than
/// the timeout is cancelled by the server (`statement_timeout`) and throws `.timeout`. A
/// connection that broke is dropped and a new one made on the next call.
///
/// ```swift
/// let driver = try PostgresDriver(url: URL(string: "postgres://app@db.local/inventory?sslrootcert=/etc/ssl/db-ca.pem")!)
/// let count = try driver.withSession { session in
///     try session.rows("SELECT count(*) FROM ZITEM")[0][0]
/// }
/// ```
///
/// The login's password never appears in the driver's errors, logs, `description` or mirror
/// (docs/security.md).
public final class PostgresDriver: DatabaseServerDriver, CustomStringConvertible, CustomReflectable {
    private let address: PostgresServerAddress
    private let timeout: Duration
    private let logger: Logger
    private let group: MultiThreadedEventLoopGroup
    private let bridge: PostgresBlockingBridge
    private let errors: PostgresErrorTranslator
    private let configuration: PostgresConnection.Configuration
    private let pool: PostgresConnectionPool
    private let listeners = Locked<[PostgresNotificationListener]>([])
    private let closed = Atomic<Bool>(false)

    /// Opens a pool of connections to the database of `url` and connects once to check that
    /// the server can be reached and accepts the login.
    ///
    /// - Parameters:
    ///   - url: `postgres://user[:password]@host[:port]/database` (or `postgresql://`); the port
    ///     is 5432 when left out. Its options, with libpq's meaning (docs/security.md):
    ///     `sslmode=disable|prefer|require|verify-ca|verify-full` (default `verify-full` when
    ///     `sslrootcert` is given, else `prefer`: TLS when the server offers it, unverified),
    ///     `sslrootcert=PATH` (a PEM file of the authorities that may sign the server's
    ///     certificate) or `sslrootcert=system`, and `sslcert=PATH` with `sslkey=PATH` (a client
    ///     certificate and its unencrypted key, mode 0600). The files are read once, here.
    ///     The password may be in the user info or the option `password` (once); no text
    ///     the driver makes shows it (``DatabaseServerLocation/redacted(_:)``).
    ///     Without a password in the URL, `PGPASSWORD` is used, else the password file's
    ///     matching line (`PGPASSFILE`, else `~/.pgpass`; skipped when others may read it).
    ///   - timeout: How long a connection attempt, a statement, or a wait for a free connection
    ///     may take. The server cancels a statement running longer.
    ///   - poolSize: How many connections may be open at once (sessions beyond that wait).
    ///   - logger: Where the driver logs (label `ObjectGraph.postgres`); it logs connection
    ///     losses and a password file others may read as warnings, everything else at debug
    ///     level.
    ///   - environment: Where `PGPASSWORD`, `PGPASSFILE` and `HOME` are read (default: this
    ///     process's environment).
    /// - Throws: ``StoreError`` `.cannotOpen` for a malformed URL or arguments, or a
    ///   certificate or key file that cannot be used; `.connectionFailed` when the server
    ///   cannot be reached, refuses the login, or fails a TLS check (then a
    ///   ``PostgresTLSError`` saying which is `underlying`); `.timeout`.
    public init(
        url: URL, timeout: Duration = .seconds(30), poolSize: Int = 8,
        logger: Logger = Logger(label: "ObjectGraph.postgres"),
        environment: [String: String] = ProcessInfo.processInfo.environment
    ) throws {
        let address = try PostgresServerAddress(url: url, environment: environment)
        guard timeout > .zero else {
            throw StoreError(.cannotOpen, url: address.url, "The timeout is \(timeout); give the PostgreSQL driver a timeout above zero.")
        }
        guard poolSize >= 1 else {
            throw StoreError(.cannotOpen, url: address.url, "The pool size is \(poolSize); give the PostgreSQL driver a poolSize of 1 or more.")
        }
        let configuration = try address.configuration(timeout: timeout)
        if let ignored = address.ignoredPasswordFile {
            logger.warning(
                "Skipping the PostgreSQL password file: other users may read it. Make it private: chmod 600 FILE",
                metadata: ["file": "\(ignored)"]
            )
        }
        self.address = address
        self.timeout = timeout
        self.logger = logger
        // One thread: it only moves bytes and splits messages; rows are decoded on the callers'
        // threads.
        self.group = MultiThreadedEventLoopGroup(numberOfThreads: 1)
        self.bridge = PostgresBlockingBridge(group: group)
        self.errors = PostgresErrorTranslator(address: address, timeout: timeout, group: group)
        self.configuration = configuration
        self.pool = PostgresConnectionPool(
            capacity: poolSize, group: group, configuration: configuration, errors: errors, timeout: timeout, logger: logger
        )
        bridge.checkCaller("init(url:timeout:poolSize:logger:environment:)")
        // On failure deinit runs (every property is set) and shuts the event loop down.
        let connection = try pool.checkOut()
        pool.checkIn(connection, reusable: true)
    }

    /// `PostgresDriver(user@host:port/database, sslmode=MODE)`, without the password.
    public var description: String {
        "PostgresDriver(\(address.displayName), sslmode=\(address.tls.mode.rawValue))"
    }

    /// The server and TLS mode only: the connection configuration (which holds the password)
    /// is not shown to `dump` or other mirrors.
    public var customMirror: Mirror {
        Mirror(self, children: ["server": address.displayName, "sslmode": address.tls.mode.rawValue], displayStyle: .class)
    }

    deinit {
        close()
        // Not in close(): a call racing with close() may still schedule work on the loop.
        group.shutdownGracefully { _ in }
    }

    /// The longest a caller waits for one answer: the server's statement_timeout, and a
    /// second for its error to arrive.
    private var answerLimit: TimeAmount { timeout.timeAmount + .seconds(1) }

    /// Runs `body` on one connection of the pool, taken for the whole call. When `body` throws,
    /// a transaction it left open is rolled back before the connection goes back to the pool.
    public func withSession<T>(_ body: (any DatabaseServerSession) throws -> T) throws -> T {
        bridge.checkCaller("withSession(_:)")
        if closed.load(ordering: .acquiring) { throw errors.closed }
        let connection = try pool.checkOut()
        let session = PostgresSession(
            connection: connection, bridge: bridge, errors: errors, limit: answerLimit, logger: logger,
            driverIsClosed: { self.closed.load(ordering: .acquiring) }
        )
        do {
            let result = try body(session)
            pool.checkIn(connection, reusable: !session.connectionBroke)
            return result
        } catch {
            var reusable = !session.connectionBroke
            if reusable {
                // Outside a transaction ROLLBACK only warns; a connection it fails on is dropped.
                do { try session.execute("ROLLBACK", []) } catch { reusable = false }
            }
            pool.checkIn(connection, reusable: reusable && !session.connectionBroke)
            throw error
        }
    }

    /// Calls `handler` with the payload of every notification on `channel`, on a serial queue
    /// of this listener, until ``close()``; returns once the server confirmed the LISTEN.
    /// The listening connection is one of its own, made again after it breaks; the handler is
    /// then called with nil. The channel name is taken as written (`LISTEN "Name"`), so a
    /// sender with capitals quotes it too: `NOTIFY "Name"`, or `pg_notify('Name', payload)`.
    public func listen(_ channel: String, _ handler: @escaping @Sendable (String?) -> Void) throws {
        bridge.checkCaller("listen(_:_:)")
        if closed.load(ordering: .acquiring) { throw errors.closed }
        guard !channel.isEmpty, channel.utf8.count <= 63, !channel.contains("\""), !channel.contains("\0") else {
            throw StoreError(
                .cannotOpen, url: address.url,
                "\"\(channel)\" cannot be a PostgreSQL channel name: use 1 to 63 bytes without double quotes."
            )
        }
        let listener = PostgresNotificationListener(
            channel: channel, handler: handler, group: group, configuration: configuration, errors: errors, logger: logger
        )
        try listener.start(bridge: bridge, limit: answerLimit)
        let added = listeners.withLock { listeners in
            if closed.load(ordering: .acquiring) { return false }
            listeners.append(listener)
            return true
        }
        if !added {
            listener.stop()
            throw errors.closed
        }
    }

    /// Closes every connection, stops the listeners, and makes later calls throw
    /// ``StoreError`` `.closed` (a statement under way throws it too). Calling it again does
    /// nothing.
    public func close() {
        let stopping = listeners.withLock { listeners in
            closed.store(true, ordering: .releasing)
            defer { listeners = [] }
            return listeners
        }
        for listener in stopping { listener.stop() }
        pool.close()
    }
}
