import Foundation

/// Deletes every object of an entity that a predicate selects, as SQL inside one transaction,
/// without loading the objects. Delete rules apply (cascade deletes destinations, nullify
/// clears the inverse, deny refuses); afterwards every context's registered objects are
/// brought up to date.
///
/// ```swift
/// var request = BatchDeleteRequest(entityName: "Employee", predicate: try FetchPredicate("age < %@", 18))
/// request.resultType = .objectIDs
/// let result = try context.execute(request)
/// print(result.count, result.objectIDs)
/// ```
///
/// Without a predicate (or with `TRUEPREDICATE`) the request deletes the entity's rows with
/// one `DELETE` and never lists them: contexts learn that every object of the entity saved
/// up to then is gone, so the cost does not grow with the number of rows beyond SQLite's own.
public struct BatchDeleteRequest: Sendable {
    /// What ``BatchResult`` reports besides ``BatchResult/count``, as Core Data's
    /// `NSBatchDeleteRequestResultType`. The count is always there (SQLite counts the rows
    /// it deletes), so `.statusOnly` and `.count` give the same result.
    public enum ResultType: Sendable, Hashable {
        /// Whether the request succeeded: it returns instead of throwing.
        case statusOnly
        /// How many objects were deleted.
        case count
        /// The IDs of the deleted objects too, in ``BatchResult/objectIDs``. Listing them
        /// costs one read of every selected row.
        case objectIDs
    }

    public var entityName: String
    /// Which objects; nil deletes every object of the entity.
    public var predicate: FetchPredicate?
    /// Whether objects of sub-entities are deleted too.
    public var includesSubentities = true
    /// What the result lists; ``ResultType/count`` (the default) leaves
    /// ``BatchResult/objectIDs`` empty.
    public var resultType = ResultType.count

    public init(entityName: String, predicate: FetchPredicate? = nil) {
        self.entityName = entityName
        self.predicate = predicate
    }

    /// A request for the entity of `type`.
    public init<T: ManagedObject>(_ type: T.Type, predicate: FetchPredicate? = nil) {
        self.init(entityName: type.entityName, predicate: predicate)
    }
}

/// Sets attributes of every object of an entity that a predicate selects, as one SQL
/// `UPDATE` inside one transaction, without loading the objects; afterwards every context's
/// registered objects show the new values.
///
/// ```swift
/// var raise = BatchUpdateRequest(entityName: "Employee", predicate: try FetchPredicate("department.name == %@", "Sales"))
/// raise.propertiesToUpdate = ["salary": 7000.0, "nickname": nil]
/// let result = try context.execute(raise)
/// ```
public struct BatchUpdateRequest: Sendable {
    public var entityName: String
    public var predicate: FetchPredicate?
    /// New values by attribute name (values as for `%@`; nil for an optional attribute).
    public var propertiesToUpdate: [String: (any Sendable)?]
    public var includesSubentities = true

    public init(entityName: String, predicate: FetchPredicate? = nil, propertiesToUpdate: [String: (any Sendable)?] = [:]) {
        self.entityName = entityName
        self.predicate = predicate
        self.propertiesToUpdate = propertiesToUpdate
    }

    public init<T: ManagedObject>(_ type: T.Type, predicate: FetchPredicate? = nil, propertiesToUpdate: [String: (any Sendable)?] = [:]) {
        self.init(entityName: type.entityName, predicate: predicate, propertiesToUpdate: propertiesToUpdate)
    }
}

/// What a batch request did.
public struct BatchResult: Sendable {
    /// How many objects the request's predicate selected (and deleted or updated).
    public let count: Int
    /// Their IDs: always for a batch update; for a batch delete only when its
    /// ``BatchDeleteRequest/resultType`` is ``BatchDeleteRequest/ResultType/objectIDs``,
    /// empty otherwise.
    public let objectIDs: [ObjectID]
    /// Objects deleted by cascade rules beyond those (batch delete only).
    public let cascadedObjectIDs: [ObjectID]
    /// Objects whose relationships were cleared by nullify rules (batch delete only).
    public let nullifiedObjectIDs: [ObjectID]
}

/// A batch request that cannot run: a delete refused by a deny rule, an update of an
/// unknown or non-attribute key, or a value of the wrong type. Nothing was changed.
public struct BatchRequestError: Error, CustomStringConvertible, Sendable {
    public struct Code: Hashable, Sendable, CustomStringConvertible {
        let name: String
        /// A deny delete rule found destinations.
        public static let denied = Code(name: "denied")
        /// An update names a key that is not a stored attribute, or gives a wrong value.
        public static let invalidUpdate = Code(name: "invalidUpdate")
        public var description: String { name }
    }

    public let code: Code
    public let entity: String
    public let key: String?
    public let message: String

    public var description: String { "Batch request error (\(code)) on \(entity)\(key.map { ".\($0)" } ?? ""): \(message)" }
}
