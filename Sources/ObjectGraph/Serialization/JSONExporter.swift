import Foundation

/// Writes objects as JSON-ready dictionaries, resolving each entity's JSON keys and
/// related-by attribute once rather than once per object.
///
/// A destination is written as its related-by value when it has one. Otherwise (with
/// ``JSONExportOptions/RelationshipEncoding/keys`` or beyond a nesting depth) it is nested,
/// with its identity (``JSONExportOptions/identityKey``), so that the JSON imports into
/// another store: within one top-level object, an object already written in full is written
/// again as its identity alone, which ends cycles and keeps the output as large as the graph.
final class JSONExporter {
    let options: JSONExportOptions
    /// Each property's JSON key (path), split at its dots, by slot, per entity.
    private var keysByEntity: [ObjectIdentifier: [[String]]] = [:]
    private var relatedByEntity: [ObjectIdentifier: AttributeDescription?] = [:]
    /// The name each relationship's own related-by entry gives (nil: none), once looked up.
    private var relationshipRelatedByNames: [ObjectIdentifier: String?] = [:]
    /// Objects without a related-by value written in full within the current top-level object.
    private var written: Set<ObjectID> = []

    init(options: JSONExportOptions) {
        self.options = options
    }

    /// A top-level object. `depth` -1 leaves relationships out, 0 writes them as keys, more
    /// nests that many levels.
    func jsonObject(_ object: ManagedObject, base: EntityDescription, depth: Int) -> [String: Any] {
        written.removeAll(keepingCapacity: true)
        return jsonObject(object, base: base, depth: depth, via: nil)
    }

    private func jsonObject(_ object: ManagedObject, base: EntityDescription, depth: Int, via arrival: RelationshipDescription?) -> [String: Any] {
        object.prepareForAccess()
        let entity = object.entity
        let keys = jsonKeys(of: entity)
        var result: [String: Any] = [:]
        result.reserveCapacity(entity.properties.count + 2)
        if entity !== base, let entityKey = options.entityKey { result[entityKey] = entity.name }
        if depth >= 0 && isUnnamed(object) {
            written.insert(object.objectID)
            if let identity = identity(of: object) { result[identity.key] = identity.value }
        }
        for attribute in entity.attributes where !attribute.isTransient {
            let stored = object.values[attribute.slot]
            if stored.isNull && !options.includesNullValues { continue }
            Self.write(attribute.jsonValue(of: stored, options: options), at: keys[attribute.slot], into: &result)
        }
        guard depth >= 0, let context = object.context else { return result }
        for relationship in entity.relationships {
            if let arrival, relationship === arrival.inverseRelationship { continue }
            var ids = Array(object.relatedIDs(relationship, in: context))
            if !relationship.isToMany && ids.isEmpty {
                if options.includesNullValues { Self.write(NSNull(), at: keys[relationship.slot], into: &result) }
                continue
            }
            // A set has no order of its own: the same text in every run.
            if relationship.isToMany && !relationship.isOrdered { ids.sort(by: Self.storeOrder) }
            let items: [Any] = ids.compactMap { id in
                if depth > 0 {
                    return nested(context.destination(with: id), relationship, depth: depth - 1)
                }
                return reference(to: id, relationship, in: context)
            }
            if !relationship.isToMany && items.isEmpty { continue }
            Self.write(relationship.isToMany ? items : items[0], at: keys[relationship.slot], into: &result)
        }
        return result
    }

    /// A destination nested: in full, or as its identity alone when it is already written.
    private func nested(_ destination: ManagedObject, _ relationship: RelationshipDescription, depth: Int) -> Any? {
        if written.contains(destination.objectID) {
            guard let identity = identity(of: destination) else { return nil }
            // With its entity, so that an import meeting it before the object in full makes the right one.
            var reference: [String: Any] = [identity.key: identity.value]
            if destination.entity !== relationship.destinationEntity, let entityKey = options.entityKey { reference[entityKey] = destination.entity.name }
            return reference
        }
        return jsonObject(destination, base: relationship.destinationEntity, depth: depth, via: relationship)
    }

    /// A destination as a key: its related-by value (the relationship's own related-by
    /// attribute's, else its entity's); else (``JSONExportOptions/RelationshipEncoding/objectIDs``)
    /// its object ID URI, or the destination nested.
    private func reference(to id: ObjectID, _ relationship: RelationshipDescription, in context: ManagedObjectContext) -> Any? {
        if let relatedBy = relatedBy(of: relationship, destination: id.entity) {
            let value = context.destination(with: id).primitiveValue(slot: relatedBy.slot)
            if !value.isNull { return relatedBy.jsonValue(of: value, options: options) }
        }
        if options.relationships == .objectIDs { return id.uriRepresentation.absoluteString }
        return nested(context.destination(with: id), relationship, depth: 0)
    }

    /// Whether no related-by value names `object` (its entity has no related-by attribute, or
    /// its value is nil): nested rather than written as a key, and given an identity.
    private func isUnnamed(_ object: ManagedObject) -> Bool {
        guard let relatedBy = relatedBy(of: object.entity) else { return true }
        return object.primitiveValue(slot: relatedBy.slot).isNull
    }

    /// The identity key and value of an unnamed object (`"@id": "Category/p8"`), or nil when
    /// identities are not written.
    private func identity(of object: ManagedObject) -> (key: String, value: String)? {
        guard let key = options.identityKey, options.relationships != .omitted, options.relationships != .objectIDs,
              object.entity.property(named: key) == nil, isUnnamed(object) else { return nil }
        return (key, Self.identity(of: object.objectID))
    }

    /// `"Category/p8"`: the object ID URI without its store, unique within the store.
    static func identity(of id: ObjectID) -> String {
        id.key > 0 ? "\(id.entity.name)/p\(id.key)" : "\(id.entity.name)/t\(-id.key)"
    }

    private static func storeOrder(_ lhs: ObjectID, _ rhs: ObjectID) -> Bool {
        lhs.entity.name != rhs.entity.name ? lhs.entity.name < rhs.entity.name : lhs.key < rhs.key
    }

    private func jsonKeys(of entity: EntityDescription) -> [[String]] {
        if let keys = keysByEntity[ObjectIdentifier(entity)] { return keys }
        let keys = entity.properties.map { options.mapping.jsonKey(for: $0, in: entity).split(separator: ".", omittingEmptySubsequences: false).map(String.init) }
        keysByEntity[ObjectIdentifier(entity)] = keys
        return keys
    }

    /// Writes `value` at a key path: under its one key, or in the nested objects the path
    /// names (made as needed, shared with the other paths through them). A path through a
    /// value already written that is not an object (one property's key is a prefix of
    /// another's) writes nothing: the import and the throwing exports refuse such a mapping
    /// before they start; only `ManagedObject.jsonObject(options:)`, which cannot throw,
    /// gets here with one.
    static func write(_ value: Any, at path: [String], into object: inout [String: Any]) {
        guard path.count > 1 else {
            object[path[0]] = value
            return
        }
        var nested: [String: Any]
        if let existing = object[path[0]] {
            guard let dictionary = existing as? [String: Any] else { return }
            nested = dictionary
        } else {
            nested = [:]
        }
        write(value, at: Array(path.dropFirst()), into: &nested)
        object[path[0]] = nested
    }

    private func relatedBy(of relationship: RelationshipDescription, destination: EntityDescription) -> AttributeDescription? {
        let id = ObjectIdentifier(relationship)
        if relationshipRelatedByNames[id] == nil { relationshipRelatedByNames[id] = .some(options.mapping.relationshipRelatedByName(of: relationship)) }
        if let name = relationshipRelatedByNames[id]! { return destination.property(named: name) as? AttributeDescription }
        return relatedBy(of: destination)
    }

    private func relatedBy(of entity: EntityDescription) -> AttributeDescription? {
        if let cached = relatedByEntity[ObjectIdentifier(entity)] { return cached }
        let attribute = options.mapping.relatedByAttribute(of: entity)
        relatedByEntity[ObjectIdentifier(entity)] = .some(attribute)
        return attribute
    }
}
