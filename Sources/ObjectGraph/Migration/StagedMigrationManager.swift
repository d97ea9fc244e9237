/// The stages a store migrates through, in order (Core Data's `NSStagedMigrationManager`,
/// SwiftData's `SchemaMigrationPlan`). Give it to the container, which runs it when the
/// store's version is not the model's:
///
/// ```swift
/// let stages = StagedMigrationManager([
///     .lightweight(from: version1, to: version2),
///     .custom(from: version2, to: version3, didMigrate: { context, old in /* ... */ }),
/// ])
/// let container = try PersistentContainer(name: "People", model: version3, location: .file(url),
///                                         stagedMigration: stages)
/// ```
///
/// Opening the store runs, again and again, the first stage whose source is the store's
/// version; a store at a version no stage starts from migrates by lightweight inference to
/// the next version that one does (for a model read from an `.xcdatamodeld` bundle, through
/// the bundle's versions in between), and after the last stage to the container's model.
/// Each stage replaces the store in one atomic step, so a migration stopped by a crash
/// resumes at the stage it was in when the store is opened again.
public struct StagedMigrationManager: Sendable {
    /// The stages, in the order they run.
    public let stages: [MigrationStage]

    /// A migration through `stages`, in this order.
    public init(_ stages: [MigrationStage]) {
        self.stages = stages
    }
}
