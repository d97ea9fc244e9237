import CSQLite
import Dispatch
import Foundation
import Logging

/// Keeps the copy of a store's write-ahead log back into the store out of the commits callers
/// wait for, and keeps the log bounded.
///
/// SQLite's automatic checkpoint runs inside the `COMMIT` that takes the log past 1,000
/// pages, so the caller of that save waited while every page was copied back. The writer has
/// it switched off (`wal_autocheckpoint = 0`) and counts the log's pages after each commit
/// instead (`sqlite3_wal_hook`, ``SQLiteConnection/takeWALFrames()``). A commit that leaves
/// the log at ``backgroundFrames`` pages or more hands the copy to this store's own queue: a
/// `PASSIVE` checkpoint on a connection of its own (never the writer's), at most one at a
/// time (a commit during it asks for one more run), which waits for nobody and copies what no
/// reader still needs. Then a `RESTART` checkpoint, which takes the write lock (waiting at
/// most ``restartWait`` for it) and waits at most as long for readers of older snapshots; a
/// commit meanwhile waits for it: those milliseconds, plus copying what was committed since the
/// `PASSIVE` one (usually nothing). So the next commit starts the log again from its beginning
/// even while commits follow each other closely, and cuts the `-wal` file back to
/// ``sizeLimit`` (`journal_size_limit`).
///
/// Bounded: readers that always hold older snapshots keep the log from restarting, so a commit
/// that leaves it at ``frameLimit`` pages or more checkpoints itself, on the writer, with a
/// `TRUNCATE` that waits (at most the busy timeout) for those readers and empties the log. One
/// that cannot finish (a reader kept its snapshot past the busy timeout, say a long read in
/// another process) changes nothing the commit wrote — the pages stay in the log — and is
/// tried again only once the log has grown by another ``frameLimit`` pages or
/// ``retryAfterCommits`` commits later, so such a reader makes a commit wait at most once per
/// retry, not on every commit.
///
/// ``afterCommit(_:backupRunning:)`` is called under the store's write lock; the background
/// state is behind a lock of its own, and the checkpoint connection is used only on the queue.
/// ``close()`` waits for a checkpoint under way (closing the store's last connection would
/// copy the same pages anyway), so no connection outlives the store.
final class WALCheckpoint: @unchecked Sendable {  // `connection` is only touched on `queue`, `state` under its lock
    /// Log pages after a commit that start a checkpoint in the background (SQLite's own
    /// automatic checkpoint threshold).
    static let backgroundFrames = 1_000
    /// Log pages after a commit past which the commit checkpoints itself (about 16 MB).
    static let frameLimit = 4_000
    /// What the `-wal` file is cut back to when the log starts again (`journal_size_limit`).
    static let sizeLimit = 4 << 20
    /// How long the background `RESTART` waits for the write lock and for readers, in ms.
    static let restartWait: Int32 = 20
    /// Commits after a synchronous checkpoint that could not finish before the next try.
    static let retryAfterCommits = 100
    /// A refused checkpoint that took longer than this (1 s) waited for a long reader.
    static let longWait: UInt64 = 1_000_000_000

    private let path: String
    private let logger: Logger
    private let queue = DispatchQueue(label: "ObjectGraph.WALCheckpoint", qos: .utility)

    // Under the store's write lock:
    /// The log length that makes the next commit checkpoint itself.
    private var threshold = WALCheckpoint.frameLimit
    /// Commits since a synchronous checkpoint could not finish, or nil when the last one did.
    private var commitsSinceFailure: Int?

    // Only on `queue`:
    private var connection: SQLiteConnection?

    private struct State {
        var running = false
        /// A commit asked for a checkpoint while one ran: run again when it ends.
        var again = false
        var closed = false
        var trace: (@Sendable (String) -> Void)?
    }
    private let state = Locked(State())

    init(storePath: String, logger: Logger) {
        path = storePath
        self.logger = logger
    }

    /// Switches the writer's automatic checkpoint off and counts its log pages instead.
    func attach(to writer: SQLiteConnection) throws {
        try writer.execute("PRAGMA wal_autocheckpoint = 0")
        try writer.execute("PRAGMA journal_size_limit = \(Self.sizeLimit)")
        writer.countWALFrames()
    }

    /// What every statement of the checkpoint connection is reported to (the store's trace).
    var trace: (@Sendable (String) -> Void)? {
        get { state.withLock { $0.trace } }
        set { state.withLock { $0.trace = newValue } }
    }

    /// After a commit on `writer` (outside any transaction, under the write lock): starts a
    /// checkpoint in the background when the log is long, or checkpoints at once when it is
    /// past ``frameLimit`` (not while a backup of this process holds its snapshot: that
    /// checkpoint could only wait for it; the first commit after the backup runs it).
    func afterCommit(_ writer: SQLiteConnection, backupRunning: Bool) {
        let frames = writer.takeWALFrames()
        guard frames >= Self.backgroundFrames else { return }
        if frames >= Self.frameLimit && !backupRunning && checkpointNow(writer, frames: frames) { return }
        startInBackground()
    }

    /// Waits for a background checkpoint under way and closes its connection; later commits
    /// start none.
    func close() {
        state.withLock { $0.closed = true }
        queue.sync {
            connection?.close()
            connection = nil
        }
    }

    // MARK: Synchronous

    /// The `TRUNCATE` checkpoint on the writer; false when it was not tried (backing off).
    private func checkpointNow(_ writer: SQLiteConnection, frames: Int) -> Bool {
        if let failed = commitsSinceFailure {
            commitsSinceFailure = failed + 1
            guard frames >= threshold || failed + 1 >= Self.retryAfterCommits else { return false }
        }
        let started = DispatchTime.now().uptimeNanoseconds
        let code = sqlite3_wal_checkpoint_v2(writer.handle, "main", SQLITE_CHECKPOINT_TRUNCATE, nil, nil)
        let waited = DispatchTime.now().uptimeNanoseconds - started
        // Done, or refused at once (another connection was checkpointing or writing): try
        // again after the next commit. Only a reader that outlasted the wait backs off.
        if code == SQLITE_OK || (code & 0xFF == SQLITE_BUSY && waited < Self.longWait) {
            threshold = Self.frameLimit
            commitsSinceFailure = nil
            return true
        }
        threshold = frames + Self.frameLimit
        commitsSinceFailure = 0
        if code & 0xFF != SQLITE_BUSY {
            logger.warning("checkpoint of \(path)-wal failed (\(SQLiteError(code: code, connection: writer.handle).summary)); its pages stay in the log, so nothing committed is lost, and the next checkpoint copies them")
        }
        return true
    }

    // MARK: In the background

    private func startInBackground() {
        let start = state.withLock { state -> Bool in
            if state.closed { return false }
            if state.running {
                state.again = true
                return false
            }
            state.running = true
            return true
        }
        guard start else { return }
        queue.async { [self] in
            repeat { checkpointInBackground() } while state.withLock({ state -> Bool in
                if state.again && !state.closed {
                    state.again = false
                    return true
                }
                state.running = false
                return false
            })
        }
    }

    /// One `PASSIVE` checkpoint on the checkpoint connection (opened on first use), on `queue`.
    private func checkpointInBackground() {
        do {
            let connection = try self.connection ?? openConnection()
            self.connection = connection
            connection.trace = state.withLock { $0.trace }
            try connection.query("PRAGMA wal_checkpoint(PASSIVE)") { _ in }
            try connection.query("PRAGMA wal_checkpoint(RESTART)") { _ in }
        } catch let error as SQLiteError where error.primaryCode == SQLITE_BUSY {
            // Another connection was checkpointing or recovering the log: nothing to do.
        } catch {
            let reason = (error as? SQLiteError)?.summary ?? "\(error)"
            logger.warning("checkpoint of \(path)-wal failed (\(reason)); its pages stay in the log, so nothing committed is lost, and the next checkpoint copies them")
        }
    }

    private func openConnection() throws -> SQLiteConnection {
        let connection = try SQLiteConnection(path: path, create: false)
        // The checkpoint syncs the log before copying and the store after, as the writer's would.
        try connection.execute("PRAGMA synchronous = NORMAL")
        sqlite3_busy_timeout(connection.handle, Self.restartWait)
        return connection
    }
}
