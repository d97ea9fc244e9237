import Foundation

// A managed object as a JSON-ready dictionary.
extension ManagedObject {
    /// The object's stored attributes (and, as `options` say, relationships) as a dictionary
    /// `JSONSerialization` accepts: UUIDs, URLs and dates as strings (or dates as numbers),
    /// decimals as numbers (or strings), data as base64, a `Codable` attribute as the JSON it
    /// is stored as, nil as `NSNull`.
    ///
    /// ```swift
    /// let json = try JSONSerialization.data(withJSONObject: john.jsonObject())
    /// ```
    ///
    /// Fires the object's fault and, for relationships written as keys or nested objects,
    /// the destinations' faults.
    public func jsonObject(options: JSONExportOptions = JSONExportOptions()) -> [String: Any] {
        let depth = options.relationships.depth
        return jsonObject(options: options, base: entity, depth: depth, via: nil)
    }

    /// `depth` -1 leaves relationships out, 0 writes them as keys, more nests that many levels.
    func jsonObject(options: JSONExportOptions, base: EntityDescription, depth: Int, via arrival: RelationshipDescription?) -> [String: Any] {
        prepareForAccess()
        var result: [String: Any] = [:]
        result.reserveCapacity(entity.properties.count + 1)
        if entity !== base, let entityKey = options.entityKey { result[entityKey] = entity.name }
        for attribute in entity.attributes where !attribute.isTransient {
            let stored = values[attribute.slot]
            if stored.isNull && !options.includesNullValues { continue }
            result[options.mapping.jsonKey(for: attribute, in: entity)] = attribute.jsonValue(of: stored, options: options)
        }
        guard depth >= 0, let context else { return result }
        for relationship in entity.relationships {
            if let arrival, relationship === arrival.inverseRelationship { continue }
            let key = options.mapping.jsonKey(for: relationship, in: entity)
            let ids = relatedIDs(relationship, in: context)
            if !relationship.isToMany && ids.isEmpty {
                if options.includesNullValues { result[key] = NSNull() }
                continue
            }
            let items: [Any] = ids.map { id in
                if depth > 0 {
                    return context.destination(with: id).jsonObject(options: options, base: relationship.destinationEntity,
                                                                    depth: depth - 1, via: relationship)
                }
                return Self.reference(to: id, in: context, mapping: options.mapping, options: options)
            }
            result[key] = relationship.isToMany ? items : items[0]
        }
        return result
    }

    /// A destination as a key: its related-by value, or its object ID URI.
    private static func reference(to id: ObjectID, in context: ManagedObjectContext, mapping: JSONMapping, options: JSONExportOptions) -> Any {
        if let relatedBy = mapping.relatedByAttribute(of: id.entity) {
            let destination = context.destination(with: id)
            return relatedBy.jsonValue(of: destination.primitiveValue(slot: relatedBy.slot), options: options)
        }
        return id.uriRepresentation.absoluteString
    }
}
