import Foundation

/// How records are imported: matching, strictness, batching and how numbers read as dates.
///
/// For example:
///
/// ```swift
/// var options = JSONImportOptions(relatedBy: ["Employee": "badge", "Department": "name"])
/// options.batchSize = 5_000        // commit every 5,000 records, memory stays bounded
/// options.strict = true            // a JSON key that names no property is an error
/// ```
public struct JSONImportOptions: Sendable {
    /// What happens to a record, depending on whether its object exists.
    public enum Policy: Sendable {
        /// Update the matching object, or insert a new one (MagicalRecord's import).
        case upsert
        /// Insert records that match no object; skip the others (reason `.exists`).
        case insertOnly
        /// Update records that match an object; skip the others (reason `.notFound`).
        case updateOnly
    }

    /// How a number given for a date attribute is read.
    public enum DateNumbers: Sendable {
        /// Seconds since 1970, or milliseconds when its magnitude is above 10^11 (which as
        /// seconds would be past the year 5000).
        case automatic
        case secondsSince1970
        case millisecondsSince1970
        /// Seconds since 2001-01-01, Core Data's own unit.
        case secondsSinceReferenceDate
    }

    /// Related-by attributes and JSON keys, per entity.
    public var mapping = JSONMapping()
    /// Whether records insert, update, or both (the default).
    public var policy = Policy.upsert
    /// Whether a JSON key that names no property is an error (else it is ignored and
    /// counted in ``JSONImportReport/ignoredKeys``).
    public var strict = false
    /// nil (the default): the whole import is one transaction, all or nothing. A number:
    /// a commit after every `batchSize` records, so memory stays bounded; a failure then
    /// rolls back only its own batch and the error reports the batches already committed.
    public var batchSize: Int?
    /// Called on the import's own queue after each committed batch (once, at the end, for a
    /// one-transaction import) with the records committed so far and the number of records:
    /// for a progress display. It must not touch the importing context.
    public var progress: (@Sendable (_ committed: Int, _ total: Int) -> Void)?
    /// Called on the import's own queue every ``recordProgressInterval`` records applied to
    /// the import's context, and once each batch (or the one transaction) is applied, before
    /// it is saved, with the records applied so far and the number of records: for a
    /// progress display that moves during a long transaction. It must not touch the
    /// importing context.
    public var recordProgress: (@Sendable (_ applied: Int, _ total: Int) -> Void)?
    /// How many records between two ``recordProgress`` calls.
    public var recordProgressInterval = 1_000
    /// How a number given for a date is read.
    public var dateNumbers = DateNumbers.automatic
    /// The key that may name a record's entity (a sub-entity of the imported one); nil for
    /// none.
    public var entityKey: String? = "entity"
    /// The key that may give a record's identity within the import (`"@id": "Category/p8"`,
    /// what export writes for an object no related-by value names): records with the same
    /// identity are one object, created by the first and updated by the others, so a
    /// destination nested under several records is imported once. An identity is matched
    /// within the import only, never against the store's objects. nil for none.
    public var identityKey: String? = "@id"

    /// Options for an import: `relatedBy` and `keys` by entity name (see ``JSONMapping``).
    public init(relatedBy: [String: String] = [:], keys: [String: [String: String]] = [:], policy: Policy = .upsert,
                strict: Bool = false, batchSize: Int? = nil) {
        self.mapping = JSONMapping(relatedBy: relatedBy, keys: keys)
        self.policy = policy
        self.strict = strict
        self.batchSize = batchSize
    }
}
