import Foundation

// Finding a batch's existing objects: one pass over the records gathers every related-by
// value (nested records and keys included), then one query per attribute and 500 values
// loads the objects they match, instead of a query per record.
extension JSONImporter {
    private static let valuesPerQuery = 500

    func prefetch(_ records: ArraySlice<Any>) throws {
        var wanted: [ObjectIdentifier: (attribute: AttributeDescription, values: [JSONLookupKey: Any])] = [:]
        func gather(_ record: [String: Any], _ base: EntityDescription) {
            let entity = (try? self.entity(of: record, base: base, index: 0, path: "")) ?? base
            let table = table(for: entity)
            if let relatedBy = table.relatedBy {
                want(relatedBy, table.value(of: relatedBy, in: record))
            }
            for relationship in entity.relationships {
                guard let value = table.value(of: relationship, in: record) else { continue }
                let destination = relationship.destinationEntity!
                for item in (value as? [Any]) ?? [value] {
                    if let nested = item as? [String: Any] {
                        gather(nested, destination)
                    } else if let relatedBy = self.table(for: destination).relatedBy {
                        want(relatedBy, item)
                    }
                }
            }
        }
        func want(_ attribute: AttributeDescription, _ raw: Any?) {
            guard let raw, let stored = try? attribute.slotValue(fromJSON: raw, dateNumbers: options.dateNumbers),
                  let key = JSONLookupKey(stored), let value = attribute.conversion.toAny(stored) else { return }
            wanted[ObjectIdentifier(attribute), default: (attribute, [:])].values[key] = value
        }
        for case let record as [String: Any] in records { gather(record, entity) }

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
