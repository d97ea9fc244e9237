import Foundation
import ObjectGraph
import XCTest

/// Fetches with predicates and sort keys over saved and unsaved objects; counts in one
/// statement; prefetching and batched fetches with bounded queries and memory.
final class QueryFetchTests: QueryTestCase {
    func testUnsavedInsertsDeletesAndEditsAreJudgedOnTheirNewValues() throws {
        let company = try seedCompany()
        let newcomer = QEmployee(context: context)
        (newcomer.firstName, newcomer.lastName, newcomer.age) = ("Zed", "Smith", 44)
        let stranger = QEmployee(context: context)
        (stranger.firstName, stranger.age) = ("Young", 20)
        context.delete(company.mary)
        company.john.age = 20                   // no longer over 40
        company.jane.age = 41                   // now over 40
        company.bob.lastName = "Bobson"         // still over 40, edited elsewhere

        var request = FetchRequest<QEmployee>(predicate: try FetchPredicate("age > 40"), sortDescriptors: [SortKey("age")])
        XCTAssertEqual(try context.fetch(request).map(\.firstName), ["Jane", "Zed", "Émile", "Bob"])
        XCTAssertEqual(try context.count(for: request), 4)
        XCTAssertEqual(try context.fetchObjectIDs(request).count, 4)
        request.sortDescriptors = [SortKey("age", ascending: false)]
        request.fetchLimit = 2
        request.fetchOffset = 1
        XCTAssertEqual(try context.fetch(request).map(\.firstName), ["Émile", "Zed"])
        XCTAssertEqual(try context.count(for: request), 2)

        request = FetchRequest<QEmployee>(predicate: try FetchPredicate("age > 40"))
        request.includesPendingChanges = false
        XCTAssertEqual(Set(try context.fetch(request).map(\.firstName)), ["John", "Émile", "Bob", "Mary"],
                       "the store's matches, as the registered objects are")
        XCTAssertEqual(try context.count(for: request), 4)

        let byDepartment = FetchRequest<QEmployee>(predicate: try FetchPredicate("department.name == 'Sales'"), sortDescriptors: [SortKey("firstName")])
        newcomer.department = company.sales
        XCTAssertEqual(try context.fetch(byDepartment).map(\.firstName), ["Jane", "John", "Zed"])
        XCTAssertEqual(try context.count(for: byDepartment), 3)
    }

    func testSortKeysFollowToOneKeyPathsAndSortUnsavedObjectsTheSameWay() throws {
        let company = try seedCompany()
        var request = FetchRequest<QEmployee>()
        request.sortDescriptors = [SortKey("department.name", ascending: false), SortKey(\QEmployee.$age)]
        let saved = ["Émile", "Jane", "John", "Mary", "Bob", "Ana", "Li"]   // binary: "Études" sorts after "Sales"
        XCTAssertEqual(try context.fetch(request).map(\.firstName), saved)
        let fresh = try makeContainer()
        XCTAssertEqual(try fresh.viewContext.fetch(request).map(\.firstName), saved, "SQL order")
        let newcomer = QEmployee(context: context)
        (newcomer.firstName, newcomer.age) = ("Zed", 30)
        newcomer.department = company.research
        company.ana.department = company.sales
        XCTAssertEqual(try context.fetch(request).map(\.firstName), ["Émile", "Ana", "Jane", "John", "Mary", "Zed", "Bob", "Li"])
        request.sortDescriptors = [SortKey("manager.lastName"), SortKey("firstName")]
        XCTAssertEqual(try context.fetch(request).map(\.firstName), ["Bob", "Li", "Mary", "Zed", "Emile", "Jane", "John", "Ana"].map {
            $0 == "Emile" ? "Émile" : $0
        }.sorted { a, b in
            let order = ["Bob", "Li", "Mary", "Zed", "Jane", "John", "Émile", "Ana"]
            return order.firstIndex(of: a)! < order.firstIndex(of: b)!
        })
    }

    func testStringSortComparisonsAreUnicodeAwareInSQLAndInMemory() throws {
        for name in ["file10", "File1", "file9", "émile", "Emma", "zoë", "Zack"] {
            QEmployee(context: context).firstName = name
        }
        var request = FetchRequest<QEmployee>()
        func names(_ comparison: SortKey.Comparison) throws -> (sql: [String], memory: [String]) {
            request.sortDescriptors = [SortKey("firstName", comparison: comparison)]
            let memory = try context.fetch(request).map(\.firstName)
            try context.save()
            let sql = try makeContainer().viewContext.fetch(request).map(\.firstName)
            return (sql, memory)
        }
        let binary = try names(.binary)
        XCTAssertEqual(binary.sql, ["Emma", "File1", "Zack", "file10", "file9", "zoë", "émile"])
        XCTAssertEqual(binary.memory, binary.sql)
        let insensitive = try names(.caseInsensitive)
        XCTAssertEqual(insensitive.sql, ["Emma", "File1", "file10", "file9", "Zack", "zoë", "émile"])
        XCTAssertEqual(insensitive.memory, insensitive.sql)
        try context.execute(BatchDeleteRequest(QEmployee.self))
        for name in ["file10", "File1", "file9", "émile", "Emma", "zoë", "Zack"] { QEmployee(context: context).firstName = name }
        let localized = try names(.localizedStandard)
        XCTAssertEqual(localized.sql, ["émile", "Emma", "File1", "file9", "file10", "Zack", "zoë"])
        XCTAssertEqual(localized.memory, localized.sql)
    }

    func testCountAggregatesAndDistinctValuesRunAsSingleStatementsAndMaterializeNothing() throws {
        try seedCompany()
        let fresh = try makeContainer()
        container = fresh
        startRecording()
        let request = FetchRequest<QEmployee>(predicate: try FetchPredicate("age > %@", 30))
        XCTAssertEqual(try context.count(for: request), 6)
        XCTAssertEqual(try context.aggregate(.average, of: "salary", for: request) ?? 0, 39000.0 / 6, accuracy: 0.001)
        XCTAssertEqual(try context.distinctValues(of: "department.name", as: String.self, for: request), ["Research", "Sales", "Études"])
        let statements = recorder.queries
        XCTAssertEqual(statements.count, 3, "\(statements)")
        XCTAssertTrue(statements[0].hasPrefix("SELECT COUNT(*) FROM ZQEMPLOYEE t WHERE"), statements[0])
        XCTAssertTrue(statements[1].hasPrefix("SELECT AVG(t.ZSALARY) FROM ZQEMPLOYEE t WHERE"), statements[1])
        XCTAssertTrue(statements[2].hasPrefix("SELECT value FROM (SELECT DISTINCT"), statements[2])
        XCTAssertTrue(context.registeredObjects.isEmpty, "nothing was materialized")
    }

    func testAPredicateFetchIsOneStatementWithBoundValues() throws {
        try seedCompany()
        let fresh = try makeContainer()
        container = fresh
        startRecording()
        let people = try context.fetch(FetchRequest<QEmployee>(predicate: try FetchPredicate("age > 40 AND lastName BEGINSWITH 'S'")))
        XCTAssertEqual(people.map(\.firstName), ["John"])
        XCTAssertEqual(recorder.queries.count, 1)
        let sql = try XCTUnwrap(recorder.queries.first)
        XCTAssertTrue(sql.contains("t.ZAGE > ?") && sql.contains("substr(t.ZLASTNAME, 1, 1) = ?"), sql)
        XCTAssertFalse(sql.contains("og_str"), "no custom function without [c]/[d]: \(sql)")
    }

    func testPrefetchingLoadsEachRelationshipWithOneQuery() throws {
        for index in 0..<30 {
            let department = QDepartment(context: context)
            department.name = "D\(index)"
            let project = QProject(context: context)
            project.title = "P\(index)"
            for person in 0..<3 {
                let employee = QEmployee(context: context)
                employee.firstName = "E\(index)-\(person)"
                employee.department = department
                employee.projects = [project]
            }
        }
        try context.save()
        container = try makeContainer()
        startRecording()
        var request = FetchRequest<QEmployee>()
        request.relationshipKeyPathsForPrefetching = ["department", "projects", "projects.members"]
        let employees = try context.fetch(request)
        XCTAssertEqual(employees.count, 90)
        XCTAssertEqual(recorder.queries.count, 4, "one per relationship: \(recorder.queries.map { $0.prefix(60) })")
        recorder.reset()
        var seen = 0
        for employee in employees {
            seen += (employee.department?.name.isEmpty == false ? 1 : 0) + employee.projects.count
            seen += employee.projects.first.map { $0.title.isEmpty ? 0 : 1 } ?? 0
        }
        XCTAssertEqual(seen, 90 * 3)
        XCTAssertEqual(recorder.queries.count, 0, "everything was prefetched: \(recorder.queries.prefix(3))")
    }

    func testABatchedFetchLoadsBatchByBatchAndHoldsOnlyTheCurrentBatch() throws {
        for index in 0..<1000 {
            let employee = QEmployee(context: context)
            (employee.firstName, employee.age) = ("E\(index)", index)
        }
        try context.save()
        container = try makeContainer()
        startRecording()
        var request = FetchRequest<QEmployee>(predicate: try FetchPredicate("age >= 100"), sortDescriptors: [SortKey("age")])
        request.fetchBatchSize = 100
        let results = try context.fetchBatched(request)
        XCTAssertEqual(results.count, 900)
        XCTAssertEqual(recorder.queries.count, 1, "only the IDs so far")
        var total = 0
        var mostRegistered = 0
        for (offset, employee) in results.enumerated() {
            total += employee.age
            XCTAssertEqual(employee.age, offset + 100)
            if offset % 50 == 0 { mostRegistered = max(mostRegistered, context.registeredObjects.count) }
        }
        XCTAssertEqual(total, (100..<1000).reduce(0, +))
        XCTAssertEqual(recorder.queries.count, 1 + 9, "one query per batch")
        XCTAssertLessThanOrEqual(mostRegistered, 200, "memory stays bounded")
    }
}
