import Foundation

/// The JSON keys and key paths an entity's records may use, each property's resolved once
/// per import (``JSONMapping/keyPaths(for:in:)``), with its date format and user info flags.
struct JSONKeyTable {
    /// The properties records may give, in slot order: not transient, not excluded from import.
    let properties: [PropertyDescription]
    /// The keys or key paths that may hold each property's value, by slot, in the order
    /// they are tried: split at their dots.
    let pathsBySlot: [[[String]]]
    /// Every key a record may use at its top level (the first key of each path, and the
    /// keys of properties excluded from import).
    let knownKeys: Set<String>
    /// The attribute records of the entity are matched by, if any.
    let relatedBy: AttributeDescription?
    /// The date attributes' own formats, by slot.
    let dateFormats: [Int: JSONDateFormat]
    /// Attributes set to their default value when a record gives none
    /// (`useDefaultValueWhenNotPresent`).
    let defaultsWhenAbsent: Set<Int>
    /// Whether every property is read from plain keys (no key path), no key serving two
    /// properties: then a record whose keys each gave a property's value has no other key.
    let keysAreOneToOne: Bool

    init(entity: EntityDescription, mapping: JSONMapping) {
        relatedBy = mapping.relatedByAttribute(of: entity)
        var importable: [PropertyDescription] = []
        var paths: [[[String]]] = Array(repeating: [], count: entity.properties.count)
        var known = Set<String>()
        var formats: [Int: JSONDateFormat] = [:]
        var defaults = Set<Int>()
        for property in entity.properties where !property.isTransient {
            let candidates = mapping.keyPaths(for: property, in: entity).map { $0.split(separator: ".", omittingEmptySubsequences: false).map(String.init) }
            for path in candidates { known.insert(path[0]) }
            if mapping.userInfoFlag(ModelUserInfoKey.excludeFromImport, of: property) { continue }
            importable.append(property)
            paths[property.slot] = candidates
            if let attribute = property as? AttributeDescription {
                if attribute.attributeType == .date, let format = mapping.dateFormat(of: attribute, in: entity) {
                    formats[attribute.slot] = JSONDateFormat(pattern: format)
                }
                if mapping.userInfoFlag(ModelUserInfoKey.useDefaultValueWhenNotPresent, of: attribute) { defaults.insert(attribute.slot) }
            }
        }
        properties = importable
        pathsBySlot = paths
        knownKeys = known
        dateFormats = formats
        defaultsWhenAbsent = defaults
        let allPaths = paths.joined()
        keysAreOneToOne = allPaths.allSatisfy { $0.count == 1 } && known.count == allPaths.count
    }

    /// The value `record` gives for `property` under the first of its keys or key paths that
    /// it holds, with that key path; nil when it holds none. A path through a missing key or
    /// a `null` holds nothing.
    ///
    /// - Throws: ``JSONKeyPathProblem`` when a path goes through a value that is not an object.
    func value(of property: PropertyDescription, in record: [String: Any]) throws(JSONKeyPathProblem) -> (value: Any, key: String)? {
        for path in pathsBySlot[property.slot] {
            if path.count == 1 {
                if let value = record[path[0]] { return (value, path[0]) }
                continue
            }
            var current: [String: Any] = record
            for (depth, component) in path.enumerated() {
                guard let value = current[component] else { break }
                if depth == path.count - 1 { return (value, path.joined(separator: ".")) }
                if isJSONNull(value) { break }
                guard let object = value as? [String: Any] else {
                    throw JSONKeyPathProblem(keyPath: path.joined(separator: "."), prefix: path[...depth].joined(separator: "."),
                                             found: "\(JSONImporter.jsonTypeName(value)) \(JSONImporter.shortText(value))")
                }
                current = object
            }
        }
        return nil
    }

    /// `firstName` -> `first_name`, `badgeID` -> `badge_id`.
    static func snakeCase(_ name: String) -> String {
        var result = ""
        var previousWasLower = false
        for character in name {
            if character.isUppercase {
                if previousWasLower { result.append("_") }
                result.append(contentsOf: character.lowercased())
                previousWasLower = false
            } else {
                result.append(character)
                previousWasLower = character.isLowercase || character.isNumber
            }
        }
        return result
    }
}

/// A key path that goes through a value other than an object (`address.city` where
/// `address` is a string).
struct JSONKeyPathProblem: Error {
    let keyPath: String
    /// The part of the path that holds the value.
    let prefix: String
    /// The value there, for messages (`a string "flat"`).
    let found: String
}

/// A related-by value as a dictionary key: values of the same attribute compare the way
/// the store compares them.
enum JSONLookupKey: Hashable {
    case int(Int64)
    case double(Double)
    case text(String)
    case uuid(UUID)
    case bytes(Data)

    init?(_ value: SlotValue) {
        switch value {
        case .int(let v): self = .int(v)
        case .double(let v): self = .double(v)
        case .text(let v): self = .text(v)
        case .uuid(let v): self = .uuid(v)
        case .blob(let v): self = v.count == 16 ? .uuid(UUID(blobData: v)) : .bytes(v)
        case .decimal(let v): self = .double(v.storedDouble)
        case .url(let v): self = .text(v.absoluteString)
        case .null, .object, .objects, .unloaded: return nil
        }
    }
}
