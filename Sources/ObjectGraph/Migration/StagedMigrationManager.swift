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
/// The stages must form a chain from the store's version to the container's model: each
/// stage starts where the one before it ends, no version comes twice (a custom stage within
/// one version aside), the last stage ends at the model, and one starts from the store's
/// version. Otherwise opening the store throws ``MigrationError`` ``MigrationError/Code/invalidStages``
/// naming the stage and the versions (``MigrationError/stageChain``) before anything is
/// written, so a migration never leaves a store at a version the app cannot open. With a
/// model read from an `.xcdatamodeld` bundle the bundle's versions are the chain: give only
/// the custom stages, between two of its versions, in order; the versions between them
/// migrate by lightweight inference.
///
/// Opening the store runs, from the first stage whose source is the store's version, each
/// stage in turn. Each stage replaces the store in one atomic step, so a migration stopped
/// by a crash resumes at the stage it was in when the store is opened again.
public struct StagedMigrationManager: Sendable {
    /// The stages, in the order they run.
    public let stages: [MigrationStage]

    /// A migration through `stages`, in this order.
    public init(_ stages: [MigrationStage]) {
        self.stages = stages
    }
}
