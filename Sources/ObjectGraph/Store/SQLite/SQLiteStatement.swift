import CSQLite
import Foundation

/// A prepared statement. Not thread-safe: it belongs to its connection.
///
/// Bind and read by index (0-based for both here); every result code is checked.
final class SQLiteStatement {
    let handle: OpaquePointer
    let sql: String
    unowned let connection: SQLiteConnection
    /// When the connection's cache last handed it out (its least recently used order).
    var lastUse: UInt64 = 0

    init(connection: SQLiteConnection, sql: String) throws {
        var handle: OpaquePointer?
        let code = sqlite3_prepare_v3(connection.handle, sql, -1, UInt32(SQLITE_PREPARE_PERSISTENT), &handle, nil)
        guard code == SQLITE_OK, let handle else {
            throw SQLiteError(code: code, connection: connection.handle, sql: sql)
        }
        self.handle = handle
        self.sql = sql
        self.connection = connection
    }

    deinit { sqlite3_finalize(handle) }

    /// Clears bindings and resets, ready for the next execution.
    func reset() {
        sqlite3_reset(handle)
        sqlite3_clear_bindings(handle)
    }

    /// Resets for the next execution and keeps the bindings: for loops that bind every
    /// parameter of every execution (call `clearBindings()` when done, before memory bound
    /// with `bindStaticText` goes away).
    @inline(__always) func resetKeepingBindings() {
        sqlite3_reset(handle)
    }

    /// Sets every parameter to NULL.
    func clearBindings() {
        sqlite3_clear_bindings(handle)
    }

    // MARK: Binding

    func bind(_ value: SQLValue, at index: Int32) throws {
        let i = index + 1
        let code: Int32
        switch value {
        case .null: code = sqlite3_bind_null(handle, i)
        case .integer(let v): code = sqlite3_bind_int64(handle, i, v)
        case .real(let v): code = sqlite3_bind_double(handle, i, v)
        case .text(let v):
            // With its byte count, so text with an embedded NUL is stored whole.
            var text = v
            code = text.withUTF8 { bytes in
                guard !bytes.isEmpty else { return sqlite3_bind_text(handle, i, "", 0, csqlite_transient()) }
                return bytes.withMemoryRebound(to: CChar.self) { chars in
                    sqlite3_bind_text(handle, i, chars.baseAddress, Int32(chars.count), csqlite_transient())
                }
            }
        case .blob(let v):
            code = v.withUnsafeBytes { raw in
                sqlite3_bind_blob(handle, i, raw.baseAddress ?? UnsafeRawPointer(bitPattern: 1), Int32(raw.count), csqlite_transient())
            }
        }
        guard code == SQLITE_OK else { throw SQLiteError(code: code, connection: connection.handle, sql: sql) }
    }

    func bind(_ values: [SQLValue]) throws {
        for (index, value) in values.enumerated() { try bind(value, at: Int32(index)) }
    }

    @inline(__always) func bindDouble(_ value: Double, at index: Int32) throws {
        let code = sqlite3_bind_double(handle, index + 1, value)
        guard code == SQLITE_OK else { throw SQLiteError(code: code, connection: connection.handle, sql: sql) }
    }

    @inline(__always) func bindNull(at index: Int32) throws {
        let code = sqlite3_bind_null(handle, index + 1)
        guard code == SQLITE_OK else { throw SQLiteError(code: code, connection: connection.handle, sql: sql) }
    }

    /// Binds `count` bytes of UTF-8 at `text` without copying them (`SQLITE_STATIC`): they
    /// must stay unchanged until the statement has stepped, and valid until the parameter is
    /// bound again or the bindings are cleared.
    @inline(__always) func bindStaticText(_ text: UnsafePointer<CChar>, count: Int, at index: Int32) throws {
        let code = sqlite3_bind_text(handle, index + 1, text, Int32(count), nil)
        guard code == SQLITE_OK else { throw SQLiteError(code: code, connection: connection.handle, sql: sql) }
    }

    /// Binds a copy of the UTF-8 `bytes` (`SQLITE_TRANSIENT`).
    func bindTransientText(_ bytes: UnsafeBufferPointer<UInt8>, at index: Int32) throws {
        let code = bytes.withMemoryRebound(to: CChar.self) { chars in
            sqlite3_bind_text(handle, index + 1, chars.baseAddress, Int32(chars.count), csqlite_transient())
        }
        guard code == SQLITE_OK else { throw SQLiteError(code: code, connection: connection.handle, sql: sql) }
    }

    @inline(__always) func bindInt64(_ value: Int64, at index: Int32) throws {
        let code = sqlite3_bind_int64(handle, index + 1, value)
        guard code == SQLITE_OK else { throw SQLiteError(code: code, connection: connection.handle, sql: sql) }
    }

    // MARK: Stepping

    /// Advances to the next row; returns false when done. Throws on any error.
    @inline(__always) func step() throws -> Bool {
        let code = sqlite3_step(handle)
        if code == SQLITE_ROW { return true }
        if code == SQLITE_DONE { return false }
        let error = SQLiteError(code: sqlite3_extended_errcode(connection.handle), connection: connection.handle, sql: sql)
        sqlite3_reset(handle)
        throw error
    }

    /// Runs the statement to completion, ignoring rows.
    func run() throws {
        defer { reset() }
        while try step() {}
    }

    // MARK: Reading

    @inline(__always) func columnType(_ index: Int32) -> Int32 { sqlite3_column_type(handle, index) }
    @inline(__always) func isNull(_ index: Int32) -> Bool { sqlite3_column_type(handle, index) == SQLITE_NULL }
    @inline(__always) func int64(_ index: Int32) -> Int64 { sqlite3_column_int64(handle, index) }
    @inline(__always) func double(_ index: Int32) -> Double { sqlite3_column_double(handle, index) }

    @inline(__always) func text(_ index: Int32) -> String { textUnlessNull(index) ?? "" }

    /// The column as text, or nil for NULL (`sqlite3_column_text` gives a null pointer only
    /// then), without asking for the column's type first.
    @inline(__always) func textUnlessNull(_ index: Int32) -> String? {
        guard let pointer = sqlite3_column_text(handle, index) else { return nil }
        let count = Int(sqlite3_column_bytes(handle, index))
        return String(decoding: UnsafeBufferPointer(start: pointer, count: count), as: UTF8.self)
    }

    @inline(__always) func data(_ index: Int32) -> Data {
        let count = Int(sqlite3_column_bytes(handle, index))
        guard count > 0, let pointer = sqlite3_column_blob(handle, index) else { return Data() }
        return Data(bytes: pointer, count: count)
    }

    func value(_ index: Int32) -> SQLValue {
        switch sqlite3_column_type(handle, index) {
        case SQLITE_INTEGER: return .integer(int64(index))
        case SQLITE_FLOAT: return .real(double(index))
        case SQLITE_TEXT: return .text(text(index))
        case SQLITE_BLOB: return .blob(data(index))
        default: return .null
        }
    }

}
