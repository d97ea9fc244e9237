import Foundation

/// A relationship whose value names objects by key or URI: set once the whole batch is in,
/// so a record may name an object that a later record of the batch brings.
struct PendingReference {
    enum Item {
        case object(ManagedObject)
        case reference(Any)
    }
    let object: ManagedObject
    let relationship: RelationshipDescription
    let items: [Item]
    let index: Int
    let path: String
}

// Applying one record's values to its object.
extension JSONImporter {
    func apply(_ record: [String: Any], to object: ManagedObject, index: Int, path: String) throws {
        let entity = object.entity
        let table = table(for: entity)
        // The record's keys that gave a property's value: when that is all of them (and
        // keys map one to one), no key is unknown and the keys need no second look.
        var keysFound = 0
        for property in table.properties {
            let found = try value(of: property, in: record, table: table, entity: entity, index: index, path: path)
            if found != nil { keysFound += 1 }
            if let attribute = property as? AttributeDescription {
                guard let (raw, key) = found, !(isJSONNull(raw) && table.defaultsWhenAbsent.contains(attribute.slot)) else {
                    // useDefaultValueWhenNotPresent: no value (or null) sets the default, as MagicalRecord does.
                    if table.defaultsWhenAbsent.contains(attribute.slot) {
                        object.setPrimitiveValue(attribute.defaultValue?() ?? .null, slot: attribute.slot)
                    }
                    continue
                }
                let stored = try slotValue(raw, for: attribute, entity: entity, index: index, path: path, key: key)
                if stored.isNull && !attribute.isOptional {
                    throw JSONImportError(.missingRequiredValue, index: index, key: Self.join(path, key), entity: entity.name,
                                          "\(entity.name).\(attribute.name) is required and cannot be null")
                }
                object.setPrimitiveValue(stored, slot: attribute.slot)
            } else if let (raw, key) = found {
                try applyRelationship(property as! RelationshipDescription, raw, to: object, index: index, path: Self.join(path, key))
            }
        }
        if table.keysAreOneToOne && keysFound == record.count { return }
        for key in record.keys where !table.knownKeys.contains(key) {
            if key == options.entityKey || key == options.identityKey { continue }
            if options.strict {
                let known = entity.properties.filter { !$0.isTransient }.map(\.name).joined(separator: ", ")
                throw JSONImportError(.unknownKey, index: index, key: Self.join(path, key), entity: entity.name,
                                      "\(entity.name) has no property for the key '\(key)' (it has: \(known)); map it with JSONMapping.keys or import without strict")
            }
            report.ignoredKeys["\(entity.name).\(key)", default: 0] += 1
        }
    }

    private func applyRelationship(_ relationship: RelationshipDescription, _ raw: Any, to object: ManagedObject, index: Int, path: String) throws {
        var items: [PendingReference.Item] = []
        var referencesByKey = false
        if relationship.isToMany {
            if isJSONNull(raw) {
                items = []
            } else if let array = raw as? [Any] {
                items.reserveCapacity(array.count)
                for (position, element) in array.enumerated() {
                    let item = try relatedItem(element, relationship, index: index, path: "\(path)[\(position)]")
                    if case .reference = item { referencesByKey = true }
                    items.append(item)
                }
            } else {
                throw JSONImportError(.wrongType, index: index, key: path, entity: object.entity.name,
                                      "\(relationship) is to-many and takes an array of objects or keys, not \(Self.jsonTypeName(raw))")
            }
        } else if !isJSONNull(raw) {
            if raw is [Any] {
                throw JSONImportError(.wrongType, index: index, key: path, entity: object.entity.name,
                                      "\(relationship) is to-one and takes one object or key, not an array")
            }
            let item = try relatedItem(raw, relationship, index: index, path: path)
            if case .reference = item { referencesByKey = true }
            items = [item]
        }
        let pending = PendingReference(object: object, relationship: relationship, items: items, index: index, path: path)
        if referencesByKey {
            pendingReferences.append(pending)
        } else {
            try set(pending)
        }
    }

    /// A nested record (upserted now) or a key (looked up once the batch is in).
    private func relatedItem(_ value: Any, _ relationship: RelationshipDescription, index: Int, path: String) throws -> PendingReference.Item {
        guard let record = value as? [String: Any] else {
            if value is [Any] || isJSONNull(value) {
                throw JSONImportError(.wrongType, index: index, key: path, entity: relationship.entity.name,
                                      "an item of \(relationship) is \(Self.jsonTypeName(value)), not an object or a key")
            }
            return .reference(value)
        }
        let destination = try entity(of: record, base: relationship.destinationEntity, index: index, path: path)
        let relatedBy = relatedBy(of: relationship, destination: destination)
        let key = try relatedBy.map { try lookupKey(of: $0, in: record, entity: destination, index: index, path: path) } ?? nil
        let existing = key.flatMap { key in relatedBy.flatMap { lookup[ObjectIdentifier($0)]?[key] } }
        return .object(try upsert(record, entity: destination, existing: existing, relatedBy: relatedBy, key: key, index: index, path: path))
    }

    /// Sets every relationship that named objects by key.
    func resolvePendingReferences() throws {
        for pending in pendingReferences { try set(pending) }
    }

    private func set(_ pending: PendingReference) throws {
        var objects: [ManagedObject] = []
        objects.reserveCapacity(pending.items.count)
        for (position, item) in pending.items.enumerated() {
            switch item {
            case .object(let object): objects.append(object)
            case .reference(let value):
                let path = pending.relationship.isToMany ? "\(pending.path)[\(position)]" : pending.path
                objects.append(try referencedObject(value, pending.relationship, index: pending.index, path: path))
            }
        }
        let relationship = pending.relationship
        for object in objects where !object.entity.isKind(of: relationship.destinationEntity) {
            throw JSONImportError(.wrongType, index: pending.index, key: pending.path, entity: relationship.entity.name,
                                  "\(relationship) takes \(relationship.destinationEntity.name), not \(object.entity.name)")
        }
        pending.object.setRelatedObjects(objects, relationship)
    }

    /// The object a key or `x-coredata:` URI names, in the import or the store.
    private func referencedObject(_ value: Any, _ relationship: RelationshipDescription, index: Int, path: String) throws -> ManagedObject {
        let destination = relationship.destinationEntity!
        if let text = value as? String, text.hasPrefix("x-coredata:") {
            guard let url = URL(string: text),
                  let id = context.persistentStoreCoordinator.managedObjectID(forURIRepresentation: url),
                  let object = try? context.existingObject(with: id) else {
                throw JSONImportError(.unknownReference, index: index, key: path, entity: relationship.entity.name,
                                      "\(relationship) names \(text), which is not an object of this store")
            }
            return object
        }
        guard let relatedBy = relatedBy(of: relationship, destination: destination) else {
            throw JSONImportError(.unknownReference, index: index, key: path, entity: relationship.entity.name,
                                  "\(relationship) names \(Self.shortText(value)) by key, but \(destination.name) has no related-by attribute; set JSONMapping.relatedBy[\"\(destination.name)\"] or conform \(destination.name) to JSONImportable")
        }
        let stored = try slotValue(value, for: relatedBy, entity: destination, index: index, path: path)
        guard let key = JSONLookupKey(stored), let object = lookup[ObjectIdentifier(relatedBy)]?[key] else {
            throw JSONImportError(.unknownReference, index: index, key: path, entity: relationship.entity.name,
                                  "no \(destination.name) with \(relatedBy.name) \(Self.shortText(value)) in the store or in this \(options.batchSize == nil ? "import" : "batch"); import it first, or give it as a nested object")
        }
        return object
    }

    /// A new object must hold every required value once its batch is in.
    func checkRequiredValues() throws {
        for (object, index, path) in insertedObjects {
            for property in object.entity.requiredProperties where object.values[property.slot].isNull {
                throw JSONImportError(.missingRequiredValue, index: index, key: Self.join(path, property.name), entity: object.entity.name,
                                      "\(object.entity.name).\(property.name) is required, and the record gives no value for it")
            }
        }
    }
}
