import Foundation

extension SQLiteStore {
    /// Writes a copy of the store at `destination` from one snapshot, on a reader connection
    /// of its own (the writer, under the write lock, in memory), while saves go on.
    ///
    /// Meanwhile commits skip the log's truncating checkpoint (``WALCheckpoint``), which
    /// would wait for the backup's read, up to the busy timeout; the first commit after the
    /// backup runs it.
    func backup(to destination: URL, progress: BackupProgressHandler?) throws {
        runningBackups.withLock { $0 += 1 }
        defer { runningBackups.withLock { $0 -= 1 } }
        try read { connection in
            try SQLiteBackup.write(from: connection, to: destination, fileMode: fileMode, progress: progress)
        }
    }
}
