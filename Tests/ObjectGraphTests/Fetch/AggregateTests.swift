import Foundation
import ObjectGraph
import XCTest

/// Aggregates, distinct values and dictionary results, answered by SQLite.
final class AggregateTests: QueryTestCase {
    func testAggregatesRefuseUnknownKeysAndNonNumbers() throws {
        try seedCompany()
        XCTAssertThrowsError(try context.aggregate(.sum, of: "lastName", for: FetchRequest<QEmployee>())) { error in
            XCTAssertEqual((error as? FetchPredicateError)?.code, .typeMismatch)
        }
        XCTAssertThrowsError(try context.aggregate(.average, of: "shoeSize", for: FetchRequest<QEmployee>())) { error in
            XCTAssertEqual((error as? FetchPredicateError)?.code, .unknownKey)
            XCTAssertEqual((error as? FetchPredicateError)?.entity, "QEmployee")
        }
        XCTAssertThrowsError(try context.aggregate(.count, of: "projects", for: FetchRequest<QEmployee>()))
    }

    func testDistinctValuesAreSortedAndLeaveOutNil() throws {
        let company = try seedCompany()
        XCTAssertEqual(try context.distinctValues(of: "department.name", as: String.self, for: FetchRequest<QEmployee>()),
                       ["Research", "Sales", "Études"])
        XCTAssertEqual(try context.distinctValues(of: "nickname", as: String.self, for: FetchRequest<QEmployee>()),
                       ["", "Boss", "JJ", "b%_*?x", "Élan"])
        XCTAssertEqual(try context.distinctValues(of: "active", as: Bool.self, for: FetchRequest<QEmployee>()), [false, true])
        let hired = try context.distinctValues(of: "hired", for: FetchRequest<QEmployee>(predicate: try FetchPredicate("age > 50")))
        XCTAssertEqual(hired.compactMap { $0 as? Date }, [Self.date(2018), Self.date(2019, 6)])
        let departments = try context.distinctValues(of: "department", for: FetchRequest<QEmployee>())
        XCTAssertEqual(Set(departments.compactMap { $0 as? ObjectID }), [company.sales.objectID, company.etudes.objectID, company.research.objectID])
        var limited = FetchRequest<QEmployee>()
        limited.fetchLimit = 2
        XCTAssertEqual(try context.distinctValues(of: "lastName", as: String.self, for: limited), ["Jones", "O'Brien"])
    }

    func testDictionariesFetchColumnsAndKeyPaths() throws {
        let company = try seedCompany()
        var request = FetchRequest<QEmployee>(predicate: try FetchPredicate("age > 50"), sortDescriptors: [SortKey("age")])
        request.propertiesToFetch = ["firstName", "department.name", "hired", "department", "nickname"]
        let rows = try context.fetchDictionaries(request)
        XCTAssertEqual(rows.count, 2)
        XCTAssertEqual(rows[0]["firstName"] as? String, "Émile")
        XCTAssertEqual(rows[0]["department.name"] as? String, "Études")
        XCTAssertEqual(rows[0]["hired"] as? Date, Self.date(2019, 6))
        XCTAssertEqual(rows[0]["department"] as? ObjectID, company.etudes.objectID)
        XCTAssertEqual(rows[1]["nickname"] as? String, "b%_*?x")
        request.resultType = .dictionary
        guard case .dictionaries(let same) = try context.execute(request) else { return XCTFail("not dictionaries") }
        XCTAssertEqual(same.count, 2)

        var all = FetchRequest<QEmployee>(predicate: try FetchPredicate("firstName == 'Li'"))
        all.propertiesToFetch = []
        let li = try XCTUnwrap(try context.fetchDictionaries(all).first)
        XCTAssertEqual(li["level"] as? Int, nil, "QEmployee has no level")
        XCTAssertEqual(li["age"] as? Int, 38)
        XCTAssertNil(li["hired"], "nil values are left out")
        XCTAssertEqual(li["badge"] as? UUID, company.wu.badge)
    }

    func testDistinctDictionariesAndGroupsWithAggregatesAndHaving() throws {
        try seedCompany()
        var distinct = FetchRequest<QEmployee>(sortDescriptors: [SortKey("active")])
        distinct.propertiesToFetch = ["active"]
        distinct.returnsDistinctResults = true
        XCTAssertEqual(try context.fetchDictionaries(distinct).compactMap { $0["active"] as? Bool }, [false, true])

        var groups = FetchRequest<QEmployee>(predicate: try FetchPredicate("department != nil"),
                                             sortDescriptors: [SortKey("department.name")])
        groups.propertiesToFetch = ["department.name", .aggregate(.count, of: "age", as: "n"),
                                    .aggregate(.average, of: "salary", as: "mean"), .aggregate(.max, of: "age", as: "oldest"),
                                    .aggregate(.sum, of: "age")]
        groups.propertiesToGroupBy = ["department.name"]
        let rows = try context.fetchDictionaries(groups)
        XCTAssertEqual(rows.map { $0["department.name"] as? String }, ["Research", "Sales", "Études"])
        XCTAssertEqual(rows.map { $0["n"] as? Int }, [1, 3, 1])
        XCTAssertEqual(rows[1]["mean"] as? Double ?? 0, 20000.0 / 3, accuracy: 1e-9)
        XCTAssertEqual(rows[1]["oldest"] as? Int, 45)
        XCTAssertEqual(rows[1]["sum(age)"] as? Int, 122)

        groups.havingPredicate = try FetchPredicate("n >= %@ OR oldest > 55", 2)
        XCTAssertEqual(try context.fetchDictionaries(groups).map { $0["department.name"] as? String }, ["Research", "Sales"])
        groups.sortDescriptors = [SortKey("n", ascending: false)]
        XCTAssertEqual(try context.fetchDictionaries(groups).map { $0["department.name"] as? String }.first, "Sales")
        groups.havingPredicate = try FetchPredicate("salary > 1")
        XCTAssertThrowsError(try context.fetchDictionaries(groups)) { error in
            XCTAssertEqual((error as? FetchPredicateError)?.code, .unknownKey)
        }
    }

    func testDictionaryFetchesAreOneStatementAndMaterializeNothing() throws {
        try seedCompany()
        container = try makeContainer()
        startRecording()
        var groups = FetchRequest<QEmployee>()
        groups.propertiesToFetch = ["department.name", .aggregate(.count, of: "age", as: "n")]
        groups.propertiesToGroupBy = ["department.name"]
        groups.havingPredicate = try FetchPredicate("n > 1")
        XCTAssertEqual(try context.fetchDictionaries(groups).count, 2)
        XCTAssertEqual(recorder.queries.count, 1)
        XCTAssertTrue(recorder.queries[0].contains("GROUP BY") && recorder.queries[0].contains("HAVING"), recorder.queries[0])
        XCTAssertTrue(context.registeredObjects.isEmpty)
    }
}
