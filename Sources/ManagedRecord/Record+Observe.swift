import Foundation
import ObjectGraph

/// Observation in one line: results that update themselves, and every commit of the model.
extension Record where Self: ManagedObject {
    /// The objects matching `format` (with `arguments`) in `sortKeys` order, in the calling
    /// code's context, kept up to date after every commit on any thread (see
    /// ``FetchedResults``). On the main queue, another thread's commit reaches them as soon
    /// as the main queue runs; elsewhere, at the thread's next use of its context.
    ///
    /// ```swift
    /// let seniors = try Employee.observe(where: "age > %@", 40, sortedBy: [SortKey("lastName")])
    /// seniors.onChange { change in print(change) }
    /// for await change in seniors.changes { print(seniors.objects.count, change) }
    /// ```
    ///
    /// - Parameter sectionKeyPath: a key path whose value groups the objects into sections.
    /// - Throws: ``FetchPredicateError`` for a malformed format or an unknown key (nothing is
    ///   observed then), or a store error from the first fetch.
    public static func observe(where format: String, _ arguments: Any?..., sortedBy sortKeys: [SortKey] = [],
                               sectionKeyPath: String? = nil) throws -> FetchedResults<Self> {
        try observe(where: FetchPredicate(format, argumentArray: arguments), sortedBy: sortKeys, sectionKeyPath: sectionKeyPath)
    }

    /// The objects matching `predicate` (all when nil), kept up to date (see
    /// ``observe(where:_:sortedBy:sectionKeyPath:)``).
    public static func observe(where predicate: FetchPredicate? = nil, sortedBy sortKeys: [SortKey] = [],
                               sectionKeyPath: String? = nil) throws -> FetchedResults<Self> {
        try FetchedResults(fetchRequest(where: predicate, sortedBy: sortKeys), context: contextForCurrentThread,
                           sectionKeyPath: sectionKeyPath)
    }

    /// Every commit to the model's store, from any thread or task, as an `AsyncSequence` of
    /// object IDs (see ``PersistentStoreCoordinator/changes``). After ``deleteStore()`` the
    /// model has a new store: ask for a new stream.
    ///
    /// ```swift
    /// for await change in Employee.changes { print(change.inserted, change.updated, change.deleted) }
    /// ```
    public static var changes: AsyncStream<CommittedChanges> { contextManager.persistentStoreCoordinator.changes }
}
