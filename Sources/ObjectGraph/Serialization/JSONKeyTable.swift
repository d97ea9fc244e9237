import Foundation

/// The JSON keys an entity's records may use, each resolved once per import to its
/// property: the mapped key (``JSONMapping/keys`` or ``JSONImportable/jsonKeys``) where one
/// is given, else the property's name and its snake_case form. A record's key then costs
/// one dictionary lookup.
struct JSONKeyTable {
    let propertiesByKey: [String: PropertyDescription]
    /// The keys that may hold each property's value, by slot, mapped key first.
    let keysBySlot: [[String]]
    /// The attribute records of the entity are matched by, if any.
    let relatedBy: AttributeDescription?

    init(entity: EntityDescription, mapping: JSONMapping) {
        relatedBy = mapping.relatedByAttribute(of: entity)
        var byKey: [String: PropertyDescription] = [:]
        var keys: [[String]] = Array(repeating: [], count: entity.properties.count)
        for property in entity.properties where !property.isTransient {
            let mapped = mapping.jsonKey(for: property, in: entity)
            var candidates = [mapped]
            if mapped == property.name {
                let snake = Self.snakeCase(property.name)
                if snake != mapped { candidates.append(snake) }
            }
            for key in candidates where byKey[key] == nil { byKey[key] = property }
            keys[property.slot] = candidates
        }
        propertiesByKey = byKey
        keysBySlot = keys
    }

    /// The value `record` gives for `property` under any of its keys.
    func value(of property: PropertyDescription, in record: [String: Any]) -> Any? {
        for key in keysBySlot[property.slot] {
            if let value = record[key] { return value }
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
