import Foundation

/// How JSON keys and related-by attributes map onto a model, shared by import and export so
/// that what one writes the other reads.
///
/// For example:
///
/// ```swift
/// var mapping = JSONMapping()
/// mapping.relatedBy["Department"] = "name"             // upsert departments by name
/// mapping.keys["Employee"] = ["firstName": "given_name"] // attribute -> JSON key
/// ```
///
/// Without an entry, an attribute is read from the JSON key of its own name or its
/// snake_case form (`firstName` or `first_name`) and written under its own name. Entries
/// apply to sub-entities too.
public struct JSONMapping: Sendable {
    /// The unique attribute each entity is matched by (MagicalRecord's `relatedByAttribute`),
    /// by entity name. An entity without one (here, in a sub-entity's parent, or through
    /// ``JSONImportable``) is never matched: each record inserts a new object.
    public var relatedBy: [String: String] = [:]
    /// JSON key per property name, by entity name (MagicalRecord's `mappedKeyName`).
    public var keys: [String: [String: String]] = [:]

    public init(relatedBy: [String: String] = [:], keys: [String: [String: String]] = [:]) {
        self.relatedBy = relatedBy
        self.keys = keys
    }

    /// The related-by attribute of `entity`: an entry for it or a superentity, else the
    /// class's ``JSONImportable/relatedByAttribute``.
    public func relatedByAttribute(of entity: EntityDescription) -> AttributeDescription? {
        var current: EntityDescription? = entity
        while let candidate = current {
            if let name = relatedBy[candidate.name] { return entity.property(named: name) as? AttributeDescription }
            current = candidate.superentity
        }
        guard let importable = entity.managedClass as? any JSONImportable.Type else { return nil }
        return entity.property(named: importable.relatedByAttribute) as? AttributeDescription
    }

    /// The JSON key `property` is written under.
    func jsonKey(for property: PropertyDescription, in entity: EntityDescription) -> String {
        var current: EntityDescription? = entity
        while let candidate = current {
            if let key = keys[candidate.name]?[property.name] { return key }
            current = candidate.superentity
        }
        if let importable = entity.managedClass as? any JSONImportable.Type, let key = importable.jsonKeys[property.name] { return key }
        return property.name
    }
}

/// A `ManagedObject` subclass that names, in code, how JSON maps onto it. An entry in
/// ``JSONMapping`` for the same entity wins.
///
/// ```swift
/// extension Department: JSONImportable {
///     static var relatedByAttribute: String { "name" }
/// }
/// ```
public protocol JSONImportable: ManagedObject {
    /// The unique attribute records are matched by.
    static var relatedByAttribute: String { get }
    /// JSON key per property name, for keys other than the name or its snake_case form.
    static var jsonKeys: [String: String] { get }
}

extension JSONImportable {
    public static var jsonKeys: [String: String] { [:] }
}

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
        /// As the destinations' related-by values (``JSONMapping/relatedBy``), or their
        /// object ID URIs (`x-coredata://...`) when the destination entity has none.
        case keys
        /// As nested objects down to `depth` levels, then as keys. The inverse of the
        /// relationship an object is nested through is left out (the nesting says it).
        case nested(depth: Int)

        /// -1 leaves relationships out, 0 writes them as keys, more nests that many levels.
        var depth: Int {
            switch self {
            case .omitted: return -1
            case .keys: return 0
            case .nested(let levels): return max(0, levels)
            }
        }
    }

    public var mapping = JSONMapping()
    public var dates = DateEncoding.iso8601
    public var decimals = DecimalEncoding.number
    public var relationships = RelationshipEncoding.keys
    /// Whether nil attributes are written as `null` (so that importing the JSON over an
    /// existing object clears them) rather than left out.
    public var includesNullValues = true
    /// The key naming an object's entity, written when the object is of a sub-entity of the
    /// exported entity (a `Manager` among `Employee`s) and read by import; nil for never.
    public var entityKey: String? = "entity"
    /// Whether the JSON text is indented and its keys sorted.
    public var prettyPrinted = false

    public init(mapping: JSONMapping = JSONMapping(), dates: DateEncoding = .iso8601, decimals: DecimalEncoding = .number,
                relationships: RelationshipEncoding = .keys, includesNullValues: Bool = true) {
        self.mapping = mapping
        self.dates = dates
        self.decimals = decimals
        self.relationships = relationships
        self.includesNullValues = includesNullValues
    }
}
