import Foundation
import ObjectGraph

// The documented differences between Foundation's own evaluation of a `#Predicate` and the
// stores' answer: the one list the oracle consults, mirroring the table "Where a #Predicate
// differs from Swift" of docs/predicates.md (same ids). A disagreement no entry explains is a
// failure.

/// One object on which a store (or the in-memory evaluation) and Foundation disagree.
struct OracleDisagreement {
    let features: OracleFeatures
    /// The item, or nil when the store threw for the whole predicate.
    let item: OracleItem?
    /// The store that answered, or nil for the in-memory evaluation.
    let store: StoreKind?
    /// What the store threw, if it did.
    let error: Error?

    /// The strings the predicate and the item bring.
    var strings: [String] { features.strings + (item.map(OracleData.strings(of:)) ?? []) }
}

struct OracleDifference: Sendable {
    /// As in the table of docs/predicates.md.
    let id: String
    let summary: String
    let explains: @Sendable (OracleDisagreement) -> Bool

    static let all: [OracleDifference] = [
        OracleDifference(
            id: "D1",
            summary: "strings compare by Unicode scalars in the stores, by Characters (canonical equivalence, grapheme clusters) in Swift",
            explains: { disagreement in
                disagreement.error == nil && disagreement.features.comparesStrings
                    && disagreement.strings.contains { $0.unicodeScalars.count != $0.count }
            }),
        OracleDifference(
            id: "D2",
            summary: "PostgreSQL: Double arithmetic that overflows or underflows is an error (StoreError .serverError, SQLSTATE 22003)",
            explains: { disagreement in
                disagreement.store == .postgres && disagreement.features.computesDoubles
                    && "\(disagreement.error.map { String(describing: $0) } ?? "")".contains("SQLSTATE 22003")
            }),
        OracleDifference(
            id: "D3",
            summary: "PostgreSQL: Double arithmetic with no number (∞ − ∞, 0 × ∞) gives NaN, which PostgreSQL orders above every number and equal to itself; x / 0.0 is nil",
            explains: { disagreement in
                disagreement.store == .postgres && disagreement.error == nil && disagreement.features.computesDoubles
            }),
    ]

    /// The first entry that explains `disagreement`, if any.
    static func explaining(_ disagreement: OracleDisagreement) -> OracleDifference? {
        all.first { $0.explains(disagreement) }
    }
}
