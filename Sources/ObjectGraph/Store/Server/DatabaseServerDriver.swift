import Foundation

// The seam between ObjectGraph and the wire protocol of a database server. ObjectGraph
// writes the SQL (Core Data's layout, the dialect's predicate compiler, saves with
// optimistic locking); a driver in a product of its own (ObjectGraphPostgres, on
// postgres-nio) only carries statements and rows, so SQLite-only users never build NIO.

/// A pool of connections to one database on a server, as a store uses it.
///
/// Every method blocks the calling thread until the server answers (contexts are
/// synchronous); a driver must never be called from its own event loop threads.
/// Failures are ``StoreError``s: `.connectionFailed` (the server cannot be reached or
/// refused the login), `.timeout` (no answer within the driver's timeout), `.connectionLost`
/// (the connection broke; a transaction under way was rolled back by the server), or
/// `.serverError` with a ``DatabaseServerError`` as its `underlying` error.
public protocol DatabaseServerDriver: AnyObject, Sendable {
    /// Runs `body` on one connection of the pool, taken for the whole call (statements of a
    /// transaction must share a connection). A broken connection is replaced on the next call.
    func withSession<T>(_ body: (any DatabaseServerSession) throws -> T) throws -> T

    /// Calls `handler` with the payload of every notification on `channel` (PostgreSQL's
    /// `LISTEN`), on a thread of the driver, until `close()`. The listening connection
    /// reconnects by itself after a failure and then calls `handler` with nil: notifications
    /// may have been missed while it was away.
    func listen(_ channel: String, _ handler: @escaping @Sendable (String?) -> Void) throws

    /// Closes every connection; later calls throw ``StoreError`` `.closed`.
    func close()
}

/// One connection to the server, for the duration of ``DatabaseServerDriver/withSession(_:)``.
public protocol DatabaseServerSession {
    /// Runs `sql` with `$1`, `$2`, ... bound to `parameters` and calls `row` with each row's
    /// columns: `integer` for integer and boolean columns, `real` for floating-point ones,
    /// `text` for text and for numeric ones (their exact decimal text), `blob` for byte
    /// arrays, `null`.
    func query(_ sql: String, _ parameters: [SQLValue], _ row: ([SQLValue]) throws -> Void) throws

    /// Runs `sql` with `parameters` and returns the number of rows it changed.
    @discardableResult
    func execute(_ sql: String, _ parameters: [SQLValue]) throws -> Int
}

extension DatabaseServerSession {
    /// The rows of `sql`.
    public func rows(_ sql: String, _ parameters: [SQLValue] = []) throws -> [[SQLValue]] {
        var rows: [[SQLValue]] = []
        try query(sql, parameters) { rows.append($0) }
        return rows
    }
}

/// An error the database server reported for a statement, with its SQLSTATE code
/// (`23505` a unique violation, `40001` a serialization failure, `42P01` an unknown table).
public struct DatabaseServerError: Error, CustomStringConvertible, Sendable {
    /// The five-character SQLSTATE code.
    public let sqlState: String
    /// The server's message.
    public let message: String
    /// The statement that failed, when known.
    public let statement: String?

    public init(sqlState: String, message: String, statement: String? = nil) {
        self.sqlState = sqlState
        self.message = message
        self.statement = statement
    }

    public var description: String { "SQLSTATE \(sqlState): \(message)" }
}
