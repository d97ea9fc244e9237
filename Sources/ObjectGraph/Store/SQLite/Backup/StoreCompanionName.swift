import Foundation

/// The files SQLite keeps beside a store (`-wal`, `-shm`, `-journal`), and the rule that a
/// backup is never written, nor a restore read, under one of their names.
///
/// SQLite finds a store's log by name: a copy named `Store.sqlite-wal` (or `-journal`) beside
/// `Store.sqlite` is taken for that store's log, and the store's next open deletes it as a
/// damaged one (a `-shm` is overwritten by the next open). So the name is refused before
/// anything is written or read.
enum StoreCompanionName {
    /// The suffixes of the files SQLite keeps beside a store.
    static let suffixes = ["-wal", "-shm", "-journal"]

    /// The store whose companion `file` is named as (a SQLite database at its name without
    /// the suffix, or `store` itself, which may not exist yet), with the suffix; nil for a
    /// name of its own.
    static func owner(of file: URL, besides store: URL? = nil) -> (store: String, suffix: String)? {
        for suffix in suffixes where file.path.hasSuffix(suffix) {
            let base = String(file.path.dropLast(suffix.count))
            if isSQLiteDatabase(base) || store.map({ canonicalPath($0.path) == canonicalPath(base) }) == true {
                return (base, suffix)
            }
        }
        return nil
    }

    /// Throws when `destination`, where a backup is about to be written, is named as a
    /// store's companion (``owner(of:besides:)``).
    static func refuseAsBackup(_ destination: URL) throws {
        guard let (store, suffix) = owner(of: destination) else { return }
        throw StoreError(.cannotOpen, url: destination, "\(destination.path) is the name of the \(suffix) file of the store \(store): SQLite would take the copy for that store's log and delete it when the store is next opened. Nothing was written: give the copy another name")
    }

    /// Throws when `copy`, which a restore into `store` is about to read, is named as a
    /// store's companion, `store`'s own included.
    static func refuseAsRestoreSource(_ copy: URL, into store: URL) throws {
        guard let (owner, suffix) = owner(of: copy, besides: store) else { return }
        throw StoreError(.cannotOpen, url: copy, "\(copy.path) is the name of the \(suffix) file of the store \(owner): SQLite takes it for that store's log and deletes it when the store is opened, so the copy is not restored from there. Nothing was changed: rename the copy (a name not ending in -wal, -shm or -journal), then restore from the new name")
    }

    /// Whether the file at `path` begins as a SQLite database does.
    private static func isSQLiteDatabase(_ path: String) -> Bool {
        guard let handle = FileHandle(forReadingAtPath: path) else { return false }
        defer { try? handle.close() }
        return (try? handle.read(upToCount: 16)) == Data("SQLite format 3\0".utf8)
    }

    /// The path with `.`, `..` and links resolved.
    private static func canonicalPath(_ path: String) -> String {
        URL(fileURLWithPath: path).standardizedFileURL.resolvingSymlinksInPath().path
    }
}
