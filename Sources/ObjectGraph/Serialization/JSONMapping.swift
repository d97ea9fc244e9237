import Foundation

/// How JSON keys, related-by attributes and date formats map onto a model, shared by import
/// and export so that what one writes the other reads.
///
/// For example:
///
/// ```swift
/// var mapping = JSONMapping()
/// mapping.relatedBy["Department"] = "name"                    // upsert departments by name
/// mapping.keys["Employee"] = ["firstName": "given_name",      // attribute -> JSON key
///                             "city": "address.city"]         // or key path into a nested object
/// mapping.relationshipRelatedBy["Team"] = ["members": "badge"] // a relationship's destinations by badge
/// mapping.dateFormats["Employee"] = ["hired": "M/d/yyyy"]     // a Unicode date pattern, read in UTC
/// ```
///
/// Without an entry, what an Xcode model file's user info says is used (MagicalRecord's
/// `mappedKeyName`, `relatedByAttribute`, `dateFormat`; see docs/json.md), and without one
/// there, an attribute is read from the JSON key of its own name or its snake_case form
/// (`firstName` or `first_name`) and written under its own name. Entries apply to
/// sub-entities too. A key with a dot is a key path (`address.city`): the import reads it
/// from nested objects and the export writes the nested objects back.
public struct JSONMapping: Sendable {
    /// The unique attribute each entity is matched by (MagicalRecord's entity
    /// `relatedByAttribute`), by entity name. An entity without one (here, in a sub-entity's
    /// parent, through ``JSONImportable``, or in the model file's user info) is never
    /// matched: each record inserts a new object.
    public var relatedBy: [String: String] = [:]
    /// JSON key or key path per property name, by entity name (MagicalRecord's `mappedKeyName`).
    public var keys: [String: [String: String]] = [:]
    /// The attribute of the destination that a relationship's items are matched by, by
    /// entity name, then relationship name (MagicalRecord's relationship `relatedByAttribute`).
    /// It wins over the destination entity's own related-by attribute for that relationship.
    public var relationshipRelatedBy: [String: [String: String]] = [:]
    /// A Unicode date pattern (`M/d/yyyy H-mm-ss`) per date attribute, by entity name, then
    /// attribute name (MagicalRecord's `dateFormat`): a string is read with it, in UTC, in the
    /// `en_US_POSIX` locale. `UnixTime` reads a number as milliseconds since 1970.
    public var dateFormats: [String: [String: String]] = [:]
    /// Whether a model file's user info entries (`mappedKeyName`, `mappedKeyName.1`…,
    /// `relatedByAttribute`, `dateFormat`, `useDefaultValueWhenNotPresent`,
    /// `excludeFromImport`) are read. Entries given in code win over them either way.
    public var readsModelUserInfo = true

    /// A mapping with `relatedBy` attribute names and `keys` (property -> JSON key), by entity name.
    public init(relatedBy: [String: String] = [:], keys: [String: [String: String]] = [:]) {
        self.relatedBy = relatedBy
        self.keys = keys
    }

    /// The related-by attribute of `entity`: an entry for it or a superentity, else the
    /// class's ``JSONImportable/relatedByAttribute``, else the model file's `relatedByAttribute`
    /// user info entry of the entity or a superentity.
    public func relatedByAttribute(of entity: EntityDescription) -> AttributeDescription? {
        if let name = relatedByName(of: entity) { return entity.property(named: name) as? AttributeDescription }
        return nil
    }

    /// The related-by attribute's name for `entity`, by the order of precedence above.
    func relatedByName(of entity: EntityDescription) -> String? {
        if let name = Self.firstEntry(from: entity, { relatedBy[$0.name] }) { return name }
        if let importable = entity.managedClass as? any JSONImportable.Type { return importable.relatedByAttribute }
        guard readsModelUserInfo else { return nil }
        return Self.firstEntry(from: entity) { $0.fileDetails.userInfo[ModelUserInfoKey.relatedByAttribute] }
    }

    /// The attribute of `relationship`'s destination its items are matched by: an entry in
    /// ``relationshipRelatedBy`` or the relationship's `relatedByAttribute` user info entry,
    /// else the destination's related-by attribute.
    public func relatedByAttribute(of relationship: RelationshipDescription) -> AttributeDescription? {
        guard let destination = relationship.destinationEntity else { return nil }
        if let name = relationshipRelatedByName(of: relationship) { return destination.property(named: name) as? AttributeDescription }
        return relatedByAttribute(of: destination)
    }

    /// The name a relationship's own related-by entry gives, if any (not the destination's).
    func relationshipRelatedByName(of relationship: RelationshipDescription) -> String? {
        if let name = Self.firstEntry(from: relationship.entity, { relationshipRelatedBy[$0.name]?[relationship.name] }) { return name }
        return readsModelUserInfo ? relationship.fileDetails.userInfo[ModelUserInfoKey.relatedByAttribute] : nil
    }

    /// The JSON key (or key path) `property` is written under: the first it is read from.
    func jsonKey(for property: PropertyDescription, in entity: EntityDescription) -> String {
        keyPaths(for: property, in: entity)[0]
    }

    /// The keys or key paths `property` is read from, in order: the first a record holds
    /// wins. An entry in code (``keys``, then ``JSONImportable/jsonKeys``) is the only one;
    /// else the user info's `mappedKeyName` (or the name and its snake_case form), then
    /// `mappedKeyName.1`, `.2`, … up to `.9`, stopping at the first missing one.
    func keyPaths(for property: PropertyDescription, in entity: EntityDescription) -> [String] {
        if let key = Self.firstEntry(from: entity, { keys[$0.name]?[property.name] }) { return [key] }
        if let importable = entity.managedClass as? any JSONImportable.Type, let key = importable.jsonKeys[property.name] { return [key] }
        let info = readsModelUserInfo ? property.fileDetails.userInfo : [:]
        var paths: [String]
        if let mapped = info[ModelUserInfoKey.mappedKeyName] {
            paths = [mapped]
        } else {
            paths = [property.name]
            let snake = JSONKeyTable.snakeCase(property.name)
            if snake != property.name { paths.append(snake) }
        }
        for number in 1...ModelUserInfoKey.maximumFallback {
            guard let fallback = info["\(ModelUserInfoKey.mappedKeyName).\(number)"] else { break }
            if !paths.contains(fallback) { paths.append(fallback) }
        }
        return paths
    }

    /// The date pattern of `attribute`: an entry in ``dateFormats``, else its `dateFormat`
    /// user info entry.
    func dateFormat(of attribute: AttributeDescription, in entity: EntityDescription) -> String? {
        if let format = Self.firstEntry(from: entity, { dateFormats[$0.name]?[attribute.name] }) { return format }
        return readsModelUserInfo ? attribute.fileDetails.userInfo[ModelUserInfoKey.dateFormat] : nil
    }

    /// The user info entry `key` of `property` read as a flag, as Foundation's `boolValue`
    /// reads a string (`YES`, `true`, `1`); false when user info is not read.
    func userInfoFlag(_ key: String, of property: PropertyDescription) -> Bool {
        guard readsModelUserInfo, let text = property.fileDetails.userInfo[key] else { return false }
        return Self.boolValue(text)
    }

    /// Foundation's `NSString.boolValue`: after spaces, a sign and zeros, `Y`, `y`, `T`, `t`
    /// or a digit 1-9 is true.
    static func boolValue(_ text: String) -> Bool {
        var rest = Substring(text).drop { $0 == " " || $0 == "\t" || $0 == "\n" }
        if rest.first == "+" || rest.first == "-" { rest = rest.dropFirst() }
        rest = rest.drop { $0 == "0" }
        guard let first = rest.first else { return false }
        return "YyTt123456789".contains(first)
    }

    /// The first entry `lookup` finds on `entity` or a superentity.
    private static func firstEntry<T>(from entity: EntityDescription, _ lookup: (EntityDescription) -> T?) -> T? {
        var current: EntityDescription? = entity
        while let candidate = current {
            if let found = lookup(candidate) { return found }
            current = candidate.superentity
        }
        return nil
    }
}

/// The user info keys of a model file that the JSON import reads (MagicalRecord's names).
enum ModelUserInfoKey {
    static let mappedKeyName = "mappedKeyName"
    static let relatedByAttribute = "relatedByAttribute"
    static let dateFormat = "dateFormat"
    static let useDefaultValueWhenNotPresent = "useDefaultValueWhenNotPresent"
    static let excludeFromImport = "excludeFromImport"
    /// The `dateFormat` that reads numbers as milliseconds since 1970.
    static let unixTime = "UnixTime"
    /// MagicalRecord looks fallbacks up to `mappedKeyName.9`.
    static let maximumFallback = 9
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
    /// JSON key (or key path) per property name, for keys other than the name or its snake_case form.
    static var jsonKeys: [String: String] { get }
}

extension JSONImportable {
    public static var jsonKeys: [String: String] { [:] }
}
