import CSQLite
import Foundation

extension StoreError {
    /// The store-neutral error for `error`, which SQLite reported while the store at `url`
    /// ran a read or a write: its kind (a full disk, an I/O error, a lock held too long, a
    /// corrupt file) as the code, SQLite's error (with its result code and the statement)
    /// as `underlying`.
    init(_ error: SQLiteError, url: URL?) {
        let code: Code
        switch error.primaryCode {
        case SQLITE_FULL: code = .diskFull
        case SQLITE_IOERR: code = .ioError
        case SQLITE_BUSY, SQLITE_LOCKED: code = .locked
        case SQLITE_CORRUPT, SQLITE_NOTADB: code = .notADatabase
        case SQLITE_READONLY: code = .readOnlyFile
        default: code = .databaseError
        }
        let message = error.remedy.map { "SQLite reported \(error.message.isEmpty ? "an error" : "'\(error.message)'"): \($0)" }
            ?? "SQLite reported '\(error.message)'\(error.sql.map { " while running `\($0)`" } ?? ""); nothing was changed by the failed call"
        self.init(code, url: url, message, underlying: error)
    }
}
