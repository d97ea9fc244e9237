import Foundation

/// A store that needs migrating to the model and could not be migrated: a change that cannot
/// be inferred, a stored value that does not fit the new model, or a failed write (a full
/// disk, an I/O error). The store is left exactly as it was, byte for byte.
///
/// For example:
///
/// ```swift
/// do {
///     _ = try PersistentContainer(name: "Company", model: newModel, storeURL: url)
/// } catch let error as MigrationError where error.code == .missingValue {
///     print(error.entity, error.property, error.message)   // "Employee", "email", "..."
/// }
/// ```
public struct MigrationError: Error, CustomStringConvertible, Sendable {
    /// What kind of problem it is.
    public struct Code: Hashable, Sendable, CustomStringConvertible {
        let name: String
        /// A change Core Data's lightweight migration cannot infer (an attribute type change
        /// with no conversion, such as a date that becomes a number).
        public static let notInferable = Code(name: "notInferable")
        /// A stored row has no value for an attribute the new model requires and gives no
        /// default for.
        public static let missingValue = Code(name: "missingValue")
        /// A stored value cannot be converted to the attribute's new type (text that is not
        /// a number, a number out of a narrower integer's range).
        public static let unconvertibleValue = Code(name: "unconvertibleValue")
        /// Writing the migrated store failed (a full disk, an I/O error, the store in use).
        public static let writeFailed = Code(name: "writeFailed")
        /// The model lacks entities, attributes or relationships that hold data in the store,
        /// so migrating would drop that data (``MigrationError/droppedData`` lists it). Give
        /// the model what it lacks, migrate with the model file's versions (an earlier
        /// version that matches the store declares the removal), or open the store with
        /// ``PersistentContainer/Options/allowsDroppingData`` when dropping is meant.
        public static let wouldDropData = Code(name: "wouldDropData")
        /// Another process (or thread) kept the store locked for its own migration longer
        /// than this one waits.
        public static let locked = Code(name: "locked")
        /// The stages of a staged migration (``StagedMigrationManager``) do not form a chain
        /// from the store's version to the model: a gap or a fork between two stages, a
        /// version reached twice, a last stage that does not end at the model, a store at a
        /// version no stage starts from, or no stages at all (``MigrationError/stageChain``
        /// says which stage and which versions). Found before anything is written.
        public static let invalidStages = Code(name: "invalidStages")
        public var description: String { name }
    }

    /// What kind of problem it is.
    public let code: Code
    /// The store being migrated.
    public let url: URL
    /// The entity concerned, when there is one.
    public let entity: String?
    /// The property concerned, when there is one.
    public let property: String?
    /// What went wrong and what to do.
    public let message: String
    /// The SQLite error behind it, if any.
    public let underlying: SQLiteError?
    /// For ``Code/wouldDropData``: what the migration would drop, and how many rows hold it.
    public let droppedData: [DroppedData]
    /// For ``Code/invalidStages``: where the stages stop forming a chain.
    public let stageChain: StageChainProblem?

    /// An error of `code` about migrating the store at `url`.
    public init(_ code: Code, url: URL, entity: String? = nil, property: String? = nil, _ message: String,
                underlying: SQLiteError? = nil, droppedData: [DroppedData] = [], stageChain: StageChainProblem? = nil) {
        self.code = code
        self.url = url
        self.entity = entity
        self.property = property
        self.message = message
        self.underlying = underlying
        self.droppedData = droppedData
        self.stageChain = stageChain
    }

    public var description: String {
        var text = "Migration error (\(code)) at \(url.path)"
        if let entity { text += ", \(entity)\(property.map { ".\($0)" } ?? "")" }
        text += ": \(message); the store was left as it was"
        if let underlying { text += " [\(underlying)]" }
        return text
    }
}
