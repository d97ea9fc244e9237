import CSQLiteBench
import Foundation

/// A thin wrapper over the sqlite3 C API for the raw baseline: every call is the C call.
final class RawDatabase {
    let handle: OpaquePointer

    init(path: String) throws {
        var handle: OpaquePointer?
        let code = sqlite3_open_v2(path, &handle, SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE | SQLITE_OPEN_NOMUTEX, nil)
        guard code == SQLITE_OK, let handle else {
            sqlite3_close_v2(handle)
            throw RawError(message: "cannot open \(path): \(String(cString: sqlite3_errstr(code)))")
        }
        self.handle = handle
        sqlite3_busy_timeout(handle, 10_000)
        try execute("PRAGMA journal_mode = WAL")
        try execute("PRAGMA synchronous = NORMAL")
    }

    deinit { sqlite3_close_v2(handle) }

    func execute(_ sql: String) throws {
        var message: UnsafeMutablePointer<CChar>?
        let code = sqlite3_exec(handle, sql, nil, nil, &message)
        if code != SQLITE_OK {
            let text = message.map { String(cString: $0) } ?? String(cString: sqlite3_errstr(code))
            sqlite3_free(message)
            throw RawError(message: "\(text) in \(sql)")
        }
    }

    func prepare(_ sql: String) throws -> RawStatement {
        var statement: OpaquePointer?
        let code = sqlite3_prepare_v3(handle, sql, -1, UInt32(SQLITE_PREPARE_PERSISTENT), &statement, nil)
        guard code == SQLITE_OK, let statement else {
            throw RawError(message: "\(String(cString: sqlite3_errmsg(handle))) in \(sql)")
        }
        return RawStatement(statement, database: self)
    }

    /// The first column of the first row as an integer.
    func int64(_ sql: String) throws -> Int64 {
        let statement = try prepare(sql)
        return try statement.step() ? statement.int64(0) : 0
    }

    func double(_ sql: String) throws -> Double {
        let statement = try prepare(sql)
        return try statement.step() ? statement.double(0) : 0
    }

    var errorMessage: String { String(cString: sqlite3_errmsg(handle)) }
}

final class RawStatement {
    let handle: OpaquePointer
    let database: RawDatabase

    init(_ handle: OpaquePointer, database: RawDatabase) {
        self.handle = handle
        self.database = database
    }

    deinit { sqlite3_finalize(handle) }

    @inline(__always) func bind(_ value: Int64, _ index: Int32) { sqlite3_bind_int64(handle, index, value) }
    @inline(__always) func bind(_ value: Double, _ index: Int32) { sqlite3_bind_double(handle, index, value) }
    @inline(__always) func bindNull(_ index: Int32) { sqlite3_bind_null(handle, index) }
    @inline(__always) func bind(_ value: String, _ index: Int32) {
        var value = value
        value.withUTF8 { bytes in
            _ = bytes.withMemoryRebound(to: CChar.self) { chars in
                sqlite3_bind_text(handle, index, chars.baseAddress, Int32(chars.count), bench_sqlite_transient())
            }
        }
    }

    /// True for a row, false when done.
    @inline(__always) func step() throws -> Bool {
        let code = sqlite3_step(handle)
        if code == SQLITE_ROW { return true }
        if code == SQLITE_DONE { return false }
        throw RawError(message: database.errorMessage)
    }

    @inline(__always) func reset() { sqlite3_reset(handle) }
    @inline(__always) func int64(_ column: Int32) -> Int64 { sqlite3_column_int64(handle, column) }
    @inline(__always) func double(_ column: Int32) -> Double { sqlite3_column_double(handle, column) }
    @inline(__always) func isNull(_ column: Int32) -> Bool { sqlite3_column_type(handle, column) == SQLITE_NULL }
    @inline(__always) func text(_ column: Int32) -> String {
        guard let pointer = sqlite3_column_text(handle, column) else { return "" }
        let count = Int(sqlite3_column_bytes(handle, column))
        return String(decoding: UnsafeBufferPointer(start: pointer, count: count), as: UTF8.self)
    }
}

struct RawError: Error, CustomStringConvertible {
    let message: String
    var description: String { "SQLite: \(message)" }
}
