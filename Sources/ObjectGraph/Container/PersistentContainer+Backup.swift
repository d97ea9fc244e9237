import Foundation

extension PersistentContainer {
    /// Writes a copy of the store at `destination` while the store stays in use: other
    /// contexts, containers and processes go on reading and saving.
    ///
    /// The copy is one consistent snapshot: the state of the store after some save, with
    /// every save committed before it and none after, including the store's metadata
    /// (`Z_METADATA`, `Z_PRIMARYKEY`). It opens as a store, and it is owner-only (`0600`,
    /// unless the container was opened with ``Options/keepsProcessUmask``). It is written
    /// under a temporary name beside `destination`, synced, then given its name, so
    /// `destination` is never half-written, even when the process is killed. SQLite's online
    /// backup API copies the pages, reading them inside one read transaction (see
    /// docs/security.md).
    ///
    /// ```swift
    /// try container.backup(to: URL(fileURLWithPath: "/backups/Company-2026-11-27.sqlite")) { progress in
    ///     print("\(Int(progress.fractionCompleted * 100)) %")
    /// }
    /// ```
    ///
    /// Cost: a read of every page of the store, written once to the copy; saves are not
    /// blocked, but the store's `-wal` cannot be emptied past the snapshot until the copy is
    /// done. An in-memory store is copied too (saves wait while it is).
    ///
    /// - Parameters:
    ///   - destination: the copy's path; its folder is created (`0700`) when missing.
    ///   - progress: called on this thread after each step of pages.
    /// - Throws: ``StoreError`` `.cannotOpen` when `destination` (or its `-wal`, `-shm` or
    ///   `-journal`) exists, as a backup never replaces a file; when `destination` is named as
    ///   a store's `-wal`, `-shm` or `-journal` (`Store.sqlite-wal` beside `Store.sqlite`, this
    ///   store's or another's), which SQLite would take for that store's log and delete at its
    ///   next open (nothing is written); and for a database server
    ///   store (back it up with the server's own tools, such as `pg_dump`); `.diskFull`,
    ///   `.ioError` and the like when writing fails (nothing is left at `destination`).
    public func backup(to destination: URL, progress: BackupProgressHandler? = nil) throws {
        guard let store = persistentStoreCoordinator.store as? SQLiteStore else {
            throw StoreError(.cannotOpen, url: storeURL, "a database server store is backed up with the server's own tools (pg_dump), not with backup(to:)")
        }
        try store.backup(to: destination, progress: progress)
    }

    /// Writes a copy of the store file at `store` at `destination`, as ``backup(to:progress:)``
    /// does, without a model or a container: the store may be in use by other processes.
    ///
    /// - Parameter options: ``Options/keepsProcessUmask`` to create the copy with the
    ///   process umask; other options are ignored.
    /// - Throws: ``StoreError`` as ``backup(to:progress:)``, and `.notACoreDataStore` when
    ///   `store` is not a Core Data store.
    public static func backup(storeAt store: URL, to destination: URL, options: Options = [],
                              progress: BackupProgressHandler? = nil) throws {
        try SQLiteBackup.refuseDestination(destination)   // before the store is read: nothing is created
        let source = try SQLiteBackup.openStoreFile(store, checkingIntegrity: false)
        defer { source.close() }
        try SQLiteBackup.write(from: source, to: destination, fileMode: StoreFileMode(options), progress: progress)
    }

    /// Puts the content of the copy at `copy` (made by ``backup(to:progress:)`` or any copy
    /// of a store) into the store file at `store`.
    ///
    /// The copy must pass SQLite's integrity check and be a Core Data store. When a store
    /// exists at `store`, its pages are replaced in one transaction (killed half-way, the
    /// store is as it was; it keeps its permissions); else the copy is written there as a
    /// backup is (complete or absent, owner-only unless ``Options/keepsProcessUmask``).
    ///
    /// Refused while the store is open anywhere else, in this process or another: the
    /// restore takes SQLite's own exclusive lock on the store without waiting, which every
    /// open connection to the store prevents, and holds it until it is done.
    ///
    /// ```swift
    /// try PersistentContainer.restore(storeAt: storeURL, from: backupURL)   // no container open on storeURL
    /// ```
    ///
    /// - Throws: ``StoreError`` `.locked` when the store is open elsewhere (nothing is
    ///   changed); `.cannotOpen` for a copy named as a store's `-wal`, `-shm` or `-journal`
    ///   (`store`'s own, or another existing store's), which the store's open would delete:
    ///   rename it first; `.notADatabase` or `.notACoreDataStore` for a copy that is not a sound
    ///   store; the error met writing.
    public static func restore(storeAt store: URL, from copy: URL, options: Options = [],
                               progress: BackupProgressHandler? = nil) throws {
        try SQLiteBackup.restore(from: copy, to: store, fileMode: StoreFileMode(options), progress: progress)
    }
}
