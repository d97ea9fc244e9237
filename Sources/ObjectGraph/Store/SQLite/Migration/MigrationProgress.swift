/// How far a store migration has got, reported to the `migrationProgress` handler given to
/// ``PersistentContainer`` or ``PersistentStoreCoordinator``.
///
/// For example:
///
/// ```swift
/// let container = try PersistentContainer(name: "Company", model: model, location: .file(url),
///                                         migrationProgress: { progress in
///     print("\(progress.entity ?? "done"): \(progress.completedRows) of \(progress.totalRows) rows")
/// })
/// ```
///
/// The handler runs on the thread that opens the store, after each chunk of rows is copied
/// (and once more when the migration is complete); it is not called when no migration is
/// needed.
public struct MigrationProgress: Sendable, Hashable {
    /// Rows copied so far, over every entity.
    public var completedRows: Int
    /// Rows the store holds, over every entity that is kept.
    public var totalRows: Int
    /// The entity being copied; nil in the final report.
    public var entity: String?
    /// A report of `completedRows` of `totalRows`, while copying `entity` (nil at the end).
    public init(completedRows: Int, totalRows: Int, entity: String?) {
        self.completedRows = completedRows
        self.totalRows = totalRows
        self.entity = entity
    }

    /// `completedRows / totalRows`, 1 for an empty store.
    public var fractionCompleted: Double {
        totalRows == 0 ? 1 : Double(completedRows) / Double(totalRows)
    }
}

/// Called with the progress of a store migration (see ``MigrationProgress``).
public typealias MigrationProgressHandler = @Sendable (MigrationProgress) -> Void
