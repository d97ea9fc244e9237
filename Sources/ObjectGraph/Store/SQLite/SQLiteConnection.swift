import CSQLite
import Foundation

/// One SQLite connection with a bounded cache of prepared statements keyed by SQL text
/// (the least recently used one makes room for a new text).
///
/// Not thread-safe: the coordinator serializes every use of a connection behind a lock.
final class SQLiteConnection {
    let handle: OpaquePointer
    let path: String
    private var statements: [String: SQLiteStatement] = [:]
    /// Counts `prepare` calls; each cached statement remembers the count at its last use.
    private var useClock: UInt64 = 0
    /// How long a statement waits for another connection's lock before `SQLITE_BUSY`, in ms.
    static let busyTimeout: Int32 = 10_000
    /// Called with each SQL text before it runs, so tests can record what executed.
    var trace: (@Sendable (String) -> Void)?
    /// Set by a Core Data trigger's function while a statement of this connection runs (on
    /// the thread using the connection); read and cleared by `takeRecomputedRows()`.
    var recomputedRows = false
    /// Pages in the write-ahead log after this connection's last commit, once
    /// `countWALFrames()` is on; read and cleared by `takeWALFrames()`.
    private var walFrames = 0

    /// Opens (or creates, when `create` is true) the database at `path`.
    init(path: String, readOnly: Bool = false, create: Bool = true) throws {
        var handle: OpaquePointer?
        var flags = SQLITE_OPEN_NOMUTEX | SQLITE_OPEN_URI
        flags |= readOnly ? SQLITE_OPEN_READONLY : SQLITE_OPEN_READWRITE
        if create && !readOnly { flags |= SQLITE_OPEN_CREATE }
        let code = sqlite3_open_v2(path, &handle, flags, nil)
        guard code == SQLITE_OK, let handle else {
            let error = SQLiteError(code: code, connection: handle, sql: nil)
            sqlite3_close_v2(handle)
            throw error
        }
        self.handle = handle
        self.path = path
        sqlite3_extended_result_codes(handle, 1)
        sqlite3_busy_timeout(handle, Self.busyTimeout)
        registerFunctions()
    }

    private(set) var isClosed = false

    deinit {
        close()
    }

    /// Finalizes every cached statement and closes the connection; later uses throw.
    func close() {
        guard !isClosed else { return }
        isClosed = true
        statements.removeAll()
        sqlite3_close_v2(handle)
    }

    private func checkOpen(_ sql: String) throws {
        if isClosed { throw SQLiteError(code: SQLITE_MISUSE, message: "the connection to \(path) is closed", sql: sql) }
    }

    /// A cached prepared statement for `sql`, reset and with bindings cleared.
    func cachedStatement(_ sql: String) throws -> SQLiteStatement {
        try checkOpen(sql)
        trace?(sql)
        useClock &+= 1
        if let statement = statements[sql] {
            statement.lastUse = useClock
            return statement
        }
        let statement = try SQLiteStatement(connection: self, sql: sql)
        if statements.count >= Self.statementCacheCapacity { evictLeastRecentlyUsed() }
        statement.lastUse = useClock
        statements[sql] = statement
        return statement
    }

    /// Drops the least recently used statement that is not stepping from the cache, which
    /// finalizes it (one still held by a caller is finalized when that caller lets go).
    /// A linear scan: it runs only when a new SQL text is prepared, next to which it is cheap.
    private func evictLeastRecentlyUsed() {
        var oldest: (sql: String, use: UInt64)?
        for (sql, statement) in statements where sqlite3_stmt_busy(statement.handle) == 0 {
            if statement.lastUse < oldest?.use ?? .max { oldest = (sql, statement.lastUse) }
        }
        if let oldest { statements.removeValue(forKey: oldest.sql) }
    }

    /// Runs one or more statements that take no parameters and return no rows.
    func execute(_ sql: String) throws {
        try checkOpen(sql)
        trace?(sql)
        var errorMessage: UnsafeMutablePointer<CChar>?
        let code = sqlite3_exec(handle, sql, nil, nil, &errorMessage)
        if code != SQLITE_OK {
            let message = errorMessage.map { String(cString: $0) } ?? String(cString: sqlite3_errstr(code))
            sqlite3_free(errorMessage)
            throw SQLiteError(code: sqlite3_extended_errcode(handle), message: message, sql: sql)
        }
    }

    /// Runs `sql` with `arguments` and calls `row` for every result row.
    func query(_ sql: String, _ arguments: [SQLValue] = [], row: (SQLiteStatement) throws -> Void) throws {
        let statement = try cachedStatement(sql)
        defer { statement.reset() }
        try statement.bind(arguments)
        while try statement.step() { try row(statement) }
    }

    /// Runs `sql` with `arguments`, ignoring rows, and returns the number of rows changed.
    @discardableResult
    func run(_ sql: String, _ arguments: [SQLValue] = []) throws -> Int {
        let statement = try cachedStatement(sql)
        defer { statement.reset() }
        try statement.bind(arguments)
        while try statement.step() {}
        return Int(sqlite3_changes(handle))
    }

    /// The first column of the first row, or nil.
    func scalar(_ sql: String, _ arguments: [SQLValue] = []) throws -> SQLValue? {
        var result: SQLValue?
        try query(sql, arguments) { statement in
            if result == nil { result = statement.value(0) }
        }
        return result
    }

    /// How many prepared statements a connection keeps at most: more than the SQL texts a
    /// model's fetches, faults and saves use in a loop, few enough that a process running
    /// ever new texts stays flat.
    static let statementCacheCapacity = 64

    /// Prepared statements alive on this connection, cached or not (`sqlite3_next_stmt`).
    var preparedStatementCount: Int {
        var count = 0
        var statement = sqlite3_next_stmt(handle, nil)
        while let current = statement {
            count += 1
            statement = sqlite3_next_stmt(handle, current)
        }
        return count
    }

    /// Records the log's length after each commit of this connection (`sqlite3_wal_hook`),
    /// which also replaces SQLite's automatic checkpoint (``WALCheckpoint`` runs its own).
    func countWALFrames() {
        sqlite3_wal_hook(handle, { context, _, _, frames in
            if let context { Unmanaged<SQLiteConnection>.fromOpaque(context).takeUnretainedValue().walFrames = Int(frames) }
            return SQLITE_OK
        }, Unmanaged.passUnretained(self).toOpaque())
    }

    /// The log's length after the last commit since the previous call (0 if none).
    func takeWALFrames() -> Int {
        defer { walFrames = 0 }
        return walFrames
    }

    var changes: Int { Int(sqlite3_changes(handle)) }
    var isInTransaction: Bool { sqlite3_get_autocommit(handle) == 0 }

    /// Runs `body` inside `BEGIN IMMEDIATE` ... `COMMIT`, rolling back when it throws.
    func writeTransaction<T>(_ body: () throws -> T) throws -> T {
        try execute("BEGIN IMMEDIATE")
        do {
            let result = try body()
            try execute("COMMIT")
            return result
        } catch {
            if isInTransaction { try? execute("ROLLBACK") }
            throw error
        }
    }

    /// Column names of `table`, uppercased, or an empty set when the table does not exist.
    func columns(of table: String) throws -> Set<String> {
        var names = Set<String>()
        try query("SELECT name FROM pragma_table_info(?)", [.text(table)]) { names.insert($0.text(0).uppercased()) }
        return names
    }

    func tableExists(_ table: String) throws -> Bool {
        try scalar("SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = ?", [.text(table)]) != nil
    }
}
