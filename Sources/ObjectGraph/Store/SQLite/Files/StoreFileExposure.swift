import Foundation
import Logging
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// A file of a SQLite store that users other than its owner may read or write: the store
/// itself, its `-wal`, `-shm` or `-journal` (see docs/security.md).
///
/// For example, as `managedrecord check` reports it:
///
/// ```swift
/// for file in StoreFileExposure.files(ofStoreAt: url) {
///     print("\(file.path) is open to other users (mode \(file.octalMode)); chmod 600 it")
/// }
/// ```
public struct StoreFileExposure: Sendable, Hashable, CustomStringConvertible {
    /// The file's path.
    public let path: String
    /// Its permission bits (`0o644`).
    public let mode: UInt32
    /// Its owner's user ID.
    public let ownerID: UInt32

    /// The mode as `chmod` writes it: `0644`.
    public var octalMode: String { "0" + String(mode, radix: 8) }

    public var description: String { "\(path) (mode \(octalMode))" }

    /// The permission bits that let group members or other users read or write a file.
    static let openBits: UInt32 = 0o066

    /// The files of the store at `url` (the store, and its `-wal`, `-shm` and `-journal`
    /// when they exist) whose group or other users may read or write them. Empty when every
    /// file is owner-only, or when none can be examined.
    public static func files(ofStoreAt url: URL) -> [StoreFileExposure] {
        ["", "-wal", "-shm", "-journal"].compactMap { suffix in
            var info = stat()
            let path = url.path + suffix
            guard lstat(path, &info) == 0, info.st_mode & S_IFMT == S_IFREG else { return nil }
            let mode = UInt32(info.st_mode) & 0o777
            return mode & openBits == 0 ? nil : StoreFileExposure(path: path, mode: mode, ownerID: UInt32(info.st_uid))
        }
    }

    /// The store paths already warned about in this process.
    private static let warned = Locked<Set<String>>([])

    /// Logs one warning per store path and process when the existing store at `url` is open
    /// to other users (see ``files(ofStoreAt:)``); returns whether it logged.
    @discardableResult
    static func warnOnce(ofStoreAt url: URL, logger: Logger) -> Bool {
        let exposed = files(ofStoreAt: url)
        guard !exposed.isEmpty else { return false }
        let path = url.standardizedFileURL.path
        guard warned.withLock({ $0.insert(path).inserted }) else { return false }
        let list = exposed.map(\.description).joined(separator: ", ")
        logger.warning("other users of this machine may read the store \(path): \(list); `chmod 600` its files (and `chmod 700` its folder) unless they are meant to be shared; stores ManagedRecord creates are owner-only (docs/security.md)")
        return true
    }
}
