import Foundation
import ObjectGraph

/// MagicalRecord's import as class-level helpers: JSON records upserted by a unique
/// attribute, saved, and visible to this thread's context (and every other) afterwards.
extension Record where Self: ManagedObject {
    /// Imports a JSON array of records (or one record) as objects of this entity, upserting
    /// each by `relatedBy` (else by the entity's related-by attribute in `options` or its
    /// ``JSONImportable`` conformance; with none, every record inserts).
    ///
    /// ```swift
    /// let report = try Employee.importJSON(data, relatedBy: "badge")
    /// print(report)   // Imported 3 records: 2 inserted, 1 updated, 0 skipped, 1 transaction
    /// ```
    ///
    /// The import saves on a context of its own: this thread's unsaved changes are neither
    /// committed nor disturbed, and its objects see the imported values at their next
    /// access.
    ///
    /// - Throws: ``JSONImportError`` naming the record and key; in one transaction (the
    ///   default) nothing is imported then. With `options.batchSize`, earlier batches stay
    ///   committed and the error's `report` lists them.
    @discardableResult
    public static func importJSON(_ data: Data, relatedBy attribute: String? = nil,
                                  options: JSONImportOptions = JSONImportOptions()) throws -> JSONImportReport {
        try contextForCurrentThread.importJSON(data, entityName: entityDescription.name, options: options.relating(entityDescription, by: attribute))
    }

    /// Imports records (dictionaries of JSON values, or of Swift values such as `Date`,
    /// `UUID`, `Data`) as objects of this entity; see ``importJSON(_:relatedBy:options:)``.
    ///
    /// ```swift
    /// try Employee.import(from: [["badge": badge, "firstName": "Ann", "age": "41"]], relatedBy: "badge")
    /// ```
    @discardableResult
    public static func `import`(from records: [[String: Any]], relatedBy attribute: String? = nil,
                                options: JSONImportOptions = JSONImportOptions()) throws -> JSONImportReport {
        try contextForCurrentThread.importRecords(records, entityName: entityDescription.name, options: options.relating(entityDescription, by: attribute))
    }
}

extension JSONImportOptions {
    /// These options with `attribute` as `entity`'s related-by attribute, when given.
    func relating(_ entity: EntityDescription, by attribute: String?) -> JSONImportOptions {
        guard let attribute else { return self }
        var options = self
        options.mapping.relatedBy[entity.name] = attribute
        return options
    }
}
