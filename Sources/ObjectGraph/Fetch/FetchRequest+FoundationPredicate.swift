import Foundation

extension FetchRequest {
    /// A request for the entity of `Result` with a `#Predicate` and sort order.
    ///
    /// ```swift
    /// let request = FetchRequest<Employee>(predicate: #Predicate { $0.age > 40 }, sortDescriptors: [SortKey("lastName")])
    /// ```
    ///
    /// A `#Predicate` the stores cannot answer throws its ``FetchPredicateError`` when the
    /// request is executed (see ``FetchPredicate``).
    public init(predicate: Predicate<Result>, sortDescriptors: [SortKey] = []) {
        self.init(predicate: FetchPredicate(predicate), sortDescriptors: sortDescriptors)
    }

    /// A request for the entity of `Result` with an optional `#Predicate` and Foundation sort
    /// descriptors (`SortDescriptor(\Employee.lastName)`), each naming a stored attribute.
    ///
    /// ```swift
    /// let request = FetchRequest<Employee>(predicate: #Predicate { $0.age > 40 }, sortBy: [SortDescriptor(\.lastName)])
    /// ```
    public init(predicate: Predicate<Result>? = nil, sortBy: [SortDescriptor<Result>]) {
        self.init(predicate: predicate.map { FetchPredicate($0) }, sortDescriptors: sortBy.map { SortKey($0) })
    }
}

extension BatchDeleteRequest {
    /// Deletes the objects of `type`'s entity that a `#Predicate` selects.
    ///
    /// ```swift
    /// let request = BatchDeleteRequest(Employee.self, predicate: #Predicate { $0.age < 18 })
    /// ```
    public init<T: ManagedObject>(_ type: T.Type, predicate: Predicate<T>) {
        self.init(type, predicate: FetchPredicate(predicate))
    }
}

extension BatchUpdateRequest {
    /// Sets `propertiesToUpdate` on the objects of `type`'s entity that a `#Predicate` selects.
    ///
    /// ```swift
    /// let raise = BatchUpdateRequest(Employee.self, predicate: #Predicate { $0.department?.name == "Sales" },
    ///                                propertiesToUpdate: ["salary": 60_000.0])
    /// ```
    public init<T: ManagedObject>(_ type: T.Type, predicate: Predicate<T>, propertiesToUpdate: [String: (any Sendable)?] = [:]) {
        self.init(type, predicate: FetchPredicate(predicate), propertiesToUpdate: propertiesToUpdate)
    }
}
