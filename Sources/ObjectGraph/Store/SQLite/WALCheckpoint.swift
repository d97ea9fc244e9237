import CSQLite
import Dispatch
import Foundation
import Logging

/// Keeps a store's write-ahead log bounded.
///
/// SQLite's automatic checkpoint (passive, every 1,000 pages) copies pages back into the
/// store but can restart the log only when no reader still uses an older part of it; with
/// readers always busy the `-wal` file grows with every commit. So after a commit that
/// leaves the log past its threshold, the writer runs a `TRUNCATE` checkpoint: it waits (at
/// most the busy timeout) for the readers on older snapshots to finish, copies every page,
/// and empties the log. A checkpoint that cannot finish (a reader kept its snapshot past the
/// busy timeout, say a long read in another process) changes nothing the commit wrote — the
/// pages stay in the log — and is tried again only once the log has grown by another
/// ``sizeLimit`` or ``retryAfterCommits`` commits later, so such a reader makes a commit wait
/// at most once per retry, not on every commit.
///
/// Not thread-safe: the coordinator calls it under its write lock.
final class WALCheckpoint {
    /// The log size past which a commit is followed by a truncating checkpoint.
    static let sizeLimit = 4 << 20
    /// Commits after a checkpoint that could not finish before the next try.
    static let retryAfterCommits = 100
    /// A refused checkpoint that took longer than this (1 s) waited for a long reader.
    static let longWait: UInt64 = 1_000_000_000

    private let path: String
    private let logger: Logger
    /// The log size that starts the next checkpoint.
    private var threshold = WALCheckpoint.sizeLimit
    /// Commits since a checkpoint could not finish, or nil when the last one did.
    private var commitsSinceFailure: Int?

    init(storePath: String, logger: Logger) {
        path = storePath + "-wal"
        self.logger = logger
    }

    /// After a commit on `connection` (the writer, outside any transaction): checkpoints and
    /// empties the log when it has grown past the threshold.
    func afterCommit(_ connection: SQLiteConnection) {
        var info = stat()
        guard stat(path, &info) == 0, Int(info.st_size) > Self.sizeLimit else { return }
        if let failed = commitsSinceFailure {
            commitsSinceFailure = failed + 1
            guard Int(info.st_size) > threshold || failed + 1 >= Self.retryAfterCommits else { return }
        }
        let started = DispatchTime.now().uptimeNanoseconds
        let code = sqlite3_wal_checkpoint_v2(connection.handle, "main", SQLITE_CHECKPOINT_TRUNCATE, nil, nil)
        let waited = DispatchTime.now().uptimeNanoseconds - started
        // Done, or refused at once (another connection was checkpointing or writing): try
        // again after the next commit. Only a reader that outlasted the wait backs off.
        if code == SQLITE_OK || (code & 0xFF == SQLITE_BUSY && waited < Self.longWait) {
            threshold = Self.sizeLimit
            commitsSinceFailure = nil
            return
        }
        threshold = Int(info.st_size) + Self.sizeLimit
        commitsSinceFailure = 0
        if code & 0xFF != SQLITE_BUSY {
            logger.warning("checkpoint of \(path) failed; its pages stay in the log: \(SQLiteError(code: code, connection: connection.handle))")
        }
    }
}
