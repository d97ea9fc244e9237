import Foundation

/// One import run: records upserted into a private context of its own, saved once (or once
/// per batch). Used on that context's queue only.
final class JSONImporter {
    let context: ManagedObjectContext
    let options: JSONImportOptions
    let entity: EntityDescription
    var report = JSONImportReport()

    private var tables: [ObjectIdentifier: JSONKeyTable] = [:]
    /// The name each relationship's own related-by entry gives (nil: none), once looked up.
    private var relationshipRelatedByNames: [ObjectIdentifier: String?] = [:]
    /// Objects by related-by value, per related-by attribute: prefetched for each batch, and
    /// growing as the batch inserts.
    var lookup: [ObjectIdentifier: [JSONLookupKey: ManagedObject]] = [:]
    /// Objects this batch inserted, with the record each came from.
    var insertedObjects: [(object: ManagedObject, index: Int, path: String)] = []
    var isNew: Set<ObjectIdentifier> = []
    /// Existing objects records matched in this batch (in order), and the top-level records that matched one.
    var touched: [ManagedObject] = []
    var touchedIDs: Set<ObjectIdentifier> = []
    var matchedRecords: [(index: Int, record: [String: Any], object: ManagedObject)] = []
    /// Relationships that name objects by key, set once the whole batch is in.
    var pendingReferences: [PendingReference] = []
    /// Objects by identity (``JSONImportOptions/identityKey``) met in this batch, and those of
    /// the batches already committed.
    var identified: [String: ManagedObject] = [:]
    var committedIdentities: [String: ObjectID] = [:]

    init(context: ManagedObjectContext, entity: EntityDescription, options: JSONImportOptions) {
        self.context = context
        self.entity = entity
        self.options = options
        report.batchSize = options.batchSize
    }

    /// Imports `records`, one transaction or one per batch.
    func run(_ records: [Any]) throws -> JSONImportReport {
        report.recordCount = records.count
        let size = max(1, options.batchSize ?? records.count)
        var start = 0
        while start < records.count {
            let end = min(start + size, records.count)
            do {
                try importBatch(records[start..<end])
                try resolvePendingReferences()
                try checkRequiredValues()
                // Records' own objects first, in input order, then those changed through an inverse.
                let changed = context.updatedObjects
                let updated = touched.filter(changed.contains) + changed.subtracting(touched).sorted { $0.objectID.description < $1.objectID.description }
                for match in matchedRecords where !match.object.hasChanges && !isNew.contains(ObjectIdentifier(match.object)) {
                    report.skipped.append(.init(index: match.index, key: keyText(of: match.record, match.object.entity), reason: .unchanged))
                }
                do {
                    try context.save()
                } catch {
                    throw JSONImportError(.saveFailed, entity: entity.name, "the save of records \(start)..<\(end) failed: \(error)", underlying: error)
                }
                report.inserted += insertedObjects.map(\.object.objectID)
                for (identity, object) in identified { committedIdentities[identity] = object.objectID }
                report.updated += updated.map(\.objectID)
            } catch {
                context.rollback()
                var failure = error as? JSONImportError
                    ?? JSONImportError(.storeFailed, entity: entity.name, "looking up the objects of records \(start)..<\(end) failed: \(error)", underlying: error)
                failure.report = report
                failure.report.skipped.removeAll { $0.index >= start }
                throw failure
            }
            report.committedBatches += 1
            report.committedRecords = end
            options.progress?(end, records.count)
            endBatch()
            start = end
        }
        return report
    }

    /// Forgets the batch's objects, so memory stays bounded by the batch size.
    private func endBatch() {
        lookup.removeAll(keepingCapacity: true)
        insertedObjects.removeAll(keepingCapacity: true)
        isNew.removeAll(keepingCapacity: true)
        touched.removeAll(keepingCapacity: true)
        touchedIDs.removeAll(keepingCapacity: true)
        matchedRecords.removeAll(keepingCapacity: true)
        pendingReferences.removeAll(keepingCapacity: true)
        identified.removeAll(keepingCapacity: true)
        context.reset()
    }

    private func importBatch(_ records: ArraySlice<Any>) throws {
        try prefetch(records)
        for (index, element) in zip(records.indices, records) {
            reportProgress(at: index)
            guard let record = element as? [String: Any] else {
                throw JSONImportError(.notAnObject, index: index, entity: entity.name, "the record is \(Self.jsonTypeName(element)), not a JSON object")
            }
            let recordEntity = try self.entity(of: record, base: entity, index: index, path: "")
            let relatedBy = table(for: recordEntity).relatedBy
            let keyValue = try relatedBy.map { try lookupKey(of: $0, in: record, entity: recordEntity, index: index, path: "") } ?? nil
            let existing = keyValue.flatMap { key in relatedBy.flatMap { lookup[ObjectIdentifier($0)]?[key] } }
            switch (options.policy, existing) {
            case (.insertOnly, .some):
                report.skipped.append(.init(index: index, key: keyText(of: record, recordEntity), reason: .exists))
                continue
            case (.updateOnly, .none):
                report.skipped.append(.init(index: index, key: keyText(of: record, recordEntity), reason: .notFound))
                continue
            default:
                break
            }
            let object = try upsert(record, entity: recordEntity, existing: existing, relatedBy: relatedBy, key: keyValue, index: index, path: "")
            if existing != nil { matchedRecords.append((index, record, object)) }
        }
        // The batch is applied: its save comes next.
        if !records.isEmpty { options.recordProgress?(records.endIndex, report.recordCount) }
    }

    /// Calls ``JSONImportOptions/recordProgress`` when `index` records are applied, every interval.
    private func reportProgress(at index: Int) {
        if let recordProgress = options.recordProgress, index > 0, index % max(1, options.recordProgressInterval) == 0 {
            recordProgress(index, report.recordCount)
        }
    }

    /// The record's object: `existing`, the object of the record's identity, or a new one
    /// registered under its key and identity; then its values.
    func upsert(_ record: [String: Any], entity: EntityDescription, existing: ManagedObject?, relatedBy: AttributeDescription?,
                key: JSONLookupKey?, index: Int, path: String) throws -> ManagedObject {
        let identity = existing == nil ? identity(of: record, entity) : nil
        let object: ManagedObject
        if let existing = try existing ?? identity.flatMap({ try identifiedObject($0, entity: entity, index: index, path: path) }) {
            object = existing
            if touchedIDs.insert(ObjectIdentifier(existing)).inserted { touched.append(existing) }
        } else {
            object = entity.managedClass.init(entity: entity, insertInto: context)
            insertedObjects.append((object, index, path))
            isNew.insert(ObjectIdentifier(object))
            if let relatedBy, let key { lookup[ObjectIdentifier(relatedBy), default: [:]][key] = object }
            // Before its values: a nested record may name it back (a cycle).
            if let identity { identified[identity] = object }
        }
        try apply(record, to: object, index: index, path: path)
        return object
    }

    /// The record's identity, when it gives one and its entity has no property of that name.
    private func identity(of record: [String: Any], _ entity: EntityDescription) -> String? {
        guard let key = options.identityKey, let value = record[key], entity.property(named: key) == nil else { return nil }
        if let text = value as? String { return text }
        return value is NSNumber || value is JSONNumber ? "\(value)" : nil
    }

    /// The object an earlier record of the import gave `identity`, or nil.
    private func identifiedObject(_ identity: String, entity: EntityDescription, index: Int, path: String) throws -> ManagedObject? {
        let object: ManagedObject
        if let found = identified[identity] {
            object = found
        } else if let id = committedIdentities[identity] {
            object = try context.existingObject(with: id)
            identified[identity] = object
        } else {
            return nil
        }
        guard object.entity.isKind(of: entity) else {
            throw JSONImportError(.wrongType, index: index, key: Self.join(path, options.identityKey ?? ""), entity: entity.name,
                                  "the identity \(Self.shortText(identity)) names a \(object.entity.name) earlier in the import, not a \(entity.name)")
        }
        return object
    }

    /// A record's related-by value as text, for the report.
    private func keyText(of record: [String: Any], _ entity: EntityDescription) -> String? {
        let table = table(for: entity)
        return table.relatedBy.flatMap { try? table.value(of: $0, in: record)?.value }.map { "\($0)" }
    }

    func table(for entity: EntityDescription) -> JSONKeyTable {
        if let table = tables[ObjectIdentifier(entity)] { return table }
        let table = JSONKeyTable(entity: entity, mapping: options.mapping)
        tables[ObjectIdentifier(entity)] = table
        return table
    }

    /// The attribute the items of `relationship` whose entity is `destination` are matched
    /// by: the relationship's own (``JSONMapping/relationshipRelatedBy``, user info), else
    /// the destination's.
    func relatedBy(of relationship: RelationshipDescription, destination: EntityDescription) -> AttributeDescription? {
        let id = ObjectIdentifier(relationship)
        let name: String?
        if let cached = relationshipRelatedByNames[id] {
            name = cached
        } else {
            name = options.mapping.relationshipRelatedByName(of: relationship)
            relationshipRelatedByNames[id] = .some(name)
        }
        guard let name else { return table(for: destination).relatedBy }
        return destination.property(named: name) as? AttributeDescription
    }

    /// The value `record` gives for `property` and the key (path) it gives it under, or nil.
    func value(of property: PropertyDescription, in record: [String: Any], table: JSONKeyTable, entity: EntityDescription,
               index: Int, path: String) throws -> (value: Any, key: String)? {
        do {
            return try table.value(of: property, in: record)
        } catch {
            throw JSONImportError(.wrongType, index: index, key: Self.join(path, error.keyPath), entity: entity.name,
                                  "the key path '\(error.keyPath)' of \(entity.name).\(property.name) goes through '\(error.prefix)', which is \(error.found), not an object")
        }
    }

    /// The entity a record names with the entity key (a sub-entity of `base`), else `base`.
    func entity(of record: [String: Any], base: EntityDescription, index: Int, path: String) throws -> EntityDescription {
        guard let entityKey = options.entityKey, base.property(named: entityKey) == nil, let named = record[entityKey] else { return base }
        guard let name = named as? String, let entity = context.managedObjectModel.entitiesByName[name], entity.isKind(of: base) else {
            let known = base.selfAndDescendants.map(\.name).joined(separator: ", ")
            throw JSONImportError(.unknownEntity, index: index, key: Self.join(path, entityKey), entity: base.name,
                                  "'\(named)' is not \(base.name) or one of its sub-entities (\(known))")
        }
        guard !entity.isAbstract else {
            throw JSONImportError(.unknownEntity, index: index, key: Self.join(path, entityKey), entity: base.name, "\(entity.name) is abstract")
        }
        return entity
    }

    /// The lookup key of the record's related-by value, or nil when it has none.
    func lookupKey(of attribute: AttributeDescription, in record: [String: Any], entity: EntityDescription, index: Int, path: String) throws -> JSONLookupKey? {
        guard let (raw, key) = try value(of: attribute, in: record, table: table(for: entity), entity: entity, index: index, path: path) else { return nil }
        return JSONLookupKey(try slotValue(raw, for: attribute, entity: entity, index: index, path: path, key: key))
    }

    /// The stored value of `raw` for `attribute`; `path` and `key` (joined only for a
    /// message) name where `raw` is.
    func slotValue(_ raw: Any, for attribute: AttributeDescription, entity: EntityDescription, index: Int, path: String, key: String? = nil) throws -> SlotValue {
        do {
            let format = attribute.attributeType == .date ? table(for: entity).dateFormats[attribute.slot] : nil
            return try attribute.slotValue(fromJSON: raw, dateNumbers: options.dateNumbers, dateFormat: format)
        } catch {
            throw JSONImportError(.wrongType, index: index, key: key.map { Self.join(path, $0) } ?? path, entity: entity.name,
                                  "\(entity.name).\(attribute.name) takes \(error.expected), not \(Self.jsonTypeName(raw)) \(Self.shortText(raw))")
        }
    }

    // MARK: Messages

    static func join(_ path: String, _ key: String) -> String { path.isEmpty ? key : "\(path).\(key)" }

    static func jsonTypeName(_ value: Any) -> String {
        switch value {
        case is NSNull: return "null"
        case is JSONNumber: return "a number"
        case let number as NSNumber: return number.objCType.pointee == 0x63 ? "a boolean" : "a number"
        case is String: return "a string"
        case is [Any]: return "an array"
        case is [String: Any]: return "an object"
        default: return "a \(type(of: value))"
        }
    }

    static func shortText(_ value: Any) -> String {
        let text = value is String ? "\"\(value)\"" : "\(value)"
        return text.count > 60 ? String(text.prefix(57)) + "..." : text
    }
}
