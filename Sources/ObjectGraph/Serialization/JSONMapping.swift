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

    /// A mapping with `relatedBy` attribute names and `keys` (property -> JSON key), by entity name.
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
