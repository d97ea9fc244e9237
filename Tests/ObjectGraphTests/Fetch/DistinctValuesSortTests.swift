import CSQLite
import Foundation
import ObjectGraph
import XCTest

/// A row of many with few distinct names.
final class DistinctSortRow: ManagedObject {
    @Attribute var name: String = ""
    @Attribute var number: Int = 0
}

/// `distinctValues` keeps its ascending order without sorting every row of the table: the
/// store removes duplicates first and sorts only the distinct values.
final class DistinctValuesSortTests: StoreTestCase {
    static let rows = 20_000
    static let names = (0..<20).map { "name \(19 - $0)" }

    func testDistinctValuesSortOnlyTheDistinctValuesNotEveryRow() throws {
        let container = try makeContainer([DistinctSortRow.self])
        let context = container.viewContext
        for index in 0..<Self.rows {
            let row = DistinctSortRow(context: context)
            row.name = Self.names[index % Self.names.count]
            row.number = index
        }
        try context.save()
        let request = FetchRequest<DistinctSortRow>()
        XCTAssertEqual(try context.distinctValues(of: "name", as: String.self, for: request), Self.names.sorted())

        // SQLite's own allocations while the statement runs (the page cache is warm by now):
        // sorting 20,000 rows takes hundreds of KB; removing duplicates first, a few pages.
        XCTAssertGreaterThan(sqlite3_memory_used(), 0, "SQLite counts its memory (SQLITE_DEFAULT_MEMSTATUS)")
        let before = sqlite3_memory_used()
        _ = sqlite3_memory_highwater(1)
        let names = try context.distinctValues(of: "name", as: String.self, for: request)
        let peak = sqlite3_memory_highwater(0) - before
        XCTAssertEqual(names, Self.names.sorted())
        XCTAssertLessThan(peak, 128 * 1024, "SQLite needed \(peak) bytes beyond the \(before) in use to answer distinct values")

        var limited = FetchRequest<DistinctSortRow>(predicate: try FetchPredicate("number >= %@", 10))
        limited.fetchLimit = 3
        limited.fetchOffset = 1
        XCTAssertEqual(try context.distinctValues(of: "name", as: String.self, for: limited), Array(Self.names.sorted()[1..<4]))
        XCTAssertEqual(try context.distinctValues(of: "number", as: Int.self, for: FetchRequest<DistinctSortRow>(predicate: try FetchPredicate("number < 3"))),
                       [0, 1, 2])
    }
}
