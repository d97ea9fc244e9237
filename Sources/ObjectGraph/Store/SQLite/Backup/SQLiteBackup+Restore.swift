import CSQLite
import Foundation

extension SQLiteBackup {
    /// Puts the content of the store copy at `copyURL` into the store at `store`.
    ///
    /// The copy must be a Core Data store that passes SQLite's integrity check. Without a
    /// store at `store`, the copy is written there as a backup is (``write(from:to:fileMode:progress:)``:
    /// complete or absent). Else the copy is first staged in a temporary file beside the
    /// store (``stage(_:for:in:)``: rebuilt to the store's page size when it differs,
    /// its history numbered on past the store's), then the store's pages are replaced by the
    /// staged ones in one transaction on the store itself, so a restore killed half-way leaves
    /// the store as it was; the store keeps its permissions.
    ///
    /// A store open anywhere else is refused: the restore first takes SQLite's own exclusive
    /// lock on the store (`locking_mode = EXCLUSIVE`, then `BEGIN EXCLUSIVE` without
    /// waiting). Every connection to a WAL store (another process's, another container's in
    /// this process, a `sqlite3` shell) holds a shared lock on the file while it is open, even
    /// idle, so the lock is granted only when nobody else has the store open; a store of this
    /// library in a rollback-journal mode holds ``StoreInUseLock`` instead. The lock is held
    /// until the restore is done, so nobody opens the store half-restored either.
    ///
    /// - Throws: ``StoreError`` `.locked` when the store is open elsewhere; `.cannotOpen` for a
    ///   copy named as a store's `-wal`, `-shm` or `-journal` (``StoreCompanionName``), which
    ///   the store's open would delete; `.notADatabase` or `.notACoreDataStore` for a copy that
    ///   is not a sound store; the error SQLite met.
    static func restore(from copyURL: URL, to store: URL, fileMode: StoreFileMode, progress: BackupProgressHandler?) throws {
        try StoreCompanionName.refuseAsRestoreSource(copyURL, into: store)
        let copy = try openStoreFile(copyURL, checkingIntegrity: true)
        defer { copy.close() }
        guard FileManager.default.fileExists(atPath: store.path) else {
            try write(from: copy, to: store, fileMode: fileMode, progress: progress)
            return
        }
        var copyInfo = stat(), storeInfo = stat()
        if stat(copyURL.path, &copyInfo) == 0, stat(store.path, &storeInfo) == 0,
           copyInfo.st_dev == storeInfo.st_dev, copyInfo.st_ino == storeInfo.st_ino {
            throw StoreError(.cannotOpen, url: store, "the backup and the store are the same file; give the path of the copy to restore from")
        }
        try SQLiteFileAccess.check(store, readOnly: false)
        let target: SQLiteConnection
        do {
            target = try SQLiteConnection(path: store.path, create: false)
        } catch let error as SQLiteError {
            throw SQLiteFileAccess.diagnose(error, url: store, readOnly: false, fallback: StoreError(.cannotOpen, url: store, "cannot open the store to restore into it", underlying: error))
        }
        defer { target.close() }
        try takeExclusiveLock(on: target, store: store)
        try StoreInUseLock.refuseIfHeld(by: target, store: store)
        removeTemporariesOfDeadProcesses(for: store)
        let staging = temporaryURL(beside: store)
        defer {
            for suffix in ["", "-journal"] { try? FileManager.default.removeItem(atPath: staging.path + suffix) }
        }
        do {
            fileMode.createEmptyFile(staging.path)
            let staged = try SQLiteConnection(path: staging.path)
            defer { staged.close() }
            try stage(copy, for: target, in: staged)
            try withSnapshot(of: staged) { try copyPages(from: staged, to: target, progress: progress) }
        } catch let error as SQLiteError {
            let kind = StoreError(error, url: store).code
            throw StoreError(kind, url: store, "restoring \(copyURL.path) into the store failed (\(error.message)); the store is as it was before", underlying: error)
        }
    }

    /// Fills `staged` (an empty temporary database) with the copy's pages, as the store at
    /// `target` will hold them:
    ///
    /// - in the store's page size: SQLite's backup API cannot copy pages of another size into
    ///   a WAL database (it refuses with `SQLITE_READONLY`, "attempt to write a readonly
    ///   database", which said nothing of the cause), so a copy of another page size is
    ///   rebuilt (`VACUUM`) to the store's first;
    /// - with the copy's history renumbered past every number the store (or the copy) handed
    ///   out, one number left unused (``HistoryDatabase/moveHistory(past:)``): every history
    ///   token taken before the restore reads as expired instead of skipping the transactions
    ///   saved after it, and tokens of the restored transactions, read after the restore, are
    ///   not confused with the older tokens of the same numbers.
    static func stage(_ copy: SQLiteConnection, for target: SQLiteConnection, in staged: SQLiteConnection) throws {
        // The temporary is nobody's database until its pages go into the store: no journal.
        try staged.execute("PRAGMA journal_mode = OFF")
        try withSnapshot(of: copy) { try copyPages(from: copy, to: staged, progress: nil) }
        let pageSize = try target.scalar("PRAGMA page_size")
        if let pageSize, try staged.scalar("PRAGMA page_size") != pageSize, case .integer(let size) = pageSize {
            try staged.execute("PRAGMA page_size = \(size)")
            try staged.execute("VACUUM")
        }
        let issued = try target.lastIssuedHistoryNumber()
        let copied = try staged.lastIssuedHistoryNumber()
        if issued > 0 || copied > 0 {
            try staged.writeTransaction { try staged.moveHistory(past: max(issued, copied) + 1) }
        }
    }

    /// The ``StoreError`` `.locked` of a restore into a store that is open elsewhere.
    static func openElsewhere(_ store: URL, underlying: (any Error)?) -> StoreError {
        StoreError(.locked, url: store, "the store is open in another process (or in another container or connection of this one), and restoring would change it under that program; close every program using the store, then restore again", underlying: underlying)
    }

    /// Takes SQLite's exclusive lock on `connection`'s database and keeps it until the
    /// connection closes; refuses at once when any other connection has the database open.
    static func takeExclusiveLock(on connection: SQLiteConnection, store: URL) throws {
        sqlite3_busy_timeout(connection.handle, 0)
        defer { sqlite3_busy_timeout(connection.handle, SQLiteConnection.busyTimeout) }
        do {
            try connection.execute("PRAGMA locking_mode = EXCLUSIVE")
            try connection.execute("BEGIN EXCLUSIVE")
            try connection.execute("COMMIT")
        } catch let error as SQLiteError where [SQLITE_BUSY, SQLITE_LOCKED].contains(error.primaryCode) {
            throw openElsewhere(store, underlying: error)
        } catch let error as SQLiteError {
            throw SQLiteFileAccess.diagnose(error, url: store, readOnly: false, fallback: StoreError(.cannotOpen, url: store, "cannot lock the store to restore into it", underlying: error))
        }
    }

    /// A read-only connection to the Core Data store at `url` (a store to back up, or a copy
    /// to restore), checked with `PRAGMA integrity_check` when `checkingIntegrity`.
    static func openStoreFile(_ url: URL, checkingIntegrity: Bool) throws -> SQLiteConnection {
        guard FileManager.default.fileExists(atPath: url.path) else {
            throw StoreError(.cannotOpen, url: url, "there is no file at \(url.path); check the path")
        }
        try SQLiteFileAccess.check(url, readOnly: true)
        let connection: SQLiteConnection
        do {
            connection = try SQLiteFileAccess.openReadOnly(url).connection
        } catch let error as SQLiteError {
            throw SQLiteFileAccess.diagnose(error, url: url, readOnly: true, fallback: StoreError(.cannotOpen, url: url, "cannot open the file", underlying: error))
        }
        do {
            guard try connection.tableExists("Z_METADATA") else {
                throw StoreError(.notACoreDataStore, url: url, "the database has no Z_METADATA table: it is not a Core Data store, so it is not copied")
            }
            if checkingIntegrity {
                var problems: [String] = []
                try connection.query("PRAGMA integrity_check") { problems.append($0.text(0)) }
                guard problems == ["ok"] else {
                    throw StoreError(.notADatabase, url: url, "the copy fails SQLite's integrity check (\(problems.prefix(3).joined(separator: "; "))), so it is not restored; restore another copy")
                }
            }
        } catch let error as SQLiteError {
            connection.close()
            throw SQLiteFileAccess.diagnose(error, url: url, readOnly: true, fallback: StoreError(.cannotOpen, url: url, "cannot read the file", underlying: error))
        } catch {
            connection.close()
            throw error
        }
        return connection
    }
}
