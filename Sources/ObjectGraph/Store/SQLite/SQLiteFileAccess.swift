import CSQLite
import Foundation

/// What the file system lets this process do with a SQLite store path, so that a store that cannot
/// be opened says why (a directory, no permission, a read-only file, a read-only folder)
/// instead of what SQLite makes of it ("unable to open database file", "not a database").
enum SQLiteFileAccess {
    /// Throws the ``StoreError`` saying what keeps the store at `url` from being opened (for
    /// writing unless `readOnly`); returns when nothing is in the way.
    static func check(_ url: URL, readOnly: Bool) throws {
        let path = url.path
        let folder = url.deletingLastPathComponent().path
        var info = stat()
        guard stat(path, &info) == 0 else {
            let reason = errno
            if reason == EACCES {
                throw StoreError(.permissionDenied, url: url, "this process (uid \(geteuid())) may not reach the store: a folder of its path denies search permission (\(describe(reason))); grant it (chmod +x) or run as a user who may")
            }
            if readOnly {
                throw StoreError(.cannotOpen, url: url, "there is no store at this path, and a store opened with options: [.readOnly] is never created; check the path, or open it without .readOnly to create it")
            }
            if let denied = denial(folder, W_OK), FileManager.default.fileExists(atPath: folder) {
                throw StoreError(.readOnlyFolder, url: url, "the store does not exist yet and cannot be created: the folder \(folder) cannot be written by this process (\(denied)); make the folder writable or choose another location")
            }
            return
        }
        if info.st_mode & S_IFMT == S_IFDIR {
            throw StoreError(.isADirectory, url: url, "the store path is a directory, not a file; pass the path of the store file itself, for example \(url.appendingPathComponent("Store.sqlite").path)")
        }
        if let denied = denial(path, R_OK) {
            throw StoreError(.permissionDenied, url: url, "this process (uid \(geteuid())) has no permission to read the store file (mode \(mode(info)), owner uid \(info.st_uid): \(denied)); grant read permission (chmod, chown) or run as its owner")
        }
        guard !readOnly else { return }
        if let denied = denial(path, W_OK) {
            throw StoreError(.readOnlyFile, url: url, "the store file is read-only for this process (mode \(mode(info)), owner uid \(info.st_uid): \(denied)); make it writable (chmod u+w, or chown it to this user), or open it with options: [.readOnly] to read it")
        }
        if let denied = denial(folder, W_OK), !companionsWritable(path) {
            throw StoreError(.readOnlyFolder, url: url, "the folder \(folder) cannot be written by this process (\(denied)), and SQLite must create the store's -wal and -shm files beside it; make the folder writable, move the store to a writable folder, or open it with options: [.readOnly] to read it")
        }
    }

    /// The store error for `error`, which SQLite reported while opening `url`: what the file
    /// system says when it is in the way, else `fallback`.
    static func diagnose(_ error: SQLiteError, url: URL?, readOnly: Bool, fallback: StoreError) -> StoreError {
        switch error.primaryCode {
        case SQLITE_NOTADB, SQLITE_CORRUPT:
            return StoreError(.notADatabase, url: url, "the file is not a SQLite database, or it is corrupt; move it away, or restore it from a backup", underlying: error)
        case SQLITE_BUSY, SQLITE_LOCKED:
            return StoreError(.locked, url: url, "another process (or another connection) holds a lock on the store and did not release it within the busy timeout (10 s); close the other program using the file (a sqlite3 shell, a backup, another copy of this application), or wait and try again", underlying: error)
        default:
            guard let url else { return fallback }
            do { try check(url, readOnly: readOnly) } catch let found as StoreError {
                return StoreError(found.code, url: url, found.message, underlying: error)
            } catch { return fallback }
            return fallback
        }
    }

    /// Why this process may not access `path` in `mode` (`R_OK`, `W_OK`), or nil when it may.
    /// Asks the kernel with the effective IDs, so root, immutable files and read-only file
    /// systems all count.
    private static func denial(_ path: String, _ mode: Int32) -> String? {
        faccessat(AT_FDCWD, path, mode, AT_EACCESS) == 0 ? nil : describe(errno)
    }

    /// Whether the `-wal` and `-shm` files exist and can be written (then a read-only folder
    /// is no obstacle).
    private static func companionsWritable(_ path: String) -> Bool {
        ["-wal", "-shm"].allSatisfy { denial(path + $0, W_OK) == nil }
    }

    private static func describe(_ code: Int32) -> String { String(cString: strerror(code)) }

    private static func mode(_ info: stat) -> String { "0" + String(info.st_mode & 0o777, radix: 8) }

    // MARK: Opening

    /// The writer connection (an in-memory database without `url`), the path reader
    /// connections open, and whether the store file was created now. The folder (and a
    /// missing store file) is created unless `readOnly`, as `fileMode` says; what the file
    /// system keeps from opening the store is reported for what it is before SQLite tries.
    static func openWriter(url: URL?, readOnly: Bool,
                           fileMode: StoreFileMode = .ownerOnly) throws -> (connection: SQLiteConnection, readerPath: String, created: Bool) {
        guard let url else {
            do { return (try SQLiteConnection(path: ":memory:"), ":memory:", true) }
            catch let error as SQLiteError { throw StoreError(.cannotOpen, url: nil, "cannot open an in-memory database", underlying: error) }
        }
        if !readOnly {
            try fileMode.createFolder(url.deletingLastPathComponent(), for: url)
        }
        try check(url, readOnly: readOnly)
        do {
            if readOnly {
                let (connection, path) = try openReadOnly(url)
                return (connection, path, false)
            }
            let created = fileMode.createEmptyFile(url.path)
            let connection = try SQLiteConnection(path: url.path)
            if sqlite3_db_readonly(connection.handle, "main") == 1 {   // SQLite fell back to reading only
                connection.close()
                throw StoreError(.readOnlyFile, url: url, "SQLite can open the store only for reading (a read-only file or file system); make it writable, or open it with options: [.readOnly] to read it")
            }
            return (connection, url.path, created)
        } catch let error as SQLiteError {
            throw diagnose(error, url: url, readOnly: readOnly, fallback: StoreError(
                .cannotOpen, url: url, "cannot open the database file; check that the path exists and is writable", underlying: error))
        }
    }

    /// A read-only connection to the store at `url` (`SQLITE_OPEN_READONLY`), and the path
    /// its readers open with.
    ///
    /// A WAL store needs its `-shm` file even to be read. When it cannot be created (a
    /// read-only folder) and no `-wal` file holds pages not yet in the store, the store is
    /// opened `immutable=1`: complete, since everything is in the main file, and safe, since
    /// a writer could not create the `-wal` either. Else the error says what to do.
    static func openReadOnly(_ url: URL) throws -> (connection: SQLiteConnection, path: String) {
        let shared = uri(url, "mode=ro")
        let connection = try SQLiteConnection(path: shared, readOnly: true, create: false)
        do {
            _ = try connection.scalar("SELECT count(*) FROM sqlite_master")
            return (connection, shared)
        } catch let error as SQLiteError where [SQLITE_READONLY, SQLITE_CANTOPEN].contains(error.primaryCode) {
            connection.close()
            let wal = (try? FileManager.default.attributesOfItem(atPath: url.path + "-wal")[.size] as? Int) ?? 0
            guard wal == 0 else {
                throw StoreError(.readOnlyFolder, url: url, "the store's -wal file holds changes not yet in the store, and its -shm file cannot be created in this folder to read them; open the store once where its folder is writable (that moves the changes into the store), then read it with options: [.readOnly]", underlying: error)
            }
            let immutable = uri(url, "immutable=1")
            return (try SQLiteConnection(path: immutable, readOnly: true, create: false), immutable)
        }
    }

    /// A connection that reads the store at `url` (its metadata, to decide whether to open
    /// it) and, closed, leaves its folder as it found it.
    ///
    /// Reading a WAL store creates its `-wal` and `-shm`, and a read-only connection cannot
    /// remove them when it closes, so every look at a WAL store whose companions were absent
    /// left both behind, even when the look refused the store (a model mismatch). So such a
    /// store, when its file and folder can be written, is opened read-write and only read: SQLite then
    /// removes the two files as the last connection closes, as for every writer, after its
    /// own lock shows that no other connection has the store open. Any other store is opened
    /// as ``openReadOnly(_:)`` opens it (a rollback-journal store gets no companion).
    static func openForInspection(_ url: URL) throws -> SQLiteConnection {
        let companionsAbsent = ["-wal", "-shm"].allSatisfy { !FileManager.default.fileExists(atPath: url.path + $0) }
        if companionsAbsent, isInWALMode(url), denial(url.path, W_OK) == nil,
           denial(url.deletingLastPathComponent().path, W_OK) == nil,
           let connection = try? SQLiteConnection(path: url.path, create: false) {
            return connection
        }
        return try openReadOnly(url).connection
    }

    /// Whether the database file at `url` says, in its header (bytes 18 and 19), that it is in
    /// WAL mode.
    private static func isInWALMode(_ url: URL) -> Bool {
        guard let handle = FileHandle(forReadingAtPath: url.path) else { return false }
        defer { try? handle.close() }
        guard let header = try? handle.read(upToCount: 20), header.count == 20 else { return false }
        return header[header.startIndex + 18] == 2 && header[header.startIndex + 19] == 2
    }

    /// The `file:` URI that opens the store at `url` for reading only (for `ATTACH`).
    static func readOnlyURI(_ url: URL) -> String {
        uri(url, "mode=ro")
    }

    /// A `file:` URI for SQLite with `query`.
    private static func uri(_ url: URL, _ query: String) -> String {
        var allowed = CharacterSet.alphanumerics
        allowed.insert(charactersIn: "-._~/")
        return "file:\(url.path.addingPercentEncoding(withAllowedCharacters: allowed) ?? url.path)?\(query)"
    }
}
