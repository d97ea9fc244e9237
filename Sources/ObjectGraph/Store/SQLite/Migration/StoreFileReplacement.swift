import CSQLite
import Foundation

/// Puts a migrated store file in place of the old one.
///
/// The old store's `-wal` may hold committed pages not yet in its main file; were it left
/// beside the new file, SQLite would replay it onto the new file. So the `-wal` is first
/// checkpointed into the old file and truncated (the old store keeps its contents), then the
/// new file is renamed over the old one (one atomic step), then the stale `-wal` and `-shm`
/// are removed and the folder is synced.
enum StoreFileReplacement {
    static func replace(_ url: URL, with migrated: URL) throws {
        let wal = url.path + "-wal"
        // Whenever a -wal exists, whatever its size says (or fails to say): skipping the
        // checkpoint of a -wal with pages would let SQLite replay them onto the new file.
        if FileManager.default.fileExists(atPath: wal) {
            do {
                let connection = try SQLiteConnection(path: url.path, create: false)
                defer { connection.close() }
                var busy: Int64 = 0
                try connection.query("PRAGMA wal_checkpoint(TRUNCATE)") { busy = $0.int64(0) }
                guard busy == 0 else {
                    throw MigrationError(.writeFailed, url: url, "the store is open in another connection or process, so its -wal file cannot be moved into it; close every other user of the store and open it again")
                }
            } catch let error as SQLiteError {
                throw MigrationError(.writeFailed, url: url, "the store's -wal file cannot be moved into it before the migrated store replaces it", underlying: error)
            }
        }
        guard rename(migrated.path, url.path) == 0 else {
            let reason = String(cString: strerror(errno))
            throw MigrationError(.writeFailed, url: url, "the migrated store could not replace the old one (\(reason)); the old store is unchanged")
        }
        for suffix in ["-wal", "-shm"] { try? FileManager.default.removeItem(atPath: url.path + suffix) }
        let folder = open(url.deletingLastPathComponent().path, O_RDONLY)
        if folder >= 0 {
            fsync(folder)
            close(folder)
        }
    }
}
