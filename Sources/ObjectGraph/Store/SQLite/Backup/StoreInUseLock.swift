import CSQLite
import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// The sign that a store file is open in this library, in any journal mode, that a restore
/// looks for before it replaces the store's pages.
///
/// SQLite's own locks show an open connection only in WAL mode (every connection keeps a
/// shared lock on the file while open). A connection to a rollback-journal store
/// (`journal_mode = DELETE`, as a store opened with `.readOnly` keeps it) holds no lock while
/// idle, so SQLite cannot tell a restore that someone has the store open. So each store's
/// writer connection holds a shared lock of its own on one byte of the file that SQLite never
/// locks (past its 512 lock bytes at 1 GiB, `PENDING_BYTE`), and the restore asks for it
/// exclusively, without waiting (``refuseIfHeld(by:store:)``).
///
/// The lock is an open-file-description lock (Linux's `F_OFD_SETLK`) taken on the
/// descriptor SQLite itself reads the file through: it conflicts between any two
/// connections, in this process too, it goes when SQLite closes the file, and no descriptor
/// of the file is ever opened and closed here (closing one would drop the POSIX locks SQLite
/// holds on the file in this process). The descriptor is asked of SQLite's unix VFS
/// (`SQLITE_FCNTL_FILE_POINTER`) and used only once `fstat` shows it is the store's file;
/// with another VFS (or off Linux) nothing is locked, and only SQLite's own locks protect
/// the store. A program that is not this library (a `sqlite3` shell) holding a
/// rollback-journal store open, idle, cannot be seen by anyone (docs/security.md).
enum StoreInUseLock {
    /// The byte locked: 64 KiB past `PENDING_BYTE` (0x40000000), clear of SQLite's lock bytes.
    static let offset: Int64 = 0x4000_0000 + 0x1_0000

    /// The file-control operation a VFS that wraps another answers with the wrapped file
    /// (`sqlite3_file *`), so the lock reaches the unix VFS's file beneath it. SQLite's own
    /// VFSes do not know it (`SQLITE_NOTFOUND`); the tests' fault-injection VFS answers it.
    static let wrappedFileControl: Int32 = 0x4D52_0001

    #if os(Linux)
    private static let ofdSetLock: Int32 = 37   // F_OFD_SETLK (<bits/fcntl-linux.h>, not imported into Swift)
    #endif

    /// Takes the shared lock on the file of `connection`'s main database at `url`, for as long
    /// as SQLite keeps the file open. Best effort: a VFS that is not the unix one, or a file
    /// system that refuses the lock, leaves the store unmarked.
    static func hold(on connection: SQLiteConnection, url: URL) {
        guard let descriptor = descriptor(of: connection, url: url) else { return }
        _ = setLock(descriptor, type: Int16(F_RDLCK))
    }

    /// Throws ``StoreError`` `.locked` when another connection of this library (in this
    /// process or another) holds the store at `store` open; else takes the byte exclusively
    /// on `connection` (the restore's own), which keeps stores from marking themselves open
    /// until it closes.
    static func refuseIfHeld(by connection: SQLiteConnection, store: URL) throws {
        guard let descriptor = descriptor(of: connection, url: store) else { return }
        guard !setLock(descriptor, type: Int16(F_WRLCK)) else { return }
        let reason = errno
        guard reason == EAGAIN || reason == EACCES else { return }
        throw SQLiteBackup.openElsewhere(store, underlying: nil)
    }

    /// Sets a lock of `type` on ``offset`` of `descriptor` without waiting; whether it was set.
    private static func setLock(_ descriptor: Int32, type: Int16) -> Bool {
        #if os(Linux)
        var lock = flock()
        lock.l_type = type
        lock.l_whence = Int16(SEEK_SET)
        lock.l_start = off_t(offset)
        lock.l_len = 1
        lock.l_pid = 0   // required for open-file-description locks
        return fcntl(descriptor, ofdSetLock, &lock) == 0
        #else
        return true
        #endif
    }

    /// The descriptor SQLite's unix VFS reads `connection`'s main database through (beneath
    /// VFSes that wrap it and answer ``wrappedFileControl``), when it is the file at `url`;
    /// nil for another VFS or any doubt.
    private static func descriptor(of connection: SQLiteConnection, url: URL) -> Int32? {
        var name: UnsafeMutablePointer<CChar>?
        guard sqlite3_file_control(connection.handle, "main", SQLITE_FCNTL_VFSNAME, &name) == SQLITE_OK, let name else { return nil }
        let vfs = String(cString: name)
        sqlite3_free(name)
        guard vfs == "unix" || vfs.hasPrefix("unix-") else { return nil }
        var top: UnsafeMutablePointer<sqlite3_file>?
        guard sqlite3_file_control(connection.handle, "main", SQLITE_FCNTL_FILE_POINTER, &top) == SQLITE_OK, var file = top else { return nil }
        // Down a VFS that wraps the unix one (a test's fault injection) to the unix VFS's file.
        for _ in 0..<4 {
            var inner: UnsafeMutablePointer<sqlite3_file>?
            let answered = withUnsafeMutablePointer(to: &inner) { pointer in
                file.pointee.pMethods?.pointee.xFileControl?(file, wrappedFileControl, UnsafeMutableRawPointer(pointer))
            }
            guard answered == SQLITE_OK, let inner else { break }
            file = inner
        }
        // The unix VFS's `unixFile` begins { pMethod, pVfs, pInode, int h }: `h` is the descriptor.
        let descriptor = UnsafeRawPointer(file).load(fromByteOffset: 3 * MemoryLayout<UnsafeRawPointer>.stride, as: Int32.self)
        var opened = stat(), named = stat()
        guard descriptor >= 0, fstat(descriptor, &opened) == 0, stat(url.path, &named) == 0,
              opened.st_dev == named.st_dev, opened.st_ino == named.st_ino else { return nil }
        return descriptor
    }
}
