/// What to fetch: an entity (by class or by name), a predicate, sort order, paging, batching,
/// prefetching and whether to include sub-entities and unsaved changes.
///
/// For example:
///
/// ```swift
/// var request = FetchRequest<Employee>()
/// request.predicate = try FetchPredicate("age > %@ AND department.name == %@", 40, "Sales")
/// request.sortDescriptors = [SortKey("lastName"), SortKey("age", ascending: false)]
/// request.fetchLimit = 10
/// let page = try context.fetch(request)
/// let total = try context.count(for: request)
///
/// var cars = FetchRequest<ManagedObject>(entityName: "Car")   // an entity without a class
/// ```
public struct FetchRequest<Result: ManagedObject>: Sendable {
    /// The kind of result ``ManagedObjectContext/execute(_:)`` returns.
    public enum ResultType: Sendable {
        case managedObject, managedObjectID, count, dictionary
    }

    /// The entity to fetch; nil means the entity of `Result`.
    public var entityName: String?
    /// Which objects match; nil matches every object of the entity.
    public var predicate: FetchPredicate?
    /// The order of the results; fetches without one come back in store order.
    public var sortDescriptors: [SortKey] = []
    /// The most objects to return; 0 means no limit.
    public var fetchLimit = 0
    /// How many matching objects to skip first.
    public var fetchOffset = 0
    /// With a value above 0, ``ManagedObjectContext/fetchBatched(_:)`` returns a collection that
    /// loads the matching objects' values this many at a time, as they are reached.
    public var fetchBatchSize = 0
    /// To-one and to-many relationships (key paths, `department` or `department.employees`)
    /// whose destinations load with the results: one query per relationship, not per object.
    public var relationshipKeyPathsForPrefetching: [String] = []
    /// Whether objects of sub-entities match too (`Employee` fetches include `Manager`s).
    public var includesSubentities = true
    /// Whether unsaved inserts, edits and deletes of the context count (Core Data's default: yes).
    public var includesPendingChanges = true
    /// What ``ManagedObjectContext/execute(_:)`` returns.
    public var resultType: ResultType = .managedObject

    // MARK: Dictionary results

    /// The columns of dictionary results (``ManagedObjectContext/fetchDictionaries(_:)``):
    /// keys, key paths through to-one relationships, or aggregate expressions. Empty: every
    /// attribute.
    public var propertiesToFetch: [FetchExpression] = []
    /// Whether equal dictionary rows are returned once (`SELECT DISTINCT`).
    public var returnsDistinctResults = false
    /// Keys to group dictionary results by; aggregates in ``propertiesToFetch`` then apply
    /// per group.
    public var propertiesToGroupBy: [String] = []
    /// A condition on groups, naming group keys and expression names (`n > 2`).
    public var havingPredicate: FetchPredicate?

    /// A request for the entity of `Result`.
    public init() {}

    /// A request for the entity named `entityName` (results are `Result`s: use
    /// `ManagedObject` for entities without a Swift class).
    public init(entityName: String) {
        self.entityName = entityName
    }

    /// A request for the entity of `Result` with a predicate and sort order.
    public init(predicate: FetchPredicate?, sortDescriptors: [SortKey] = []) {
        self.predicate = predicate
        self.sortDescriptors = sortDescriptors
    }

    /// A request for the entity of `Result` whose predicate is `format`, parsed here with its
    /// `%@`, `%K`, `%d`, ... arguments in order, with a sort order, a limit (0: none) and
    /// whether sub-entities' objects match.
    ///
    /// ```swift
    /// let request = try FetchRequest<Employee>(format: "age > %@", argumentArray: [40],
    ///                                          sortDescriptors: [SortKey("lastName")], fetchLimit: 5)
    /// ```
    ///
    /// - Throws: ``FetchPredicateError`` for a malformed string, a missing or extra argument,
    ///   or an argument of an unsupported type (keys are checked against the entity when the
    ///   request runs).
    public init(format: String, argumentArray arguments: [Any?], sortDescriptors: [SortKey] = [], fetchLimit: Int = 0,
                includesSubentities: Bool = true) throws {
        self.sortDescriptors = sortDescriptors
        self.fetchLimit = fetchLimit
        self.includesSubentities = includesSubentities
        predicate = try FetchPredicate(format, argumentArray: arguments)
    }

    /// A request for every object of the entity of `Result`, in the order of `sortDescriptors`.
    public init(sortDescriptors: [SortKey]) {
        self.sortDescriptors = sortDescriptors
    }
}

/// What ``ManagedObjectContext/execute(_:)`` returns, by the request's result type.
public enum FetchResults<Result: ManagedObject> {
    case objects([Result])
    case objectIDs([ObjectID])
    case count(Int)
    case dictionaries([[String: Any]])
}
