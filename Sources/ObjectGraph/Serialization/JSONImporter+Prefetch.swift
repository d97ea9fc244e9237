import Foundation

// Finding a batch's existing objects: one pass over the records gathers every related-by
// value (nested records and keys included), then one query per attribute and 500 values
// loads the objects they match, instead of a query per record.
extension JSONImporter {
    private static let valuesPerQuery = 500

    func prefetch(_ records: ArraySlice<Any>) throws {
        var wanted: [ObjectIdentifier: (attribute: AttributeDescription, values: [JSONLookupKey: Any])] = [:]
        // `via`: the relationship a nested record is under, whose related-by attribute wins.
        func gather(_ record: [String: Any], _ base: EntityDescription, via arrival: RelationshipDescription?) {
            let entity = (try? self.entity(of: record, base: base, index: 0, path: "")) ?? base
            let table = table(for: entity)
            if let relatedBy = arrival.map({ self.relatedBy(of: $0, destination: entity) }) ?? table.relatedBy {
                want(relatedBy, entity, try? table.value(of: relatedBy, in: record)?.value)
            }
            for relationship in entity.relationships {
                guard let value = try? table.value(of: relationship, in: record)?.value else { continue }
                let destination = relationship.destinationEntity!
                let relatedBy = self.relatedBy(of: relationship, destination: destination)
                for item in (value as? [Any]) ?? [value] {
                    if let nested = item as? [String: Any] {
                        gather(nested, destination, via: relationship)
                    } else if let relatedBy {
                        want(relatedBy, destination, item)
                    }
                }
            }
        }
        func want(_ attribute: AttributeDescription, _ entity: EntityDescription, _ raw: Any?) {
            guard let raw, let stored = try? attribute.slotValue(fromJSON: raw, dateNumbers: options.dateNumbers, dateFormat: table(for: entity).dateFormats[attribute.slot]),
                  let key = JSONLookupKey(stored), let value = attribute.conversion.toAny(stored) else { return }
            wanted[ObjectIdentifier(attribute), default: (attribute, [:])].values[key] = value
        }
        for case let record as [String: Any] in records { gather(record, entity, via: nil) }

        for (id, entry) in wanted {
            var found = lookup[id] ?? [:]
            let values = Array(entry.values.values)
            var start = 0
            while start < values.count {
                let chunk = Array(values[start..<min(start + Self.valuesPerQuery, values.count)])
                var request = FetchRequest<ManagedObject>(entityName: entry.attribute.entity.name)
                request.predicate = try FetchPredicate("%K IN %@", argumentArray: [entry.attribute.name, chunk])
                for object in try context.fetch(request) {
                    if let key = JSONLookupKey(object.primitiveValue(slot: entry.attribute.slot)) { found[key] = object }
                }
                start += Self.valuesPerQuery
            }
            lookup[id] = found
        }
    }
}
