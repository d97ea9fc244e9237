import CSQLite
import Foundation
import Logging

/// Keeps a store's write-ahead log bounded.
///
/// SQLite's automatic checkpoint (passive, every 1,000 pages) copies pages back into the
/// store but can restart the log only when no reader still uses an older part of it; with
/// readers always busy the `-wal` file grows with every commit. So after a commit that
/// leaves the log past ``sizeLimit``, the writer runs a `TRUNCATE` checkpoint: it waits (at
/// most the busy timeout) for the readers to move to the latest snapshot, copies every page,
/// and empties the log. A checkpoint that cannot finish changes nothing the commit wrote
/// (the pages stay in the log) and is tried again after the next commit.
enum WALCheckpoint {
    /// The log size past which a commit is followed by a truncating checkpoint.
    static let sizeLimit: Int = 4 << 20

    /// Checkpoints and empties the log of the store at `path` when it has grown past
    /// ``sizeLimit``; `connection` is the writer, outside any transaction.
    static func afterCommit(_ connection: SQLiteConnection, path: String, logger: Logger) {
        var info = stat()
        guard stat(path + "-wal", &info) == 0, Int(info.st_size) > sizeLimit else { return }
        let code = sqlite3_wal_checkpoint_v2(connection.handle, "main", SQLITE_CHECKPOINT_TRUNCATE, nil, nil)
        if code != SQLITE_OK && code & 0xFF != SQLITE_BUSY {
            logger.warning("checkpoint of \(path) failed; its pages stay in the -wal file: \(SQLiteError(code: code, connection: connection.handle))")
        }
    }
}
