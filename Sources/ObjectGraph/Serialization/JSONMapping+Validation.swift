import Foundation

// Checking a mapping, and the model file's import rules, before an import starts.
extension JSONMapping {
    /// The first problem of the mapping (in code or in the model file's user info) for
    /// `entity` and every entity its records can reach (sub-entities, relationship
    /// destinations): a related-by entry that names no attribute, or two keys of one entity
    /// where one is a prefix of the other's path (`address` and `address.city`), which the
    /// export could not write both of.
    func problem(reachableFrom entity: EntityDescription) -> JSONImportError? {
        var seen = Set<ObjectIdentifier>()
        var pending = [entity]
        while let next = pending.popLast() {
            guard seen.insert(ObjectIdentifier(next)).inserted else { continue }
            if let problem = problem(in: next) { return problem }
            pending += next.subentities
            pending += next.relationships.compactMap(\.destinationEntity)
        }
        return nil
    }

    private func problem(in entity: EntityDescription) -> JSONImportError? {
        if let name = relatedByName(of: entity), !(entity.property(named: name) is AttributeDescription) {
            return JSONImportError(.unknownKey, key: name, entity: entity.name,
                                   "the related-by attribute \(entity.name).\(name) (\(source(of: name, entity))) is not an attribute of \(entity.name)")
        }
        for relationship in entity.relationships {
            guard let name = relationshipRelatedByName(of: relationship), let destination = relationship.destinationEntity else { continue }
            if !(destination.property(named: name) is AttributeDescription) {
                return JSONImportError(.unknownKey, key: relationship.name, entity: entity.name,
                                       "the related-by attribute '\(name)' of \(relationship) is not an attribute of its destination \(destination.name)")
            }
        }
        var pathOwners: [String: PropertyDescription] = [:]
        let properties = entity.properties.filter { !$0.isTransient }
        for property in properties { pathOwners[jsonKey(for: property, in: entity)] = property }
        for property in properties {
            let key = jsonKey(for: property, in: entity)
            var prefix = ""
            for component in key.split(separator: ".", omittingEmptySubsequences: false).dropLast() {
                prefix = prefix.isEmpty ? String(component) : prefix + "." + component
                if let other = pathOwners[prefix], other !== property {
                    return JSONImportError(.unknownKey, key: key, entity: entity.name,
                                           "\(entity.name).\(property.name) is mapped to '\(key)', inside the key '\(prefix)' of \(entity.name).\(other.name): one JSON value cannot be both; map one of them elsewhere")
                }
            }
        }
        return nil
    }

    /// Where a related-by entry comes from, for messages.
    private func source(of name: String, _ entity: EntityDescription) -> String {
        var current: EntityDescription? = entity
        while let candidate = current {
            if relatedBy[candidate.name] == name { return "JSONMapping.relatedBy" }
            current = candidate.superentity
        }
        return entity.managedClass is any JSONImportable.Type ? "JSONImportable.relatedByAttribute" : "the model file's relatedByAttribute user info"
    }
}
