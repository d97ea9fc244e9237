import Foundation

/// Writes objects as JSON-ready dictionaries, resolving each entity's JSON keys and
/// related-by attribute once rather than once per object.
final class JSONExporter {
    let options: JSONExportOptions
    private var keysByEntity: [ObjectIdentifier: [String]] = [:]
    private var relatedByEntity: [ObjectIdentifier: AttributeDescription?] = [:]

    init(options: JSONExportOptions) {
        self.options = options
    }

    /// `depth` -1 leaves relationships out, 0 writes them as keys, more nests that many levels.
    func jsonObject(_ object: ManagedObject, base: EntityDescription, depth: Int, via arrival: RelationshipDescription?) -> [String: Any] {
        object.prepareForAccess()
        let entity = object.entity
        let keys = jsonKeys(of: entity)
        var result: [String: Any] = [:]
        result.reserveCapacity(entity.properties.count + 1)
        if entity !== base, let entityKey = options.entityKey { result[entityKey] = entity.name }
        for attribute in entity.attributes where !attribute.isTransient {
            let stored = object.values[attribute.slot]
            if stored.isNull && !options.includesNullValues { continue }
            result[keys[attribute.slot]] = attribute.jsonValue(of: stored, options: options)
        }
        guard depth >= 0, let context = object.context else { return result }
        for relationship in entity.relationships {
            if let arrival, relationship === arrival.inverseRelationship { continue }
            let ids = object.relatedIDs(relationship, in: context)
            if !relationship.isToMany && ids.isEmpty {
                if options.includesNullValues { result[keys[relationship.slot]] = NSNull() }
                continue
            }
            let items: [Any] = ids.map { id in
                if depth > 0 {
                    return jsonObject(context.destination(with: id), base: relationship.destinationEntity, depth: depth - 1, via: relationship)
                }
                return reference(to: id, in: context)
            }
            result[keys[relationship.slot]] = relationship.isToMany ? items : items[0]
        }
        return result
    }

    /// A destination as a key: its related-by value, or its object ID URI.
    private func reference(to id: ObjectID, in context: ManagedObjectContext) -> Any {
        if let relatedBy = relatedBy(of: id.entity) {
            let destination = context.destination(with: id)
            return relatedBy.jsonValue(of: destination.primitiveValue(slot: relatedBy.slot), options: options)
        }
        return id.uriRepresentation.absoluteString
    }

    private func jsonKeys(of entity: EntityDescription) -> [String] {
        if let keys = keysByEntity[ObjectIdentifier(entity)] { return keys }
        let keys = entity.properties.map { options.mapping.jsonKey(for: $0, in: entity) }
        keysByEntity[ObjectIdentifier(entity)] = keys
        return keys
    }

    private func relatedBy(of entity: EntityDescription) -> AttributeDescription? {
        if let cached = relatedByEntity[ObjectIdentifier(entity)] { return cached }
        let attribute = options.mapping.relatedByAttribute(of: entity)
        relatedByEntity[ObjectIdentifier(entity)] = .some(attribute)
        return attribute
    }
}
