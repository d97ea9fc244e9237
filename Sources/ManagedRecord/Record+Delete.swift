import Foundation
import ObjectGraph

/// Deleting by predicate in the calling thread's context: the deletions wait for `commit()`
/// and can be rolled back, unlike the batch ``deleteAll(where:)``.
extension Record where Self: ManagedObject {
    /// Marks every object matching `predicate` (every object when nil) deleted in the calling
    /// thread's context. Nothing is written until ``commit()``; ``rollback()`` brings them
    /// back. Delete rules run in memory now, as for ``ManagedObject/delete()``.
    ///
    /// Use it for deletions that belong to a unit of work; for many rows at once, the batch
    /// ``deleteAll(where:)`` is one SQL statement but commits at once.
    ///
    /// ```swift
    /// let n = try Employee.delete(where: "age < %@", 18)   // pending
    /// try Employee.commit()                                   // or Employee.rollback()
    /// ```
    ///
    /// - Complexity: one fetch; every matching object is loaded (cost grows with the count).
    /// - Returns: how many objects were marked deleted.
    /// - Throws: ``FetchPredicateError`` for a bad predicate (nothing is deleted then).
    @discardableResult
    public static func delete(where predicate: FetchPredicate?) throws -> Int {
        let context = contextForCurrentThread
        let objects = try context.fetch(fetchRequest(where: predicate))
        for object in objects { context.delete(object) }
        return objects.count
    }

    /// ``delete(where:)`` with a format string.
    @discardableResult
    public static func delete(where format: String, _ arguments: Any?...) throws -> Int {
        try delete(where: FetchPredicate(format, argumentArray: arguments))
    }
}
