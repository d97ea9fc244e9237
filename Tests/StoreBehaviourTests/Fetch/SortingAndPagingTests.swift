import Foundation
import ObjectGraph
import Testing

/// Sort orders, pages and counts, over the company of `CompanyFixture`.
@Suite("Sorting, paging and counts", .onOwnThreads)
struct SortingAndPagingTests {
    private func lastNames(_ context: ManagedObjectContext, _ keys: [SortKey], where predicate: FetchPredicate? = nil,
                           limit: Int = 0, offset: Int = 0) throws -> [String] {
        var request = FetchRequest<Employee>(predicate: predicate, sortDescriptors: keys)
        request.fetchLimit = limit
        request.fetchOffset = offset
        return try context.fetch(request).map(\.lastName)
    }

    @Test("Binary order by Unicode scalars, ascending and descending, on several keys", arguments: StoreKind.allCases)
    func binaryOrder(_ kind: StoreKind) throws {
        let context = try kind.newStore().seededCompany()
        #expect(try lastNames(context, [SortKey("lastName")]) == ["Adams", "Jones", "Lee", "Novak", "Smith", "Wu", "Zola"])
        let byFirstName = try context.fetch(FetchRequest<Employee>(sortDescriptors: [SortKey("firstName")])).map(\.firstName)
        #expect(byFirstName == ["Ann", "Bob", "Li", "Mia", "Zed", "olga", "Émile"])
        let descending = try context.fetch(FetchRequest<Employee>(sortDescriptors: [SortKey("firstName", ascending: false)])).map(\.firstName)
        #expect(descending == ["Émile", "olga", "Zed", "Mia", "Li", "Bob", "Ann"])
        let twoKeys = try context.fetch(FetchRequest<Employee>(sortDescriptors: [SortKey("active"), SortKey("age", ascending: false)]))
        #expect(twoKeys.map(\.firstName) == ["Bob", "Zed", "Émile", "Mia", "Li", "Ann", "olga"])
        let byBonus = try context.fetch(FetchRequest<Employee>(sortDescriptors: [SortKey(\Employee.$bonus, ascending: false)]))
        #expect(byBonus.map(\.firstName) == ["Mia", "Bob", "Ann", "Li", "olga", "Émile", "Zed"], "Decimals sort as numbers")
        let bySerial = try context.fetch(FetchRequest<Employee>(sortDescriptors: [SortKey("serial")]))
        #expect(bySerial.map(\.firstName) == ["Émile", "olga", "Li", "Bob", "Mia", "Zed", "Ann"])
    }

    @Test("Case-insensitive and localized-standard string orders", arguments: StoreKind.allCases)
    func caseInsensitiveOrder(_ kind: StoreKind) throws {
        let context = try kind.newStore().seededCompany()
        let folded = try context.fetch(FetchRequest<Employee>(sortDescriptors: [SortKey("firstName", comparison: .caseInsensitive)]))
        #expect(folded.map(\.firstName) == ["Ann", "Bob", "Li", "Mia", "olga", "Zed", "Émile"])
        let foldedDown = try context.fetch(FetchRequest<Employee>(sortDescriptors: [SortKey("firstName", ascending: false, comparison: .caseInsensitive)]))
        #expect(foldedDown.map(\.firstName) == ["Émile", "Zed", "olga", "Mia", "Li", "Bob", "Ann"])
        let localized = try context.fetch(FetchRequest<Employee>(sortDescriptors: [SortKey("firstName", comparison: .localizedStandard)]))
        #expect(localized.map(\.firstName) == ["Ann", "Bob", "Émile", "Li", "Mia", "olga", "Zed"])
    }

    @Test("nil sorts first ascending and last descending, on attributes and through to-one key paths", arguments: StoreKind.allCases)
    func nilFirstAscending(_ kind: StoreKind) throws {
        let context = try kind.newStore().seededCompany()
        #expect(try lastNames(context, [SortKey("nickname"), SortKey("lastName")]) == ["Jones", "Novak", "Wu", "Smith", "Lee", "Adams", "Zola"])
        #expect(try lastNames(context, [SortKey("nickname", ascending: false), SortKey("lastName")])
                == ["Zola", "Adams", "Lee", "Smith", "Wu", "Jones", "Novak"])
        #expect(try lastNames(context, [SortKey("hired"), SortKey("lastName")]) == ["Jones", "Novak", "Lee", "Zola", "Adams", "Smith", "Wu"])
        #expect(try lastNames(context, [SortKey("department.name"), SortKey("lastName")])
                == ["Novak", "Adams", "Wu", "Jones", "Lee", "Smith", "Zola"])
        #expect(try lastNames(context, [SortKey("manager.firstName", ascending: false), SortKey("lastName")])
                == ["Wu", "Jones", "Smith", "Adams", "Lee", "Novak", "Zola"])
    }

    @Test("fetchLimit and fetchOffset page through a sorted result", arguments: StoreKind.allCases)
    func paging(_ kind: StoreKind) throws {
        let context = try kind.newStore().seededCompany()
        let byName = [SortKey("lastName")]
        #expect(try lastNames(context, byName, limit: 3) == ["Adams", "Jones", "Lee"])
        #expect(try lastNames(context, byName, limit: 3, offset: 2) == ["Lee", "Novak", "Smith"])
        #expect(try lastNames(context, byName, limit: 3, offset: 6) == ["Zola"])
        #expect(try lastNames(context, byName, limit: 3, offset: 7) == [])
        #expect(try lastNames(context, byName, offset: 5) == ["Wu", "Zola"])
        #expect(try lastNames(context, [SortKey("age")], where: FetchPredicate("age > 30"), limit: 2, offset: 1) == ["Adams", "Jones"])
        var limitedCount = FetchRequest<Employee>()
        limitedCount.fetchLimit = 4
        #expect(try context.count(for: limitedCount) == 4)

        let aaron = Employee(context: context)
        aaron.lastName = "Aardvark"
        #expect(try lastNames(context, byName, limit: 2) == ["Aardvark", "Adams"], "an unsaved insert is paged in its place")
        #expect(try lastNames(context, byName, limit: 2, offset: 1) == ["Adams", "Jones"])
    }

    @Test("Counts and fetches include unsaved inserts, edits and deletes unless told not to", arguments: StoreKind.allCases)
    func countsWithPendingChanges(_ kind: StoreKind) throws {
        let context = try kind.newStore().seededCompany()
        let older = FetchRequest<Employee>(predicate: try FetchPredicate("age > 50"))
        #expect(try context.count(for: older) == 2)

        let newcomer = Employee(context: context)
        newcomer.firstName = "Nia"
        newcomer.age = 70
        #expect(try context.count(for: older) == 3)
        let mia = try #require(try context.fetch(FetchRequest<Manager>(predicate: FetchPredicate("firstName == 'Mia'"))).first)
        context.delete(mia)
        #expect(try context.count(for: older) == 2)
        let ann = try #require(try context.fetch(FetchRequest<Employee>(predicate: FetchPredicate("firstName == 'Ann'"))).first)
        ann.age = 55
        #expect(try context.count(for: older) == 3)
        #expect(try context.employeeNames("age > 50") == ["Ann", "Nia", "Émile"])
        #expect(try context.count(for: FetchRequest<Employee>()) == 7)
        #expect(try context.count(for: FetchRequest<Manager>()) == 1)

        var storeOnly = older
        storeOnly.includesPendingChanges = false
        #expect(try context.count(for: storeOnly) == 2, "the store still has Émile and Mia")
        #expect(try context.fetch(storeOnly).map(\.firstName).sorted() == ["Mia", "Émile"])

        context.rollback()
        #expect(try context.count(for: older) == 2)
        var withoutManagers = FetchRequest<Employee>()
        withoutManagers.includesSubentities = false
        #expect(try context.count(for: withoutManagers) == 5)
        #expect(try context.count(for: FetchRequest<Manager>()) == 2)
    }
}
