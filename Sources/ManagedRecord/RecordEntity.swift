import Foundation
import ObjectGraph

/// One entity of a model that is set up, reached by name, with RHManagedObject's class-level
/// helpers: for the entities of an Xcode model file that have no Swift class. Its objects
/// are `ManagedObject`s read and written by key (`value(forKey:)`, `setValue(_:forKey:)`).
///
/// ```swift
/// let shifts = try ManagedRecord.entity("Shift")       // or Worker.contextManager.entity(named: "Shift")
/// let shift = try shifts.newEntity()
/// try shift.setValue(7.5, forKey: "hours")
/// try shifts.commit()
/// let long = try shifts.fetch(where: "hours > %@", 6, sortedBy: [SortKey("day")])
/// let total = try shifts.aggregate(.sum, of: "hours")
/// ```
///
/// Like the class-level helpers, every call works on the calling thread's hidden context
/// (the task's inside `perform`), so a value of this type can be kept and used from any
/// thread. It works for entities with a class too (its objects are then of that class).
public struct RecordEntity: Sendable, CustomStringConvertible {
    /// The manager of the entity's model.
    public let contextManager: ContextManager
    /// The entity's name.
    public let name: String
    /// Whether fetches include objects of sub-entities, unless a call says otherwise.
    public var includesSubentities = true

    init(contextManager: ContextManager, name: String) {
        self.contextManager = contextManager
        self.name = name
    }

    /// The entity in its model. Touches no store.
    public var entityDescription: EntityDescription { contextManager.model.entitiesByName[name]! }

    /// The calling thread's context of the entity's model.
    public var contextForCurrentThread: ManagedObjectContext { contextManager.contextForCurrentThread }

    /// The entity and its model: `Shift (model Workforce)`.
    public var description: String { "\(name) (model \(contextManager.name))" }

    // MARK: Creating, committing

    /// A new object of the entity inserted into the calling thread's context.
    ///
    /// - Throws: ``ModelError`` when the entity cannot have objects of its own.
    public func newEntity() throws -> ManagedObject {
        try contextForCurrentThread.insertNewObject(forEntityName: name)
    }

    /// Saves the calling thread's context (every entity's changes in it, as the class-level
    /// `commit()` does); afterwards every other context of the model sees them.
    public func commit() throws {
        let context = contextForCurrentThread
        contextManager.prepareCommit(of: context)
        try context.save()
    }

    /// Discards the calling thread's unsaved changes.
    public func rollback() {
        contextForCurrentThread.rollback()
    }

    // MARK: Fetching

    /// A fetch request for the entity.
    public func fetchRequest(where predicate: FetchPredicate? = nil, sortedBy sortKeys: [SortKey] = [], limit: Int = 0,
                             includesSubentities: Bool? = nil) -> FetchRequest<ManagedObject> {
        var request = FetchRequest<ManagedObject>(entityName: name)
        request.predicate = predicate
        request.sortDescriptors = sortKeys
        request.fetchLimit = limit
        request.includesSubentities = includesSubentities ?? self.includesSubentities
        return request
    }

    /// Every object of the entity (the first `limit` when above 0).
    public func fetchAll(sortedBy sortKeys: [SortKey] = [], limit: Int = 0, includesSubentities: Bool? = nil) throws -> [ManagedObject] {
        try contextForCurrentThread.fetch(fetchRequest(sortedBy: sortKeys, limit: limit, includesSubentities: includesSubentities))
    }

    /// The objects matching `predicate`, sorted and limited.
    public func fetch(where predicate: FetchPredicate, sortedBy sortKeys: [SortKey] = [], limit: Int = 0,
                      includesSubentities: Bool? = nil) throws -> [ManagedObject] {
        try contextForCurrentThread.fetch(fetchRequest(where: predicate, sortedBy: sortKeys, limit: limit, includesSubentities: includesSubentities))
    }

    /// The objects matching `format` with `arguments` (`"hours > %@", 6`), sorted and limited.
    ///
    /// - Throws: ``FetchPredicateError`` for a malformed format, an unknown key or a type
    ///   mismatch.
    public func fetch(where format: String, _ arguments: Any?..., sortedBy sortKeys: [SortKey] = [], limit: Int = 0,
                      includesSubentities: Bool? = nil) throws -> [ManagedObject] {
        try fetch(where: FetchPredicate(format, argumentArray: arguments), sortedBy: sortKeys, limit: limit, includesSubentities: includesSubentities)
    }

    /// The first object matching `predicate` (every object when nil) in `sortKeys` order, or nil.
    public func get(where predicate: FetchPredicate? = nil, sortedBy sortKeys: [SortKey] = []) throws -> ManagedObject? {
        try contextForCurrentThread.fetch(fetchRequest(where: predicate, sortedBy: sortKeys, limit: 1)).first
    }

    /// The first object matching `format` in `sortKeys` order, or nil.
    public func get(where format: String, _ arguments: Any?..., sortedBy sortKeys: [SortKey] = []) throws -> ManagedObject? {
        try get(where: FetchPredicate(format, argumentArray: arguments), sortedBy: sortKeys)
    }

    /// The first object matching `predicate`, or a new one inserted when none matches.
    public func newOrExistingEntity(where predicate: FetchPredicate) throws -> ManagedObject {
        try get(where: predicate) ?? newEntity()
    }

    /// The first object matching `format` with `arguments`, or a new one inserted.
    public func newOrExistingEntity(where format: String, _ arguments: Any?...) throws -> ManagedObject {
        try newOrExistingEntity(where: FetchPredicate(format, argumentArray: arguments))
    }

    /// The objects matching `predicate` (all when nil) keyed by their value of `key`; nil
    /// keys are left out, a later object with the same key replaces an earlier one.
    ///
    /// - Throws: ``KeyValueError`` when `key` is not a property of the entity, ``RecordError``
    ///   when its values are not `Hashable`.
    public func fetchDictionary(keyedBy key: String, where predicate: FetchPredicate? = nil, sortedBy sortKeys: [SortKey] = [],
                                limit: Int = 0) throws -> [AnyHashable: ManagedObject] {
        try ManagedObject.dictionary(of: contextForCurrentThread.fetch(fetchRequest(where: predicate, sortedBy: sortKeys, limit: limit)), keyedBy: key)
    }

    // MARK: Questions the store answers

    /// The number of objects matching `predicate` (every object when nil), from one
    /// `SELECT COUNT(*)`.
    public func count(where predicate: FetchPredicate? = nil) throws -> Int {
        try contextForCurrentThread.count(for: fetchRequest(where: predicate))
    }

    /// The number of objects matching `format` with `arguments`.
    public func count(where format: String, _ arguments: Any?...) throws -> Int {
        try count(where: FetchPredicate(format, argumentArray: arguments))
    }

    /// The distinct non-nil values of `attribute` among the objects matching `predicate`,
    /// ascending.
    public func distinctValues<V: AttributeValue>(of attribute: String, as type: V.Type, where predicate: FetchPredicate? = nil) throws -> [V] {
        try contextForCurrentThread.distinctValues(of: attribute, as: type, for: fetchRequest(where: predicate))
    }

    /// `function` of `attribute` over the objects matching `predicate`, as a Double (see
    /// `Record.aggregate(_:of:where:default:)`); nil, or `defaultValue`, when none matches.
    public func aggregate(_ function: AggregateFunction, of attribute: String, where predicate: FetchPredicate? = nil,
                          default defaultValue: Double? = nil) throws -> Double? {
        try contextForCurrentThread.aggregate(function, of: attribute, for: fetchRequest(where: predicate)) ?? defaultValue
    }

    /// `function` of `attribute` in the attribute's own type (`.max` of a Date as a `Date`,
    /// `.sum` of a Decimal as an exact `Decimal`).
    public func aggregate<V: AttributeValue>(_ function: AggregateFunction, of attribute: String, as type: V.Type,
                                             where predicate: FetchPredicate? = nil) throws -> V? {
        try contextForCurrentThread.aggregate(function, of: attribute, as: type, for: fetchRequest(where: predicate))
    }

    // MARK: Deleting, importing

    /// Deletes every object matching `predicate` (all when nil) as one SQL batch that
    /// **commits at once**, delete rules applied (see `Record.deleteAll(where:)`).
    ///
    /// - Returns: the number of objects deleted (cascaded ones not counted).
    @discardableResult
    public func deleteAll(where predicate: FetchPredicate? = nil) throws -> Int {
        var request = BatchDeleteRequest(entityName: name, predicate: predicate)
        request.includesSubentities = includesSubentities
        request.resultType = .count
        return try contextForCurrentThread.execute(request).count
    }

    /// Marks every object matching `predicate` (all when nil) deleted in the calling
    /// thread's context, to be written by ``commit()`` or undone by ``rollback()``.
    ///
    /// - Returns: how many objects were marked deleted.
    @discardableResult
    public func delete(where predicate: FetchPredicate? = nil) throws -> Int {
        let context = contextForCurrentThread
        let objects = try context.fetch(fetchRequest(where: predicate))
        for object in objects { context.delete(object) }
        return objects.count
    }

    /// Imports a JSON array of records (or one record) as objects of the entity, upserting by
    /// `relatedBy` (see `Record.importJSON(_:relatedBy:options:)`).
    @discardableResult
    public func importJSON(_ data: Data, relatedBy attribute: String? = nil, options: JSONImportOptions = JSONImportOptions()) throws -> JSONImportReport {
        try contextForCurrentThread.importJSON(data, entityName: name, options: options.relating(entityDescription, by: attribute))
    }
}

extension ContextManager {
    /// The entity called `name` of this manager's model, with the class-level helpers (see
    /// ``RecordEntity``).
    ///
    /// - Throws: ``ModelError`` `.unknownEntity` naming the entities the model has.
    public func entity(named name: String) throws -> RecordEntity {
        _ = try model.entity(named: name)
        return RecordEntity(contextManager: self, name: name)
    }
}
