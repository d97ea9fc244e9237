import Foundation

/// How a fetch or an object graph is written as JSON.
public struct JSONExportOptions: Sendable {
    /// How dates are written.
    public enum DateEncoding: Sendable {
        /// `"2024-05-01T09:30:00.250Z"`: UTC, milliseconds when there are any.
        case iso8601
        /// Seconds since 1970 as a number.
        case secondsSince1970
        /// Milliseconds since 1970 as a number (JavaScript's `Date.now()`).
        case millisecondsSince1970
    }

    /// How decimals are written.
    public enum DecimalEncoding: Sendable {
        /// A JSON number (`12.34`).
        case number
        /// A string (`"12.34"`), exact whatever the reader does with numbers.
        case string
    }

    /// How relationships are written.
    public enum RelationshipEncoding: Sendable, Equatable {
        /// Left out.
        case omitted
        /// As the destinations' related-by values (``JSONMapping/relatedBy``); a destination
        /// without one (its entity has no related-by attribute, or its value is nil) is
        /// nested, with its identity (``JSONExportOptions/identityKey``). What is written
        /// imports into another store with the same model and reads as the objects it names.
        case keys
        /// As the destinations' related-by values, or their object ID URIs
        /// (`x-coredata://<store UUID>/Category/p8`) when they have none. A URI names an
        /// object of this store only: importing it into another store fails with
        /// ``JSONImportError/Code/unknownReference``.
        case objectIDs
        /// As nested objects down to `depth` levels, then as ``keys`` does. The inverse of
        /// the relationship an object is nested through is left out (the nesting says it).
        case nested(depth: Int)

        /// -1 leaves relationships out, 0 writes them as keys, more nests that many levels.
        var depth: Int {
            switch self {
            case .omitted: return -1
            case .keys, .objectIDs: return 0
            case .nested(let levels): return max(0, levels)
            }
        }
    }

    /// JSON keys and related-by attributes (for relationships written as keys).
    public var mapping = JSONMapping()
    /// How dates are written: ISO 8601 strings by default.
    public var dates = DateEncoding.iso8601
    /// How decimals are written: numbers by default.
    public var decimals = DecimalEncoding.number
    /// How relationships are written: as keys by default.
    public var relationships = RelationshipEncoding.keys
    /// Whether nil attributes are written as `null` (so that importing the JSON over an
    /// existing object clears them) rather than left out.
    public var includesNullValues = true
    /// The key naming an object's entity, written when the object is of a sub-entity of the
    /// exported entity (a `Manager` among `Employee`s) and read by import; nil for never.
    public var entityKey: String? = "entity"
    /// The key naming an object that no related-by value names (`"@id": "Category/p8"`, its
    /// object ID URI without the store), written when relationships are written as keys or
    /// nested, and read by import: an object nested under several others (a category
    /// shared by many products) is imported once, and a cycle in the graph is written as the
    /// identity of an object already written. nil for never (each nesting then imports as a
    /// new object). Not written for an entity with a property of this name.
    public var identityKey: String? = "@id"
    /// Whether the JSON text is indented and its keys sorted.
    public var prettyPrinted = false

    /// Options for an export; every argument has the default the property documents.
    public init(mapping: JSONMapping = JSONMapping(), dates: DateEncoding = .iso8601, decimals: DecimalEncoding = .number,
                relationships: RelationshipEncoding = .keys, includesNullValues: Bool = true) {
        self.mapping = mapping
        self.dates = dates
        self.decimals = decimals
        self.relationships = relationships
        self.includesNullValues = includesNullValues
    }
}
