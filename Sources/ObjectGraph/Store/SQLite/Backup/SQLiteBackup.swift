import CSQLite
import Foundation
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Online backup and restore of SQLite stores with SQLite's backup API
/// (`sqlite3_backup_init`/`_step`/`_finish`), page by page in steps.
///
/// Why the backup API and not `VACUUM INTO`: it copies pages as they are (no rebuild of
/// every table and index), in steps that report progress, and the same code restores a copy
/// into a store in one transaction. Why it is a consistent snapshot while other connections
/// and processes write: the source connection holds one read transaction for the whole copy
/// (``withSnapshot(of:_:)``). In WAL mode writers go on committing to the `-wal`, but the
/// source keeps reading the state of the moment its transaction began, and SQLite never
/// restarts the copy (it restarts only when the source's view changes between steps).
///
/// Not thread-safe: each call uses its connections alone.
enum SQLiteBackup {
    /// Pages copied per step, between two progress reports (1 MB of 4 KB pages).
    static let pagesPerStep: Int32 = 256
    /// How long a step keeps retrying a lock another connection holds.
    static let lockTimeout: TimeInterval = Double(SQLiteConnection.busyTimeout) / 1000

    /// Runs `body` inside one read transaction of `connection`: every read, a backup's too,
    /// sees the same committed state of the database.
    static func withSnapshot<T>(of connection: SQLiteConnection, _ body: () throws -> T) throws -> T {
        try connection.execute("BEGIN")
        defer { if connection.isInTransaction { try? connection.execute("ROLLBACK") } }
        _ = try connection.scalar("SELECT count(*) FROM sqlite_master")
        return try body()
    }

    /// Copies every page of `source`'s database into `destination`'s, reporting after each
    /// step. `destination` writes them in one transaction that commits at the end: killed
    /// before, its database is as it was.
    static func copyPages(from source: SQLiteConnection, to destination: SQLiteConnection, progress: BackupProgressHandler?) throws {
        var pageSize = 4096
        if case .integer(let size)? = try source.scalar("PRAGMA page_size") { pageSize = Int(size) }
        guard let backup = sqlite3_backup_init(destination.handle, "main", source.handle, "main") else {
            throw SQLiteError(code: sqlite3_extended_errcode(destination.handle), connection: destination.handle)
        }
        let deadline = Date().addingTimeInterval(lockTimeout)
        var code: Int32
        while true {
            code = sqlite3_backup_step(backup, pagesPerStep)
            if code == SQLITE_OK || code == SQLITE_DONE {
                let total = Int(sqlite3_backup_pagecount(backup))
                progress?(BackupProgress(completedPages: total - Int(sqlite3_backup_remaining(backup)), totalPages: total, pageSize: pageSize))
                if code == SQLITE_DONE { break }
            } else if [SQLITE_BUSY, SQLITE_LOCKED].contains(code & 0xFF), Date() < deadline {
                usleep(10_000)
            } else {
                break
            }
        }
        let finished = sqlite3_backup_finish(backup)
        guard code == SQLITE_DONE, finished == SQLITE_OK else {
            throw SQLiteError(code: code == SQLITE_DONE ? finished : code, connection: destination.handle)
        }
    }

    // MARK: Writing a copy

    /// Writes a copy of `source` (inside one snapshot) as a new file at `destination`.
    ///
    /// The pages go into a temporary file beside it (`.NAME.backup-PID-UUID`, created as
    /// `fileMode` says), which is synced, then linked into place (never over an existing
    /// file) and the folder synced: whenever the process is killed, `destination` is absent
    /// or complete. Temporary files of backups whose process died are removed first.
    ///
    /// - Throws: ``StoreError`` `.cannotOpen` when `destination` (or its `-wal`, `-shm` or
    ///   `-journal`) exists, or is named as a store's `-wal`, `-shm` or `-journal`
    ///   (``StoreCompanionName``); the store error for what SQLite or the file system reported.
    static func write(from source: SQLiteConnection, to destination: URL, fileMode: StoreFileMode,
                      progress: BackupProgressHandler?) throws {
        try refuseDestination(destination)
        let folder = destination.deletingLastPathComponent()
        try fileMode.createFolder(folder, for: destination)
        removeTemporariesOfDeadProcesses(for: destination)
        let temporary = temporaryURL(beside: destination)
        defer {
            for suffix in ["", "-journal"] { try? FileManager.default.removeItem(atPath: temporary.path + suffix) }
        }
        do {
            fileMode.createEmptyFile(temporary.path)
            let copy = try SQLiteConnection(path: temporary.path)
            defer { copy.close() }
            // The temporary is nobody's database until it is linked into place: no journal.
            try copy.execute("PRAGMA journal_mode = OFF")
            try withSnapshot(of: source) { try copyPages(from: source, to: copy, progress: progress) }
        } catch let error as SQLiteError {
            throw failure(error, writing: destination)
        }
        try syncFile(temporary.path, destination: destination)
        try putInPlace(temporary, at: destination)
        syncFolder(folder)
    }

    /// A new temporary file name beside `file` (`.NAME.backup-PID-UUID`), which
    /// ``removeTemporariesOfDeadProcesses(for:)`` removes once its process is dead.
    static func temporaryURL(beside file: URL) -> URL {
        file.deletingLastPathComponent().appendingPathComponent(".\(file.lastPathComponent).backup-\(getpid())-\(UUID().uuidString)")
    }

    /// Gives the finished `temporary` the name `destination` in one step, never over a file
    /// that appeared there meanwhile: a hard link (`link` fails on an existing name); on a
    /// file system without hard links, a rename after a last look.
    private static func putInPlace(_ temporary: URL, at destination: URL) throws {
        if link(temporary.path, destination.path) == 0 { return }
        var code = errno
        if [EPERM, EOPNOTSUPP, EMLINK].contains(code) {
            if FileManager.default.fileExists(atPath: destination.path) {
                code = EEXIST
            } else if rename(temporary.path, destination.path) == 0 {
                return
            } else {
                code = errno
            }
        }
        let reason = code == EEXIST ? "a file appeared there while the backup ran" : String(cString: strerror(code))
        throw StoreError(.cannotOpen, url: destination, "the backup could not be put in place at \(destination.path) (\(reason)); nothing was left there")
    }

    /// Throws when no backup may be written at `destination`: it (or a companion) exists
    /// (``refuseExisting(_:)``), or it is named as a store's companion
    /// (``StoreCompanionName/refuseAsBackup(_:)``). Checked before the store is opened, too:
    /// reading a WAL store creates its `-wal` and `-shm`.
    static func refuseDestination(_ destination: URL) throws {
        try refuseExisting(destination)
        try StoreCompanionName.refuseAsBackup(destination)
    }

    /// Throws when `destination` or one of its companions exists: a backup never replaces a
    /// file, and a stale `-wal` beside a new copy would be replayed into it.
    static func refuseExisting(_ destination: URL) throws {
        for suffix in ["", "-wal", "-shm", "-journal"] where FileManager.default.fileExists(atPath: destination.path + suffix) {
            throw StoreError(.cannotOpen, url: destination, "\(destination.path + suffix) already exists, and a backup never replaces a file; remove it, or choose another name for the copy")
        }
    }

    /// Removes the temporary files that backups to `destination` left when their process
    /// was killed (the process ID in the name is no longer alive).
    static func removeTemporariesOfDeadProcesses(for destination: URL) {
        let folder = destination.deletingLastPathComponent()
        let prefix = ".\(destination.lastPathComponent).backup-"
        guard let names = try? FileManager.default.contentsOfDirectory(atPath: folder.path) else { return }
        for name in names where name.hasPrefix(prefix) {
            guard let pid = Int32(name.dropFirst(prefix.count).prefix { $0 != "-" }), pid != getpid(),
                  kill(pid, 0) != 0, errno == ESRCH else { continue }
            try? FileManager.default.removeItem(at: folder.appendingPathComponent(name))
        }
    }

    /// The store error for `error`, met while writing the backup at `destination`.
    static func failure(_ error: SQLiteError, writing destination: URL) -> StoreError {
        let kind = StoreError(error, url: destination).code
        return StoreError(kind, url: destination, "writing the backup at \(destination.path) failed (\(error.message)); nothing was left there, and the store was not changed", underlying: error)
    }

    /// Flushes the file at `path` to the disk.
    static func syncFile(_ path: String, destination: URL) throws {
        let descriptor = open(path, O_RDONLY | O_CLOEXEC)
        guard descriptor >= 0, fsync(descriptor) == 0 else {
            let reason = String(cString: strerror(errno))
            if descriptor >= 0 { close(descriptor) }
            throw StoreError(.ioError, url: destination, "the backup could not be flushed to the disk (\(reason)); nothing was left at \(destination.path)")
        }
        close(descriptor)
    }

    /// Flushes `folder`'s entries (a new name in it) to the disk.
    static func syncFolder(_ folder: URL) {
        let descriptor = open(folder.path, O_RDONLY | O_DIRECTORY | O_CLOEXEC)
        guard descriptor >= 0 else { return }
        fsync(descriptor)
        close(descriptor)
    }
}
