import Foundation
import ObjectGraph
import Testing

/// Aggregates, distinct values and dictionary fetches with groups, over the company of
/// `CompanyFixture`.
@Suite("Aggregates, distinct values and dictionaries", .onOwnThreads)
struct AggregateTests {
    @Test("sum, average, min, max and count over the objects a request selects", arguments: StoreKind.allCases)
    func aggregates(_ kind: StoreKind) throws {
        let context = try kind.newStore().seededCompany()
        let everyone = FetchRequest<Employee>()
        #expect(try context.aggregate(.count, of: "age", for: everyone) == 7)
        #expect(try context.aggregate(.count, of: "hired", for: everyone) == 5, "nil values are not counted")
        #expect(try context.aggregate(.sum, of: "age", for: everyone) == 295)
        #expect(try context.aggregate(.sum, of: "age", as: Int.self, for: everyone) == 295)
        #expect(try context.aggregate(.min, of: "age", for: everyone) == 29)
        #expect(try context.aggregate(.max, of: "age", as: Int16.self, for: everyone) == 60)
        let meanAge = try #require(try context.aggregate(.average, of: "age", for: everyone))
        #expect(abs(meanAge - 295.0 / 7) < 1e-9)
        #expect(try context.aggregate(.sum, of: "salary", for: everyone) == 50000.75)
        #expect(try context.aggregate(.max, of: "rating", as: Float.self, for: everyone) == 5)
        #expect(try context.aggregate(.max, of: "serial", as: Int64.self, for: everyone) == 3_000_000_000)
        #expect(try context.aggregate(.max, of: "hired", as: Date.self, for: everyone) == day(2021, 3, 1))
        #expect(try context.aggregate(.min, of: "lastName", as: String.self, for: everyone) == "Adams")

        let sales = FetchRequest<Employee>(predicate: try FetchPredicate("department.name == %@", "Sales"))
        #expect(try context.aggregate(.sum, of: "age", for: sales) == 127)
        #expect(try context.aggregate(.average, of: "department.budget", as: Decimal.self, for: sales) == Decimal(string: "1000.10"))
        #expect(try context.aggregate(.max, of: "level", for: FetchRequest<Manager>()) == 2)

        let nobody = FetchRequest<Employee>(predicate: .never)
        #expect(try context.aggregate(.average, of: "age", for: nobody) == nil)
        #expect(try context.aggregate(.max, of: "age", for: nobody) == nil)
        #expect(try context.aggregate(.sum, of: "age", for: nobody) == 0)
        #expect(try context.aggregate(.count, of: "age", for: nobody) == 0)
    }

    @Test("Decimal sums, averages, minimums and maximums are exact", arguments: StoreKind.allCases)
    func decimalAggregatesAreExact(_ kind: StoreKind) throws {
        let context = try kind.newStore().seededCompany()
        let everyone = FetchRequest<Employee>()
        #expect(try context.aggregate(.sum, of: "bonus", as: Decimal.self, for: everyone) == Decimal(string: "137.27"))
        #expect(try context.aggregate(.average, of: "bonus", as: Decimal.self, for: everyone) == Decimal(string: "19.61"))
        #expect(try context.aggregate(.min, of: "bonus", as: Decimal.self, for: everyone) == 0)
        #expect(try context.aggregate(.max, of: "bonus", as: Decimal.self, for: everyone) == Decimal(string: "100.01"))
        #expect(try context.aggregate(.sum, of: "budget", as: Decimal.self, for: FetchRequest<Department>()) == Decimal(string: "3500.85"))
        #expect(try context.aggregate(.sum, of: "bonus", as: Decimal.self, for: FetchRequest<Employee>(predicate: .never)) == 0)
        let untyped = #expect(throws: FetchPredicateError.self) {
            _ = try context.aggregate(.sum, of: "bonus", for: everyone)
        }
        #expect(untyped?.code == .typeMismatch, "a Double would misstate a Decimal sum")
    }

    @Test("Aggregates refuse unknown keys and non-numbers", arguments: StoreKind.allCases)
    func aggregatesRefuseBadKeys(_ kind: StoreKind) throws {
        let context = try kind.newStore().seededCompany()
        let nonNumber = #expect(throws: FetchPredicateError.self) {
            _ = try context.aggregate(.sum, of: "lastName", for: FetchRequest<Employee>())
        }
        #expect(nonNumber?.code == .typeMismatch)
        let unknown = #expect(throws: FetchPredicateError.self) {
            _ = try context.aggregate(.average, of: "shoeSize", for: FetchRequest<Employee>())
        }
        #expect(unknown?.code == .unknownKey)
        #expect(unknown?.entity == "Employee")
    }

    @Test("Distinct values are sorted and leave out nil", arguments: StoreKind.allCases)
    func distinctValues(_ kind: StoreKind) throws {
        let context = try kind.newStore().seededCompany()
        let everyone = FetchRequest<Employee>()
        #expect(try context.distinctValues(of: "department.name", as: String.self, for: everyone) == ["Research", "Sales", "Études"])
        #expect(try context.distinctValues(of: "nickname", as: String.self, for: everyone) == ["", "annie", "boss", "zed", "Élan"])
        #expect(try context.distinctValues(of: "active", as: Bool.self, for: everyone) == [false, true])
        #expect(try context.distinctValues(of: "rank", as: Int32.self, for: everyone) == [1, 2, 3, 4, 5])
        let older = FetchRequest<Employee>(predicate: try FetchPredicate("age > 50"))
        #expect(try context.distinctValues(of: "lastName", as: String.self, for: older) == ["Lee", "Zola"])
        #expect(try context.distinctValues(of: "hired", as: Date.self, for: older) == [day(2015, 9, 1), day(2018, 6, 1)])
    }

    @Test("Dictionary fetches return columns and to-one key paths, without objects", arguments: StoreKind.allCases)
    func dictionaryFetches(_ kind: StoreKind) throws {
        let context = try kind.newStore().seededCompany()
        var request = FetchRequest<Employee>(predicate: try FetchPredicate("age > 50"), sortDescriptors: [SortKey("age")])
        request.propertiesToFetch = ["firstName", "department.name", "hired", "bonus", "nickname"]
        let rows = try context.fetchDictionaries(request)
        try #require(rows.count == 2)
        #expect(rows[0]["firstName"] as? String == "Mia")
        #expect(rows[0]["department.name"] as? String == "Sales")
        #expect(rows[0]["hired"] as? Date == day(2015, 9, 1))
        #expect(rows[0]["bonus"] as? Decimal == Decimal(string: "100.01"))
        #expect(rows[1]["firstName"] as? String == "Émile")
        #expect(rows[1]["department.name"] as? String == "Études")
        #expect(rows[1]["nickname"] as? String == "Élan")
        #expect(context.registeredObjects.isEmpty, "no object was made")

        var distinct = FetchRequest<Employee>(sortDescriptors: [SortKey("active")])
        distinct.propertiesToFetch = ["active"]
        distinct.returnsDistinctResults = true
        #expect(try context.fetchDictionaries(distinct).compactMap { $0["active"] as? Bool } == [false, true])
    }

    @Test("Dictionary fetches group by a key path, with aggregates, HAVING and a sort on an aggregate", arguments: StoreKind.allCases)
    func groupsWithHaving(_ kind: StoreKind) throws {
        let context = try kind.newStore().seededCompany()
        var groups = FetchRequest<Employee>(predicate: try FetchPredicate("department != nil"), sortDescriptors: [SortKey("department.name")])
        groups.propertiesToFetch = ["department.name", .aggregate(.count, of: "age", as: "n"), .aggregate(.average, of: "salary", as: "mean"),
                                    .aggregate(.max, of: "age", as: "oldest"), .aggregate(.sum, of: "bonus", as: "bonuses")]
        groups.propertiesToGroupBy = ["department.name"]
        let rows = try context.fetchDictionaries(groups)
        #expect(rows.map { $0["department.name"] as? String } == ["Research", "Sales", "Études"])
        #expect(rows.map { $0["n"] as? Int } == [2, 3, 1])
        #expect(rows.map { $0["oldest"] as? Int16 } == [41, 52, 60], "max of an Int16 is an Int16")
        let means = rows.map { $0["mean"] as? Double ?? -1 }
        #expect(abs(means[0] - 7000) < 1e-9 && abs(means[1] - 24000.5 / 3) < 1e-9 && abs(means[2] - 9000) < 1e-9, "\(means)")
        #expect(rows.map { $0["bonuses"] as? Decimal } == [Decimal(string: "5.55"), Decimal(string: "130.31"), Decimal(string: "0.30")])

        groups.havingPredicate = try FetchPredicate("n >= %@", 2)
        #expect(try context.fetchDictionaries(groups).map { $0["department.name"] as? String } == ["Research", "Sales"])
        groups.havingPredicate = try FetchPredicate("n >= 2 OR oldest > 55")
        #expect(try context.fetchDictionaries(groups).count == 3)
        groups.havingPredicate = nil
        groups.sortDescriptors = [SortKey("n", ascending: false)]
        #expect(try context.fetchDictionaries(groups).map { $0["department.name"] as? String } == ["Sales", "Research", "Études"])
        groups.havingPredicate = try FetchPredicate("salary > 1")
        let notFetched = #expect(throws: FetchPredicateError.self) { _ = try context.fetchDictionaries(groups) }
        #expect(notFetched?.code == .unknownKey, "HAVING names fetched columns only")
    }
}
