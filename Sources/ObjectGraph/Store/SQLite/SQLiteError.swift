import CSQLite

/// An error reported by SQLite, with the result code, SQLite's message and the SQL that failed.
///
/// For example:
///
/// ```swift
/// do { try context.save() }
/// catch let error as SQLiteError where error.code == SQLITE_FULL { print("disk full") }
/// ```
public struct SQLiteError: Error, CustomStringConvertible, Sendable {
    /// The extended SQLite result code (`SQLITE_BUSY`, `SQLITE_CONSTRAINT_UNIQUE`, ...).
    public let code: Int32
    /// SQLite's own message for the failure.
    public let message: String
    /// The statement that failed, when there was one.
    public let sql: String?

    /// The primary result code (the low byte of ``code``).
    public var primaryCode: Int32 { code & 0xFF }

    init(code: Int32, message: String, sql: String? = nil) {
        self.code = code
        self.message = message
        self.sql = sql
    }

    init(code: Int32, connection: OpaquePointer?, sql: String? = nil) {
        let message = connection.flatMap { sqlite3_errmsg($0) }.map { String(cString: $0) }
            ?? String(cString: sqlite3_errstr(code))
        self.init(code: code, message: message, sql: sql)
    }

    /// What to do about a failure that comes from outside the program (a full disk, a lock
    /// held by another process, an I/O error), or nil.
    public var remedy: String? {
        switch primaryCode {
        case SQLITE_FULL:
            return "the disk holding the store (or its -wal file) is full: free space on it, then retry; a failed save keeps the context's changes"
        case SQLITE_BUSY, SQLITE_LOCKED:
            return "another process held the store locked past the busy timeout: close the other program using the file, or retry later"
        case SQLITE_IOERR:
            return "the operating system reported an I/O error: check the disk (dmesg), then retry; a failed save keeps the context's changes"
        default:
            return nil
        }
    }

    /// The code and SQLite's message, without the statement or the remedy (for failures that
    /// are not a caller's save, such as a background checkpoint).
    var summary: String { "SQLite error \(code) (\(String(cString: sqlite3_errstr(code)))): \(message)" }

    public var description: String {
        var text = summary
        if let sql { text += " — while executing `\(sql)`" }
        if let remedy { text += "; \(remedy)" }
        return text
    }
}
