/// One step of a staged migration (``StagedMigrationManager``): from the store's version
/// `sourceModel` to `destinationModel`, inferred as a lightweight migration, with code of
/// your own before and after it in a custom stage (Core Data's `NSLightweightMigrationStage`
/// and `NSCustomMigrationStage`, SwiftData's `MigrationStage.lightweight` and `.custom`).
///
/// For example, version 3 splits `fullName` into `firstName` and `lastName`:
///
/// ```swift
/// let split = MigrationStage.custom(from: version2, to: version3, didMigrate: { context, old in
///     // `old` reads the store as it was at version 2 (read-only), `context` writes it at version 3.
///     let coordinator = context.persistentStoreCoordinator
///     for person in try old.fetch(FetchRequest<PersonV2>()) {
///         let parts = person.fullName.split(separator: " ", maxSplits: 1)
///         let id = coordinator.managedObjectID(forURIRepresentation: person.objectID.uriRepresentation)!
///         let new = try context.existingObject(with: id) as! PersonV3
///         new.firstName = parts.first.map(String.init) ?? ""
///         new.lastName = parts.count > 1 ? String(parts[1]) : ""
///     }
/// })
/// ```
///
/// A stage is all or nothing: it runs on copies of the store in the store's folder and
/// replaces the store only when its handlers returned and everything is saved, so after any
/// failure or crash the store is wholly at `sourceModel` or wholly at `destinationModel`.
public struct MigrationStage: Sendable {
    /// Called before the lightweight step with a context on the store at the source
    /// version; its changes are saved (and seen by the step) when it returns.
    public typealias WillMigrateHandler = @Sendable (_ context: ManagedObjectContext) throws -> Void
    /// Called after the lightweight step with a context on the store at the destination
    /// version (`context`, writable; its changes are saved when the handler returns) and one
    /// on the store as it was at the source version, after `willMigrate` (`sourceContext`,
    /// read-only): data the new version has no place for is still there to read.
    public typealias DidMigrateHandler = @Sendable (_ context: ManagedObjectContext, _ sourceContext: ManagedObjectContext) throws -> Void

    /// The version the stage migrates from: the stage runs when the store's version hashes
    /// are this model's.
    public let sourceModel: ManagedObjectModel
    /// The version the store is at after the stage.
    public let destinationModel: ManagedObjectModel
    /// What the stage is for (in errors and the forecast).
    public let label: String
    /// Code run before the lightweight step (custom stages only).
    public let willMigrate: WillMigrateHandler?
    /// Code run after the lightweight step (custom stages only).
    public let didMigrate: DidMigrateHandler?

    /// Whether the stage runs code of its own (`willMigrate` or `didMigrate`).
    public var isCustom: Bool { willMigrate != nil || didMigrate != nil }

    /// A stage that migrates a store at `source` to `destination` as lightweight migration
    /// infers it. The stage declares the change, so data `destination` has no place for is
    /// dropped without ``PersistentContainer/Options/allowsDroppingData``.
    public static func lightweight(from source: ManagedObjectModel, to destination: ManagedObjectModel, label: String = "") -> MigrationStage {
        MigrationStage(sourceModel: source, destinationModel: destination, label: label, willMigrate: nil, didMigrate: nil)
    }

    /// A stage that runs `willMigrate` on the store at `source`, migrates it to `destination`
    /// as lightweight migration infers it, then runs `didMigrate` with the store at both
    /// versions. A handler that throws stops the migration, and its error comes out of the
    /// container's initializer unchanged; the store is left at `source`.
    public static func custom(from source: ManagedObjectModel, to destination: ManagedObjectModel, label: String = "",
                              willMigrate: WillMigrateHandler? = nil, didMigrate: DidMigrateHandler? = nil) -> MigrationStage {
        MigrationStage(sourceModel: source, destinationModel: destination, label: label, willMigrate: willMigrate, didMigrate: didMigrate)
    }
}
