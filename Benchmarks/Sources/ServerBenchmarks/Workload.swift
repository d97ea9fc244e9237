import Foundation

/// The user's eight workloads, in the order each run does them.
enum Workload: Int, CaseIterable, Sendable {
    case insert, fetchAll, fetchPredicate, countPredicate, avgSalary, distinctLastName, updateAll, deleteAll

    var label: String {
        switch self {
        case .insert: return "1 insert (1 txn)"
        case .fetchAll: return "2 fetch all"
        case .fetchPredicate: return "3 fetch predicate"
        case .countPredicate: return "4 count predicate"
        case .avgSalary: return "5 avg(salary)"
        case .distinctLastName: return "6 distinct lastName"
        case .updateAll: return "7 update all (f+m+s)"
        case .deleteAll: return "8 delete all"
        }
    }
}

/// One complete pass of the eight workloads on fresh tables: milliseconds and checks.
struct RunResult: Sendable {
    var ms: [Workload: Double] = [:]
    var check: [Workload: String] = [:]

    /// Runs `body` under the monotonic clock and records its milliseconds for `w`.
    @discardableResult
    mutating func time<T>(_ w: Workload, _ body: () throws -> T) rethrows -> T {
        let start = ContinuousClock.now
        let value = try body()
        ms[w] = Self.milliseconds(since: start)
        return value
    }

    /// The same for asynchronous code, run on the caller's actor (or none).
    @discardableResult
    mutating func time<T>(_ w: Workload, isolation: isolated (any Actor)? = #isolation,
                          _ body: () async throws -> T) async rethrows -> T {
        let start = ContinuousClock.now
        let value = try await body()
        ms[w] = Self.milliseconds(since: start)
        return value
    }

    private static func milliseconds(since start: ContinuousClock.Instant) -> Double {
        let d = ContinuousClock.now - start
        return Double(d.components.seconds) * 1e3 + Double(d.components.attoseconds) / 1e15
    }
}
