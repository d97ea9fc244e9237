import Foundation

/// A SQLite store's persistent history: whether its saves record it (``HistorySchema``
/// present), which transactions this store's own saves wrote, how far the commits of other
/// processes have been read, and the timer that looks for them.
///
/// Thread-safe: the state is behind a lock. The own transactions are noted inside the
/// write transaction that records them (so a reader never sees one that is not yet noted),
/// and forgotten once read past.
final class SQLiteHistory: @unchecked Sendable {  // the state is behind `state`'s lock
    struct State {
        /// The tables' columns, when the store has them: saves then record history.
        var schema: HistorySchema?
        /// Transactions this store's saves wrote that the watcher has not read past yet.
        var own: Set<Int64> = []
        /// The last transaction the watcher has read.
        var lastRead: Int64 = 0
        /// The writer's `PRAGMA data_version` at the last look: it changes only when another
        /// connection (another process or container) commits.
        var dataVersion: Int64?
        /// The timer of ``PersistentStoreCoordinator/watchOtherProcesses(every:)``.
        var timer: DispatchSourceTimer?
    }

    let state = Locked(State())

    /// The tables' columns, or nil when saves record no history.
    var schema: HistorySchema? { state.withLock { $0.schema } }

    /// Notes a transaction this store's save wrote (inside its write transaction).
    func noteOwn(_ number: Int64) {
        state.withLock { _ = $0.own.insert(number) }
    }

    /// Forgets a noted transaction whose write transaction rolled back.
    func forgetOwn(_ number: Int64) {
        state.withLock { _ = $0.own.remove(number) }
    }

    /// Stops the watcher's timer (the store closed, or the coordinator went away).
    func stopWatching() {
        let timer = state.withLock { state -> DispatchSourceTimer? in
            defer { state.timer = nil }
            return state.timer
        }
        timer?.cancel()
    }

    deinit {
        state.withLock { $0.timer }?.cancel()
    }
}
