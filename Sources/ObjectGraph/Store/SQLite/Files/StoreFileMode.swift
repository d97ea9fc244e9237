import Foundation
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Who may read the files and folders a SQLite store creates: the store, its `-wal`,
/// `-shm` and `-journal`, migration copies, backups and their folders.
///
/// Owner-only by default: the library creates the store file itself, empty and `0600`,
/// before SQLite opens it, and SQLite gives the `-wal`, `-shm` and `-journal` files it
/// creates beside a store the store file's own permissions (its unix VFS copies the main
/// file's mode, whatever the umask), so every file of the store is `0600`. Folders are made
/// `0700`. Both are set with `fchmod`/`chmod` after creation, so the process umask cannot
/// loosen (or tighten) them. ``PersistentContainer/Options/keepsProcessUmask`` keeps the
/// umask instead: SQLite and `mkdir` create the files as they always did (usually `0644`
/// and `0755`).
///
/// Files and folders that already exist are never changed.
enum StoreFileMode: Sendable, Equatable {
    /// `0600` files and `0700` folders.
    case ownerOnly
    /// The process umask decides (``PersistentContainer/Options/keepsProcessUmask``).
    case processUmask

    /// The mode `options` ask for.
    init(_ options: PersistentContainer.Options) {
        self = options.contains(.keepsProcessUmask) ? .processUmask : .ownerOnly
    }

    static let ownerOnlyFile: mode_t = 0o600
    static let ownerOnlyFolder: mode_t = 0o700

    /// Creates `folder` and every missing folder above it (`0700` each when owner-only).
    ///
    /// - Throws: ``StoreError`` `.cannotOpen` naming the folder that could not be created.
    func createFolder(_ folder: URL, for store: URL) throws {
        var missing: [String] = []
        var path = folder.standardizedFileURL.path
        while path.count > 1, !FileManager.default.fileExists(atPath: path) {
            missing.append(path)
            path = (path as NSString).deletingLastPathComponent
        }
        for path in missing.reversed() {
            guard mkdir(path, self == .ownerOnly ? Self.ownerOnlyFolder : 0o777) == 0 else {
                if errno == EEXIST { continue }   // another process or thread made it meanwhile
                let reason = String(cString: strerror(errno))
                throw StoreError(.cannotOpen, url: store, "cannot create the folder \(path): \(reason)")
            }
            if self == .ownerOnly { chmod(path, Self.ownerOnlyFolder) }   // whatever the umask took away
        }
    }

    /// When owner-only and nothing is at `path`, creates an empty `0600` file there (SQLite
    /// then opens it as a new database, and gives its companions the same mode). Returns
    /// whether it created the file; a failure is left for SQLite to meet and report.
    ///
    /// The descriptor is closed before SQLite opens the file: no SQLite lock on it exists
    /// yet, so closing it releases nothing.
    @discardableResult
    func createEmptyFile(_ path: String) -> Bool {
        guard self == .ownerOnly else { return false }
        let descriptor = open(path, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC | O_NOFOLLOW, Self.ownerOnlyFile)
        guard descriptor >= 0 else { return false }
        fchmod(descriptor, Self.ownerOnlyFile)
        close(descriptor)
        return true
    }
}
