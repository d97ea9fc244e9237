/// What to fetch: an entity (by class or by name), sort order, paging and whether to include
/// sub-entities and unsaved changes.
///
/// For example:
///
/// ```swift
/// var request = FetchRequest<Employee>()
/// request.sortDescriptors = [SortKey("lastName")]
/// request.fetchLimit = 10
/// let page = try context.fetch(request)
/// let total = try context.count(for: request)
///
/// var cars = FetchRequest<ManagedObject>(entityName: "Car")   // an entity without a class
/// ```
public struct FetchRequest<Result: ManagedObject>: Sendable {
    /// The kind of result ``ManagedObjectContext/execute(_:)`` returns.
    public enum ResultType: Sendable {
        case managedObject, managedObjectID, count
    }

    /// The entity to fetch; nil means the entity of `Result`.
    public var entityName: String?
    /// The order of the results; fetches without one come back in store order.
    public var sortDescriptors: [SortKey] = []
    /// The most objects to return; 0 means no limit.
    public var fetchLimit = 0
    /// How many matching objects to skip first.
    public var fetchOffset = 0
    /// Whether objects of sub-entities match too (`Employee` fetches include `Manager`s).
    public var includesSubentities = true
    /// Whether unsaved inserts, edits and deletes of the context count (Core Data's default: yes).
    public var includesPendingChanges = true
    /// What ``ManagedObjectContext/execute(_:)`` returns.
    public var resultType: ResultType = .managedObject

    /// A request for the entity of `Result`.
    public init() {}

    /// A request for the entity named `entityName` (results are `Result`s: use
    /// `ManagedObject` for entities without a Swift class).
    public init(entityName: String) {
        self.entityName = entityName
    }
}

/// What ``ManagedObjectContext/execute(_:)`` returns, by the request's result type.
public enum FetchResults<Result: ManagedObject> {
    case objects([Result])
    case objectIDs([ObjectID])
    case count(Int)
}
