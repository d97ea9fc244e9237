import Foundation
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Keeps migrations of a store from overlapping, across processes and threads: an exclusive
/// `flock` on the store's folder, held from before the store is read until the migrated
/// store has replaced it (or the migration failed).
///
/// The folder, not the store file, is locked: the store file is replaced by a migration (a
/// lock on it would stay with the old file), and closing a descriptor of the store file
/// would release SQLite's own POSIX locks on it in this process. `flock` locks belong to
/// one open descriptor, so two threads of one process exclude each other too, and the
/// kernel releases the lock of a process that dies. Other stores in the same folder wait
/// for a migration only when they need one themselves.
///
/// Not thread-safe: one value is used by the migration that took it.
struct MigrationLock {
    private let descriptor: Int32

    /// The lock of `url`'s folder when it is free; nil when another migration holds it, or
    /// when the folder cannot be opened (then a migration runs without it, as before).
    static func take(for url: URL) -> MigrationLock? {
        guard let descriptor = openFolder(of: url) else { return nil }
        if flock(descriptor, LOCK_EX | LOCK_NB) == 0 { return MigrationLock(descriptor: descriptor) }
        close(descriptor)
        return nil
    }

    /// The lock of `url`'s folder, waiting up to `timeout` seconds for the migration that
    /// holds it; nil when the folder cannot be opened.
    ///
    /// - Throws: ``MigrationError`` `.locked` when the other migration still holds it then.
    static func wait(for url: URL, timeout: TimeInterval) throws -> MigrationLock? {
        guard let descriptor = openFolder(of: url) else { return nil }
        let deadline = Date().addingTimeInterval(timeout)
        while flock(descriptor, LOCK_EX | LOCK_NB) != 0 {
            guard errno == EWOULDBLOCK || errno == EINTR, Date() < deadline else {
                close(descriptor)
                throw MigrationError(.locked, url: url, "another process (or thread) is migrating this store and did not finish within \(Int(timeout)) s; open the store again once it has finished")
            }
            usleep(20_000)
        }
        return MigrationLock(descriptor: descriptor)
    }

    private static func openFolder(of url: URL) -> Int32? {
        let descriptor = open(url.deletingLastPathComponent().path, O_RDONLY | O_DIRECTORY | O_CLOEXEC)
        return descriptor >= 0 ? descriptor : nil
    }

    /// Releases the lock (closing the descriptor releases it).
    func release() {
        close(descriptor)
    }
}
