import Foundation
import ObjectGraph

/// RHManagedObject's fetching helpers. Every `where:` takes a format string with its
/// arguments (`"age > %@", 40`) or a typed ``FetchPredicate`` (`\Employee.$age > 40`).
extension Record where Self: ManagedObject {
    /// A fetch request for the entity with `predicate`, sort keys and a limit (sub-entities
    /// as ``fetchRequest(sortedBy:limit:includesSubentities:)`` says).
    public static func fetchRequest(where predicate: FetchPredicate?, sortedBy sortKeys: [SortKey] = [], limit: Int = 0,
                                    includesSubentities: Bool? = nil) -> FetchRequest<Self> {
        var request = fetchRequest(sortedBy: sortKeys, limit: limit, includesSubentities: includesSubentities)
        request.predicate = predicate
        return request
    }

    /// A fetch request for the entity whose predicate is `format` with `arguments` (parsed
    /// by the request), sort keys and a limit (sub-entities as
    /// ``fetchRequest(sortedBy:limit:includesSubentities:)`` says).
    ///
    /// - Throws: ``FetchPredicateError`` for a malformed format or a bad argument.
    public static func fetchRequest(where format: String, argumentArray arguments: [Any?], sortedBy sortKeys: [SortKey] = [],
                                    limit: Int = 0, includesSubentities: Bool? = nil) throws -> FetchRequest<Self> {
        try FetchRequest(format: format, argumentArray: arguments, sortDescriptors: sortKeys, fetchLimit: limit,
                         includesSubentities: includesSubentities ?? shouldFetchRequestsReturnSubentities)
    }

    // MARK: Fetch

    /// The objects matching `format` (with `arguments`), sorted and limited.
    ///
    /// ```swift
    /// let page = try Employee.fetch(where: "age > %@", 30, sortedBy: [SortKey("lastName")], limit: 5)
    /// ```
    ///
    /// - Throws: ``FetchPredicateError`` for a malformed format, an unknown key or a type
    ///   mismatch; nothing reaches the store then.
    public static func fetch(where format: String, _ arguments: Any?..., sortedBy sortKeys: [SortKey] = [], limit: Int = 0,
                             includesSubentities: Bool? = nil) throws -> [Self] {
        try contextForCurrentThread.fetch(fetchRequest(where: format, argumentArray: arguments, sortedBy: sortKeys, limit: limit,
                                                       includesSubentities: includesSubentities))
    }

    /// The objects matching `predicate`, sorted and limited; `includesSubentities` overrides
    /// ``ManagedObject/shouldFetchRequestsReturnSubentities`` for this call.
    public static func fetch(where predicate: FetchPredicate, sortedBy sortKeys: [SortKey] = [], limit: Int = 0,
                             includesSubentities: Bool? = nil) throws -> [Self] {
        try contextForCurrentThread.fetch(fetchRequest(where: predicate, sortedBy: sortKeys, limit: limit,
                                                       includesSubentities: includesSubentities))
    }

    /// The first object matching `format` in `sortKeys` order, or nil (a fetch limited to one).
    public static func get(where format: String, _ arguments: Any?..., sortedBy sortKeys: [SortKey] = []) throws -> Self? {
        try contextForCurrentThread.fetch(fetchRequest(where: format, argumentArray: arguments, sortedBy: sortKeys, limit: 1)).first
    }

    /// The first object matching `predicate` in `sortKeys` order, or nil.
    public static func get(where predicate: FetchPredicate, sortedBy sortKeys: [SortKey] = []) throws -> Self? {
        try fetch(where: predicate, sortedBy: sortKeys, limit: 1).first
    }

    /// The first object matching `format`, or a new one inserted when none matches.
    public static func newOrExistingEntity(where format: String, _ arguments: Any?...) throws -> Self {
        try newOrExistingEntity(where: FetchPredicate(format, argumentArray: arguments))
    }

    /// The first object matching `predicate`, or a new one inserted when none matches.
    public static func newOrExistingEntity(where predicate: FetchPredicate) throws -> Self {
        try get(where: predicate) ?? newEntity()
    }

    /// The objects matching `predicate` (all when nil), keyed by the value of `key`; objects
    /// whose key is nil are left out, and a later object with the same key replaces an
    /// earlier one.
    ///
    /// ```swift
    /// let byBadge = try Employee.fetchDictionary(keyedBy: "badge")   // [AnyHashable: Employee]
    /// ```
    ///
    /// - Throws: ``KeyValueError`` when `key` is not a property of the entity, ``RecordError``
    ///   when its values are not `Hashable`.
    public static func fetchDictionary(keyedBy key: String, where predicate: FetchPredicate? = nil,
                                       sortedBy sortKeys: [SortKey] = [], limit: Int = 0) throws -> [AnyHashable: Self] {
        try dictionary(of: contextForCurrentThread.fetch(fetchRequest(where: predicate, sortedBy: sortKeys, limit: limit)), keyedBy: key)
    }

    /// ``fetchDictionary(keyedBy:where:sortedBy:limit:)`` fetched on a background context, off
    /// the calling thread; the objects come back in the caller's context (see
    /// ``fetchInBackground(sortedBy:limit:)``).
    ///
    /// ```swift
    /// let byBadge = try await Employee.fetchDictionaryInBackground(keyedBy: "badge", limit: 100)
    /// ```
    nonisolated(nonsending)
    public static func fetchDictionaryInBackground(keyedBy key: String, where predicate: FetchPredicate? = nil,
                                                   sortedBy sortKeys: [SortKey] = [], limit: Int = 0) async throws -> [AnyHashable: Self] {
        try dictionary(of: await fetchInBackground(request: fetchRequest(where: predicate, sortedBy: sortKeys, limit: limit)), keyedBy: key)
    }

    /// `objects` keyed by their value of `key` (nil keys left out, later objects win).
    static func dictionary<Object: ManagedObject>(of objects: [Object], keyedBy key: String) throws -> [AnyHashable: Object] {
        var result: [AnyHashable: Object] = [:]
        result.reserveCapacity(objects.count)
        for object in objects {
            guard let value = try object.checkedValue(forKey: key) else { continue }
            guard let hashable = value as? AnyHashable else {
                throw RecordError(objectID: object.objectID, message: "\(object.entity.name).\(key) holds a \(type(of: value)), which is not Hashable, so it cannot key a dictionary")
            }
            result[hashable] = object
        }
        return result
    }

    /// ``fetchDictionary(keyedBy:where:sortedBy:limit:)`` with a format string.
    public static func fetchDictionary(keyedBy key: String, where format: String, _ arguments: Any?...) throws -> [AnyHashable: Self] {
        try fetchDictionary(keyedBy: key, where: FetchPredicate(format, argumentArray: arguments))
    }

    /// Fetches the objects matching `predicate` on a background context, off the calling
    /// thread, and returns them in the caller's context.
    ///
    /// Like every `fetchInBackground`, it runs in the caller's isolation: from main-actor or
    /// top-level code the objects come back in the main context, inside `perform` in the
    /// task's context.
    nonisolated(nonsending)
    public static func fetchInBackground(where predicate: FetchPredicate, sortedBy sortKeys: [SortKey] = [], limit: Int = 0) async throws -> [Self] {
        try await fetchInBackground(request: fetchRequest(where: predicate, sortedBy: sortKeys, limit: limit))
    }

    /// ``fetchInBackground(where:sortedBy:limit:)`` with a format string.
    ///
    /// ```swift
    /// let smiths = try await Employee.fetchInBackground(where: "lastName == %@", "Smith")
    /// ```
    nonisolated(nonsending)
    public static func fetchInBackground(where format: String, _ arguments: Any?...) async throws -> [Self] {
        try await fetchInBackground(where: FetchPredicate(format, argumentArray: arguments))
    }

    // MARK: Questions the store answers

    /// The number of objects matching `format` (one `SELECT COUNT(*)`; no object is made).
    public static func count(where format: String, _ arguments: Any?...) throws -> Int {
        try count(where: FetchPredicate(format, argumentArray: arguments))
    }

    /// The number of objects matching `predicate`.
    public static func count(where predicate: FetchPredicate) throws -> Int {
        try contextForCurrentThread.count(for: fetchRequest(where: predicate))
    }

    /// The distinct non-nil values of `attribute` among the objects matching `predicate`, in
    /// ascending order, from one `SELECT DISTINCT`.
    ///
    /// ```swift
    /// let lastNames = try Employee.distinctValues(of: "lastName", as: String.self)
    /// ```
    ///
    /// - Throws: ``FetchPredicateError`` (`typeMismatch`) when `type` cannot hold the
    ///   attribute's values (a `String` for an integer attribute).
    public static func distinctValues<V: AttributeValue>(of attribute: String, as type: V.Type,
                                                         where predicate: FetchPredicate? = nil) throws -> [V] {
        try contextForCurrentThread.distinctValues(of: attribute, as: type, for: fetchRequest(where: predicate))
    }

    /// ``distinctValues(of:as:where:)`` with a format string.
    public static func distinctValues<V: AttributeValue>(of attribute: String, as type: V.Type,
                                                         where format: String, _ arguments: Any?...) throws -> [V] {
        try distinctValues(of: attribute, as: type, where: FetchPredicate(format, argumentArray: arguments))
    }

    /// `function` (`.average`, `.sum`, `.min`, `.max`, `.count`) of `attribute` over the
    /// objects matching `predicate`, computed by SQLite, as a Double: for counts and for
    /// attributes a Double holds (integers, Double, Float, Bool). nil (or `defaultValue`) when
    /// no object matches.
    ///
    /// ```swift
    /// let meanAge = try Employee.aggregate(.average, of: "age")
    /// ```
    ///
    /// - Throws: ``FetchPredicateError`` (`typeMismatch`) for a Decimal, Date, String or other
    ///   attribute a Double would misstate: use ``aggregate(_:of:as:where:)``.
    public static func aggregate(_ function: AggregateFunction, of attribute: String, where predicate: FetchPredicate? = nil,
                                 default defaultValue: Double? = nil) throws -> Double? {
        try contextForCurrentThread.aggregate(function, of: attribute, for: fetchRequest(where: predicate)) ?? defaultValue
    }

    /// ``aggregate(_:of:where:default:)`` with a format string.
    public static func aggregate(_ function: AggregateFunction, of attribute: String, where format: String, _ arguments: Any?...) throws -> Double? {
        try aggregate(function, of: attribute, where: FetchPredicate(format, argumentArray: arguments))
    }

    /// `function` of `attribute` in the attribute's own type: `.max` of a Date as a `Date`,
    /// `.sum` of a Decimal as an exact `Decimal`, `.max` of an `Int` as an `Int`. nil when no
    /// object matches (`.sum` and `.count` give 0).
    ///
    /// ```swift
    /// let latest = try Employee.aggregate(.max, of: "hired", as: Date.self)
    /// ```
    ///
    /// - Throws: ``FetchPredicateError`` (`typeMismatch`) naming the attribute, its type and
    ///   `type` when the result cannot be read as `type`.
    public static func aggregate<V: AttributeValue>(_ function: AggregateFunction, of attribute: String, as type: V.Type,
                                                    where predicate: FetchPredicate? = nil) throws -> V? {
        try contextForCurrentThread.aggregate(function, of: attribute, as: type, for: fetchRequest(where: predicate))
    }

    /// ``aggregate(_:of:as:where:)`` with a format string.
    public static func aggregate<V: AttributeValue>(_ function: AggregateFunction, of attribute: String, as type: V.Type,
                                                    where format: String, _ arguments: Any?...) throws -> V? {
        try aggregate(function, of: attribute, as: type, where: FetchPredicate(format, argumentArray: arguments))
    }
}

/// RHManagedObject's deleting helpers: one SQL batch delete, delete rules honoured.
extension Record where Self: ManagedObject {
    /// Deletes every object matching `predicate` (all objects of the entity when nil) in one
    /// SQL transaction, applying delete rules (cascade, nullify; a deny rule refuses the
    /// whole batch). Registered objects in every context become deleted: in this thread's at
    /// once, in the others at their next access. Unsaved changes of this thread's context
    /// are untouched. Without a predicate the rows are deleted with one SQL `DELETE` and
    /// never read, so deleting every object costs about what SQLite takes to delete them.
    ///
    /// **It commits at once**: the deletion is written before it returns, needs no
    /// ``commit()`` and cannot be rolled back. For a deletion that waits for `commit()` and
    /// can be rolled back, use ``delete(where:)``.
    ///
    /// ```swift
    /// let removed = try Employee.deleteAll(where: "age < %@", 18)
    /// ```
    ///
    /// - Returns: the number of objects deleted (cascaded ones not counted).
    /// - Throws: ``FetchPredicateError`` for a bad predicate, `BatchRequestError` when a
    ///   deny rule refuses; nothing is deleted then.
    @discardableResult
    public static func deleteAll(where predicate: FetchPredicate? = nil) throws -> Int {
        guard let entity = contextForCurrentThread.managedObjectModel.entity(for: self) else {
            fatalError("ManagedRecord: \(self) is not an entity of model \(contextManager.name)")
        }
        var request = BatchDeleteRequest(entityName: entity.name, predicate: predicate)
        request.includesSubentities = shouldFetchRequestsReturnSubentities
        request.resultType = .count
        return try contextForCurrentThread.execute(request).count
    }

    /// ``deleteAll(where:)`` with a format string.
    @discardableResult
    public static func deleteAll(where format: String, _ arguments: Any?...) throws -> Int {
        try deleteAll(where: FetchPredicate(format, argumentArray: arguments))
    }
}
