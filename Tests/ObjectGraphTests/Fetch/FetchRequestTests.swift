import Foundation
import ObjectGraph
import XCTest

final class FetchRequestTests: StoreTestCase {
    /// Saves employees Ann 30, Bob 25, Cy 41, Dee 25 (Manager), Eve 35 (Manager).
    private func seed() throws {
        let container = try makeContainer(Models.company)
        let context = container.viewContext
        for (name, age) in [("Ann", 30), ("Bob", 25), ("Cy", 41)] {
            let employee = Employee(context: context)
            employee.firstName = name
            employee.age = age
        }
        for (name, age) in [("Dee", 25), ("Eve", 35)] {
            let manager = Manager(context: context)
            manager.firstName = name
            manager.age = age
        }
        try context.save()
    }

    func testSortKeysOrderByEachKeyInTurn() throws {
        try seed()
        let container = try makeContainer(Models.company)
        var request = FetchRequest<Employee>()
        request.sortDescriptors = [SortKey("age", ascending: false)]
        XCTAssertEqual(try container.viewContext.fetch(request).map(\.firstName).prefix(3), ["Cy", "Eve", "Ann"])
        request.sortDescriptors = [SortKey("age"), SortKey("firstName", ascending: false)]
        XCTAssertEqual(try container.viewContext.fetch(request).map(\.firstName), ["Dee", "Bob", "Ann", "Eve", "Cy"])
        request.sortDescriptors = [SortKey(\Employee.$firstName, ascending: false)]
        XCTAssertEqual(try container.viewContext.fetch(request).map(\.firstName), ["Eve", "Dee", "Cy", "Bob", "Ann"])
        request.sortDescriptors = [SortKey("nickname")]
        XCTAssertThrowsError(try container.viewContext.fetch(request)) { error in
            XCTAssertEqual((error as? KeyValueError)?.code, .unknownKey)
        }
    }

    func testARequestBuiltFromAFormatStringParsesItAndKeepsItsOtherParts() throws {
        try seed()
        let context = try makeContainer(Models.company).viewContext
        let request = try FetchRequest<Employee>(format: "age > %@ AND firstName != %@", argumentArray: [26, "Cy"],
                                                 sortDescriptors: [SortKey("age", ascending: false)], fetchLimit: 2,
                                                 includesSubentities: false)
        XCTAssertEqual(request.predicate, try FetchPredicate("age > 26 AND firstName != 'Cy'"))
        XCTAssertEqual(try context.fetch(request).map(\.firstName), ["Ann"], "Eve is a Manager: sub-entities left out")
        let all = try FetchRequest<Employee>(format: "age > %@", argumentArray: [26], sortDescriptors: [SortKey("firstName")])
        XCTAssertEqual(try context.fetch(all).map(\.firstName), ["Ann", "Cy", "Eve"])
        XCTAssertThrowsError(try FetchRequest<Employee>(format: "age >", argumentArray: [])) { error in
            XCTAssertTrue(error is FetchPredicateError, "a malformed format is the parser's error: \(error)")
        }
        XCTAssertThrowsError(try FetchRequest<Employee>(format: "age > %@", argumentArray: [])) { error in
            XCTAssertTrue(error is FetchPredicateError, "a missing argument too: \(error)")
        }
    }

    func testLimitAndOffsetPageThroughTheSortedResults() throws {
        try seed()
        let container = try makeContainer(Models.company)
        var request = FetchRequest<Employee>()
        request.sortDescriptors = [SortKey("firstName")]
        request.fetchLimit = 2
        XCTAssertEqual(try container.viewContext.fetch(request).map(\.firstName), ["Ann", "Bob"])
        request.fetchOffset = 2
        XCTAssertEqual(try container.viewContext.fetch(request).map(\.firstName), ["Cy", "Dee"])
        request.fetchOffset = 4
        XCTAssertEqual(try container.viewContext.fetch(request).map(\.firstName), ["Eve"])
        XCTAssertEqual(try container.viewContext.count(for: request), 1)
        request.fetchLimit = 0
        request.fetchOffset = 3
        XCTAssertEqual(try container.viewContext.fetch(request).map(\.firstName), ["Dee", "Eve"])
        XCTAssertEqual(try container.viewContext.fetchObjectIDs(request).count, 2)
    }

    func testIncludesSubentitiesDecidesWhetherManagersAreEmployees() throws {
        try seed()
        let container = try makeContainer(Models.company)
        let context = container.viewContext
        var request = FetchRequest<Employee>()
        request.sortDescriptors = [SortKey("firstName")]
        XCTAssertEqual(try context.fetch(request).map(\.firstName), ["Ann", "Bob", "Cy", "Dee", "Eve"])
        XCTAssertEqual(try context.count(for: request), 5)
        request.includesSubentities = false
        XCTAssertEqual(try context.fetch(request).map(\.firstName), ["Ann", "Bob", "Cy"])
        XCTAssertEqual(try context.count(for: request), 3)
        XCTAssertEqual(try context.fetchObjectIDs(request).count, 3)
        let managers = try fetchAll(Manager.self, in: context, sortedBy: "firstName")
        XCTAssertEqual(managers.map(\.firstName), ["Dee", "Eve"])
    }

    func testPendingChangesAreIncludedUnlessTheRequestSaysOtherwise() throws {
        try seed()
        let container = try makeContainer(Models.company)
        let context = container.viewContext
        var request = FetchRequest<Employee>()
        request.sortDescriptors = [SortKey("firstName")]
        let all = try context.fetch(request)
        context.delete(all[0])                       // Ann
        all[2].firstName = "Aaron"                   // Cy renamed, not saved
        let zed = Employee(context: context)
        zed.firstName = "Zed"
        let manager = Manager(context: context)
        manager.firstName = "Max"

        XCTAssertEqual(try context.fetch(request).map(\.firstName), ["Aaron", "Bob", "Dee", "Eve", "Max", "Zed"])
        XCTAssertEqual(try context.count(for: request), 6)
        XCTAssertEqual(try context.fetchObjectIDs(request).count, 6)
        request.fetchLimit = 2
        request.fetchOffset = 1
        XCTAssertEqual(try context.fetch(request).map(\.firstName), ["Bob", "Dee"], "paging applies after the pending changes")
        request.fetchLimit = 0
        request.fetchOffset = 0
        request.includesSubentities = false
        XCTAssertEqual(try context.fetch(request).map(\.firstName), ["Aaron", "Bob", "Zed"])
        XCTAssertEqual(try context.count(for: request), 3)

        request.includesSubentities = true
        request.includesPendingChanges = false
        let stored = try context.fetch(request)
        XCTAssertEqual(stored.count, 5, "only rows in the store")
        XCTAssertFalse(stored.contains(zed))
        XCTAssertEqual(try context.count(for: request), 5)
    }

    func testCountAndFetchObjectIDsMaterializeNothing() throws {
        try seed()
        let container = try makeContainer(Models.company)
        let context = container.viewContext
        let recorder = SQLRecorder(container.persistentStoreCoordinator)
        var request = FetchRequest<Employee>()
        request.sortDescriptors = [SortKey("age"), SortKey("firstName")]
        XCTAssertEqual(try context.count(for: request), 5)
        XCTAssertEqual(recorder.selects.count, 1)
        XCTAssertTrue(recorder.selects[0].uppercased().contains("COUNT("), recorder.selects[0])
        let ids = try context.fetchObjectIDs(request)
        XCTAssertEqual(ids.count, 5)
        XCTAssertTrue(context.registeredObjects.isEmpty, "no object was materialized")
        let objects = try context.fetch(request)
        XCTAssertEqual(objects.map(\.objectID), ids, "same order as fetch")
        XCTAssertEqual(objects.map(\.firstName), ["Bob", "Dee", "Ann", "Eve", "Cy"])
        XCTAssertEqual(ids.filter { $0.entityName == "Manager" }.count, 2)
    }

    func testExecuteReturnsTheRequestedResultType() throws {
        try seed()
        let container = try makeContainer(Models.company)
        var request = FetchRequest<Manager>()
        request.resultType = .count
        guard case .count(let count) = try container.viewContext.execute(request) else { return XCTFail("expected a count") }
        XCTAssertEqual(count, 2)
        request.resultType = .managedObjectID
        guard case .objectIDs(let ids) = try container.viewContext.execute(request) else { return XCTFail("expected IDs") }
        XCTAssertEqual(ids.count, 2)
        request.resultType = .managedObject
        guard case .objects(let objects) = try container.viewContext.execute(request) else { return XCTFail("expected objects") }
        XCTAssertEqual(Set(objects.map(\.firstName)), ["Dee", "Eve"])
    }
}
