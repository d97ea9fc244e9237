import Foundation

/// What an import did: the objects it inserted and updated (nested ones included, each
/// once, by permanent object ID), the records it skipped and why, and how it committed.
///
/// For example:
///
/// ```swift
/// let report = try Employee.importJSON(data, relatedBy: "badge")
/// print(report)   // "Imported 120 records: 100 inserted, 15 updated, 5 skipped (5 unchanged), 1 transaction"
/// ```
public struct JSONImportReport: Sendable, CustomStringConvertible {
    /// Why a record changed nothing.
    public struct SkipReason: Hashable, Sendable, CustomStringConvertible {
        let name: String
        /// It matched an object whose values it already held.
        public static let unchanged = SkipReason(name: "unchanged")
        /// It matched an object and the policy is ``JSONImportOptions/Policy/insertOnly``.
        public static let exists = SkipReason(name: "exists")
        /// It matched no object and the policy is ``JSONImportOptions/Policy/updateOnly``.
        public static let notFound = SkipReason(name: "notFound")
        public var description: String { name }
    }

    /// A skipped record: its index in the input, its related-by value, and why.
    public struct Skip: Sendable, CustomStringConvertible {
        /// The record's index in the input.
        public let index: Int
        /// The record's related-by value, as text.
        public let key: String?
        public let reason: SkipReason
        public var description: String { "record \(index)\(key.map { " (\($0))" } ?? ""): \(reason)" }
    }

    /// The number of records in the input.
    public internal(set) var recordCount = 0
    /// Objects created, top-level and nested.
    public internal(set) var inserted: [ObjectID] = []
    /// Existing objects whose values changed: those records matched, then those changed
    /// through an inverse relationship (a member whose team a team record set).
    public internal(set) var updated: [ObjectID] = []
    /// Top-level records that changed nothing, in input order.
    public internal(set) var skipped: [Skip] = []
    /// JSON keys that named no property (ignored unless the import is strict), with how
    /// many records held each, by `Entity.key`.
    public internal(set) var ignoredKeys: [String: Int] = [:]
    /// Transactions committed: 1 for an import in one transaction, one per batch otherwise.
    public internal(set) var committedBatches = 0
    /// The records each batch held, or nil when the import was one transaction.
    public internal(set) var batchSize: Int?
    /// The number of input records in committed batches.
    public internal(set) var committedRecords = 0

    public var description: String {
        var text = "Imported \(recordCount) records: \(inserted.count) inserted, \(updated.count) updated, \(skipped.count) skipped"
        if !skipped.isEmpty {
            let reasons = Dictionary(grouping: skipped, by: \.reason.name).map { "\($0.value.count) \($0.key)" }.sorted()
            text += " (\(reasons.joined(separator: ", ")))"
        }
        if let batchSize {
            text += ", \(committedBatches) batches of up to \(batchSize) records"
        } else {
            text += committedBatches == 1 ? ", 1 transaction" : ", \(committedBatches) transactions"
        }
        if !ignoredKeys.isEmpty { text += "; ignored keys: \(ignoredKeys.keys.sorted().joined(separator: ", "))" }
        return text
    }
}
