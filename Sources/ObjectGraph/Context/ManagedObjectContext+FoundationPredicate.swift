import Foundation

extension ManagedObjectContext {
    /// The objects of `type`'s entity that a `#Predicate` selects, in `sortBy` order.
    ///
    /// ```swift
    /// let seniors = try context.fetch(Employee.self, where: #Predicate { $0.age > 40 }, sortBy: [SortDescriptor(\.lastName)])
    /// ```
    ///
    /// - Throws: ``FetchPredicateError`` for a construct the stores cannot answer (nothing
    ///   reaches the store then), or a store error.
    public func fetch<T: ManagedObject>(_ type: T.Type, where predicate: Predicate<T>, sortBy: [SortDescriptor<T>] = []) throws -> [T] {
        try fetch(FetchRequest<T>(predicate: predicate, sortBy: sortBy))
    }

    /// The number of objects of `type`'s entity that a `#Predicate` selects (one `COUNT`).
    public func count<T: ManagedObject>(_ type: T.Type, where predicate: Predicate<T>) throws -> Int {
        try count(for: FetchRequest<T>(predicate: predicate))
    }
}
