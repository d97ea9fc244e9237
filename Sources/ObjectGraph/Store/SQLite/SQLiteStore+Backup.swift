import Foundation

extension SQLiteStore {
    /// Writes a copy of the store at `destination` from one snapshot, on a reader connection
    /// of its own (the writer, under the write lock, in memory), while saves go on.
    func backup(to destination: URL, progress: BackupProgressHandler?) throws {
        try read { connection in
            try SQLiteBackup.write(from: connection, to: destination, fileMode: fileMode, progress: progress)
        }
    }
}
