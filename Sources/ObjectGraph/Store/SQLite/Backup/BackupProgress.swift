/// How far a backup or a restore has got, reported to the `progress` handler given to
/// ``PersistentContainer/backup(to:progress:)``, ``PersistentContainer/backup(storeAt:to:options:progress:)``
/// or ``PersistentContainer/restore(storeAt:from:options:progress:)``.
///
/// For example:
///
/// ```swift
/// try container.backup(to: copy) { progress in
///     print("\(Int(progress.fractionCompleted * 100)) %")
/// }
/// ```
///
/// The handler runs on the calling thread after each step of pages is copied (and once
/// more at the end).
public struct BackupProgress: Sendable, Hashable {
    /// Database pages copied so far.
    public var completedPages: Int
    /// Pages the copy will hold (the store's pages at the snapshot the backup reads).
    public var totalPages: Int
    /// Bytes in a page.
    public var pageSize: Int

    /// A report of `completedPages` of `totalPages` pages of `pageSize` bytes.
    public init(completedPages: Int, totalPages: Int, pageSize: Int) {
        self.completedPages = completedPages
        self.totalPages = totalPages
        self.pageSize = pageSize
    }

    /// `completedPages / totalPages`, 1 for an empty store.
    public var fractionCompleted: Double {
        totalPages == 0 ? 1 : Double(completedPages) / Double(totalPages)
    }
}

/// Called with the progress of a backup or restore (see ``BackupProgress``).
public typealias BackupProgressHandler = @Sendable (BackupProgress) -> Void
