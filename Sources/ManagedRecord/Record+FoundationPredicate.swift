import Foundation
import ObjectGraph

/// The class helpers with Foundation's `#Predicate` in place of a format string: the same
/// meaning on both stores (see `docs/predicates.md`, "#Predicate").
///
/// ```swift
/// let seniors = try Employee.fetch(where: #Predicate { $0.age > 40 }, sortedBy: [SortKey("lastName")])
/// let n = try Employee.count(where: #Predicate { $0.department?.name == "Sales" })
/// ```
///
/// A construct the stores cannot answer (a computed property, a transient attribute, a
/// method with no SQL meaning) throws a ``FetchPredicateError`` naming it; nothing reaches the
/// store then.
extension Record where Self: ManagedObject {
    /// The objects matching `predicate`, sorted and limited.
    public static func fetch(where predicate: Predicate<Self>, sortedBy sortKeys: [SortKey] = [], limit: Int = 0,
                             includesSubentities: Bool? = nil) throws -> [Self] {
        try fetch(where: FetchPredicate(predicate), sortedBy: sortKeys, limit: limit, includesSubentities: includesSubentities)
    }

    /// The objects matching `predicate` in the order of Foundation sort descriptors.
    public static func fetch(where predicate: Predicate<Self>, sortBy descriptors: [SortDescriptor<Self>], limit: Int = 0) throws -> [Self] {
        try fetch(where: FetchPredicate(predicate), sortedBy: descriptors.map { SortKey($0) }, limit: limit)
    }

    /// The first object matching `predicate` in `sortKeys` order, or nil.
    public static func get(where predicate: Predicate<Self>, sortedBy sortKeys: [SortKey] = []) throws -> Self? {
        try get(where: FetchPredicate(predicate), sortedBy: sortKeys)
    }

    /// ``fetchInBackground(where:sortedBy:limit:)`` with a `#Predicate`.
    nonisolated(nonsending)
    public static func fetchInBackground(where predicate: Predicate<Self>, sortedBy sortKeys: [SortKey] = [], limit: Int = 0) async throws -> [Self] {
        try await fetchInBackground(where: FetchPredicate(predicate), sortedBy: sortKeys, limit: limit)
    }

    /// The number of objects matching `predicate` (one `COUNT`; no object is made).
    public static func count(where predicate: Predicate<Self>) throws -> Int {
        try count(where: FetchPredicate(predicate))
    }

    /// The batch ``deleteAll(where:)`` with a `#Predicate`: one SQL statement, committed at once.
    @discardableResult
    public static func deleteAll(where predicate: Predicate<Self>) throws -> Int {
        try deleteAll(where: FetchPredicate(predicate))
    }

    /// ``delete(where:)`` with a `#Predicate`: pending until ``commit()``.
    @discardableResult
    public static func delete(where predicate: Predicate<Self>) throws -> Int {
        try delete(where: FetchPredicate(predicate))
    }

    /// The objects matching `predicate`, kept up to date (see ``observe(where:_:sortedBy:sectionKeyPath:)``).
    public static func observe(where predicate: Predicate<Self>, sortedBy sortKeys: [SortKey] = [],
                               sectionKeyPath: String? = nil) throws -> FetchedResults<Self> {
        try observe(where: FetchPredicate(predicate), sortedBy: sortKeys, sectionKeyPath: sectionKeyPath)
    }
}
