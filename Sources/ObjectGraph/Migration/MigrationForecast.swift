/// What migrating a store to a model would do, step by step, computed without changing the
/// store (CoreStore's "forecasting"): which entities and properties each step adds, removes,
/// renames and converts, how many rows it copies, which stored values would not convert (with
/// their keys), and how much room the migration needs in the store's folder.
///
/// ```swift
/// let forecast = try PersistentStoreCoordinator.migrationForecast(model: v3, storeURL: url, stagedMigration: stages)
/// for step in forecast.steps {
///     print(step.label, step.rowsTouched, step.propertiesRenamed, step.failures)
/// }
/// print("needs \(forecast.bytesNeeded) bytes free")
/// ```
///
/// The forecast rehearses the migration on a copy of the store in a hidden folder beside it
/// (removed afterwards; custom stages' handlers run on that copy), so its figures are what the
/// migration does: the same plan, the same rows, every value that does not convert rather
/// than the first. It takes about as long as the migration, and needs the room it reports.
public struct MigrationForecast: Sendable {
    /// A thing that changes its name: `Contact.phone` → `Contact.telephone`.
    public struct Rename: Sendable, Hashable, CustomStringConvertible {
        public let from: String
        public let to: String
        public var description: String { "\(from) → \(to)" }
    }

    /// An attribute whose stored values are converted to another type.
    public struct Conversion: Sendable, Hashable, CustomStringConvertible {
        /// `Entity.property`, as the new model names it.
        public let property: String
        /// The old type (the old model's attribute type, else the column's declared type).
        public let from: String
        /// The new attribute type.
        public let to: String
        public var description: String { "\(property): \(from) → \(to)" }
    }

    /// A stored value the migration cannot convert (or a missing value the new model
    /// requires); the migration itself stops at the first one with ``MigrationError``.
    public struct ValueFailure: Sendable, Hashable, CustomStringConvertible {
        /// ``MigrationError/Code/unconvertibleValue`` or ``MigrationError/Code/missingValue``.
        public let code: MigrationError.Code
        public let entity: String
        public let property: String
        /// The row's key (`Z_PK`).
        public let key: Int64
        /// The stored value, as text (`"abc"`, `NULL`).
        public let value: String
        public var description: String { "\(entity).\(property) of the row with Z_PK \(key): \(value) (\(code))" }
    }

    /// One step: a stage, or one inferred version step (each version of a bundle chain).
    public struct Step: Sendable {
        /// The stage's label, else what kind of step it is.
        public let label: String
        /// Whether a custom stage's handlers run in this step.
        public let isCustom: Bool
        public let entitiesAdded: [String]
        public let entitiesRemoved: [String]
        public let entitiesRenamed: [Rename]
        /// `Entity.property`, each.
        public let propertiesAdded: [String]
        public let propertiesRemoved: [String]
        public let propertiesRenamed: [Rename]
        public let propertiesConverted: [Conversion]
        /// Rows the step copies, over every entity kept (what its progress reports as the total).
        public let rowsTouched: Int
        /// Rows copied, by entity of the new model.
        public let rowsByEntity: [String: Int]
        /// Every value that would not convert.
        public let failures: [ValueFailure]
        /// Data the step drops (entities and properties that hold values and that the new
        /// version has no place for), with the rows that hold it.
        public let droppedData: [MigrationError.DroppedData]
        /// Whether the migration refuses this step (``MigrationError/Code/wouldDropData``):
        /// it would drop `droppedData` that neither the versions nor the options allow to drop.
        public let wouldBeRefused: Bool
        /// The size of the file the step writes.
        public let bytesWritten: Int64
        /// The room the step holds in the store's folder while it runs (its copies).
        public let bytesHeld: Int64
    }

    /// The steps, in order; empty when the store needs no migration.
    public let steps: [Step]
    /// The size of the store file (with its `-wal`).
    public let storeBytes: Int64
    /// The free room the migration needs in the store's folder: the most its copies hold at once.
    public var bytesNeeded: Int64 { steps.map(\.bytesHeld).max() ?? 0 }
    /// The error that would stop the migration before its end (a change that cannot be
    /// inferred, a handler's error as text), with the steps before it; nil when it would run
    /// to the end. Values that do not convert are in ``Step/failures`` instead.
    public let stoppedBy: String?

    /// Whether the store needs migrating at all.
    public var needsMigration: Bool { !steps.isEmpty || stoppedBy != nil }
    /// Whether the migration would complete: no step stops it, no value fails, nothing refused.
    public var wouldSucceed: Bool { stoppedBy == nil && steps.allSatisfy { $0.failures.isEmpty && !$0.wouldBeRefused } }
}
