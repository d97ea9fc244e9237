import Foundation

// MagicalRecord's import: JSON records upserted by a unique attribute.
extension ManagedObjectContext {
    /// Imports a JSON array of records (or one record) as objects of `entityName`, upserting
    /// each by its entity's related-by attribute, and saves.
    ///
    /// For example:
    ///
    /// ```swift
    /// let json = Data(#"[{"badge": "8C1F...", "first_name": "Ann", "hired": "2024-05-01",
    ///                    "department": {"name": "Sales"}}]"#.utf8)
    /// let report = try context.importJSON(json, entityName: "Employee",
    ///                                     options: JSONImportOptions(relatedBy: ["Employee": "badge", "Department": "name"]))
    /// print(report.inserted.count, report.updated.count, report.skipped)
    /// ```
    ///
    /// The import runs on a private context of its own on this context's store, so this
    /// context's unsaved changes are neither saved nor disturbed; the saved objects reach
    /// this context (and every other merging one) like any other save. Records see the
    /// store as saved, not this context's unsaved objects.
    ///
    /// - Throws: ``JSONImportError`` naming the record and key of bad input. By default the
    ///   import is one transaction: after an error the store and this context are as they
    ///   were. With ``JSONImportOptions/batchSize`` the batches before the failing one stay
    ///   committed, and the error's report says which.
    @discardableResult
    public func importJSON(_ data: Data, entityName: String, options: JSONImportOptions = JSONImportOptions()) throws -> JSONImportReport {
        let parsed: Any
        do {
            // Numbers keep their text: each attribute reads its value from all the digits.
            parsed = try JSONParser.parse(data)
        } catch {
            throw JSONImportError(.malformedJSON, entity: entityName, "the data is not JSON: \(error)")
        }
        if let record = parsed as? [String: Any] { return try importRecords([record], entityName: entityName, options: options) }
        guard let records = parsed as? [Any] else {
            throw JSONImportError(.malformedJSON, entity: entityName, "the JSON is \(JSONImporter.jsonTypeName(parsed)), not an array of records or one record")
        }
        return try importRecords(records, entityName: entityName, options: options)
    }

    /// Imports records (dictionaries as `JSONSerialization` reads them, or with Swift values
    /// such as `Date`, `UUID` and `Data` in them) as objects of `entityName`; see
    /// ``importJSON(_:entityName:options:)``.
    @discardableResult
    public func importRecords(_ records: [Any], entityName: String, options: JSONImportOptions = JSONImportOptions()) throws -> JSONImportReport {
        guard let entity = managedObjectModel.entitiesByName[entityName] else {
            let known = managedObjectModel.entities.map(\.name).joined(separator: ", ")
            throw JSONImportError(.unknownEntity, entity: entityName, "the model has no entity named \(entityName) (it has: \(known))")
        }
        if let key = options.mapping.relatedBy.first(where: { name, attribute in
            managedObjectModel.entitiesByName[name].map { !($0.property(named: attribute) is AttributeDescription) } ?? true
        }) {
            throw JSONImportError(.unknownKey, key: key.value, entity: key.key,
                                  "the related-by attribute \(key.key).\(key.value) is not an attribute of an entity of the model")
        }
        if let problem = options.mapping.problem(reachableFrom: entity) { throw problem }
        if let size = options.batchSize, size < 1 { preconditionFailure("ManagedRecord: JSONImportOptions.batchSize must be at least 1, or nil for one transaction") }
        let importContext = ManagedObjectContext(coordinator: persistentStoreCoordinator, concurrencyType: .privateQueue, name: "\(name).import")
        importContext.mergePolicy = mergePolicy
        importContext.automaticallyMergesChanges = false
        return try importContext.performAndWait {
            try JSONImporter(context: importContext, entity: entity, options: options).run(records)
        }
    }
}
