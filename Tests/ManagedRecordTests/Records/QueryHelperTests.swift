import Foundation
import ManagedRecord
import XCTest

final class QueryHelperTests: RecordTestCase {
    override func setUpWithError() throws {
        try super.setUpWithError()
        for (first, last, age) in [("John", "Smith", 42), ("Jane", "Smith", 35), ("Li", "Wu", 28), ("John", "Lee", 51)] {
            let person = Person.newEntity()
            person.firstName = first
            person.lastName = last
            person.age = age
        }
        let boss = Boss.newEntity()
        boss.firstName = "Ann"
        boss.lastName = "Adams"
        boss.age = 60
        try Person.commit()
    }

    func testFetchWhereTakesAFormatStringOrATypedPredicate() throws {
        XCTAssertEqual(Set(try Person.fetch(where: "firstName == %@", "John").map(\.lastName)), ["Smith", "Lee"])
        XCTAssertEqual(try Person.fetch(where: "age > %@", 30, sortedBy: [SortKey("lastName")], limit: 2).map(\.lastName), ["Adams", "Lee"])
        XCTAssertEqual(try Person.fetch(where: \Person.$age < 30).map(\.firstName), ["Li"])
        XCTAssertEqual(try Person.fetch(where: "age > %@", 50, includesSubentities: false).map(\.firstName), ["John"],
                       "the Boss (a sub-entity) left out")
        XCTAssertThrowsError(try Person.fetch(where: "age >")) { error in
            XCTAssertTrue(error is FetchPredicateError, "\(error)")
        }
        let request = try Person.fetchRequest(where: "lastName == %@", argumentArray: ["Smith"], sortedBy: [SortKey("age")], limit: 1)
        XCTAssertEqual(request.fetchLimit, 1)
        XCTAssertEqual(try Person.contextForCurrentThread.fetch(request).map(\.firstName), ["Jane"])
    }

    func testGetReturnsTheFirstMatchOrNil() throws {
        XCTAssertEqual(try Person.get(where: "lastName == %@", "Smith", sortedBy: [SortKey("age")])?.firstName, "Jane")
        XCTAssertNil(try Person.get(where: "lastName == %@", "Nobody"))
        let person = try XCTUnwrap(Person.get(where: "firstName == %@", "Li"))
        XCTAssertEqual(try Person.get(where: "badge == %@", person.badge)?.objectID, person.objectID)
    }

    func testNewOrExistingEntityFindsOrInserts() throws {
        let existing = try Person.newOrExistingEntity(where: "lastName == %@", "Wu")
        XCTAssertFalse(existing.isInserted)
        let created = try Person.newOrExistingEntity(where: "lastName == %@", "Nobody")
        XCTAssertTrue(created.isInserted)
    }

    func testCountDistinctValuesAndAggregatesRunInTheStore() throws {
        XCTAssertEqual(try Person.count(where: "firstName == %@", "John"), 2)
        XCTAssertEqual(try Person.distinctValues(of: "lastName", as: String.self), ["Adams", "Lee", "Smith", "Wu"])
        XCTAssertEqual(try Person.distinctValues(of: "lastName", as: String.self, where: "age < %@", 40), ["Smith", "Wu"])
        XCTAssertEqual(try XCTUnwrap(Person.aggregate(.average, of: "age")), Double(42 + 35 + 28 + 51 + 60) / 5, accuracy: 1e-9)
        XCTAssertEqual(try Person.aggregate(.max, of: "age"), 60)
        XCTAssertEqual(try Person.aggregate(.sum, of: "age", where: "lastName == %@", "Smith"), 77)
        XCTAssertNil(try Person.aggregate(.min, of: "age", where: "age > %@", 100))
        XCTAssertEqual(try Person.aggregate(.min, of: "age", where: FetchPredicate("age > %@", 100), default: -1), -1)
    }

    func testFetchDictionaryKeysObjectsByAnAttribute() throws {
        let byBadge = try Person.fetchDictionary(keyedBy: "badge")
        XCTAssertEqual(byBadge.count, 5)
        for (badge, person) in byBadge { XCTAssertEqual(badge, AnyHashable(person.badge)) }
        let smiths = try Person.fetchDictionary(keyedBy: "firstName", where: "lastName == %@", "Smith")
        XCTAssertEqual(Set(smiths.keys.compactMap { $0.base as? String }), ["John", "Jane"])
        XCTAssertThrowsError(try Person.fetchDictionary(keyedBy: "nickname"))
    }

    func testDeleteAllRunsOneBatchAndUpdatesRegisteredObjects() throws {
        let john = try XCTUnwrap(Person.get(where: "firstName == %@ AND lastName == %@", "John", "Smith"))
        XCTAssertEqual(try Person.deleteAll(where: "age > %@", 40), 3, "John Smith 42, John Lee 51, Ann Adams 60")
        XCTAssertTrue(john.isDeleted, "a registered object it hit is deleted")
        XCTAssertEqual(Set(try Person.fetchAll().map(\.firstName)), ["Jane", "Li"])
        let remaining = Locked(-1)
        onNewThread { remaining.set((try? Person.count()) ?? -1) }
        XCTAssertEqual(remaining.value, 2, "another thread sees the deletion")
        XCTAssertEqual(try Person.deleteAll(), 2)
        XCTAssertEqual(try Person.count(), 0)
    }

    func testDeleteAllCascadesThroughDeleteRules() throws {
        let company = Company.newEntity()
        company.name = "Acme"
        let worker = try XCTUnwrap(Person.get(where: "firstName == %@", "Li"))
        worker.company = company
        try Person.commit()
        XCTAssertEqual(try Company.deleteAll(where: "name == %@", "Acme"), 1)
        XCTAssertNil(try Person.get(where: "firstName == %@", "Li"), "the cascade removed the company's people")
        XCTAssertEqual(try Person.count(), 4)
    }

    func testAMalformedPredicateThrowsAndTouchesNothing() throws {
        XCTAssertThrowsError(try Person.fetch(where: "age > 3 AND (firstName == 'x'")) { error in
            XCTAssertTrue("\(error)".contains("expected"), "\(error)")
        }
        XCTAssertThrowsError(try Person.count(where: "shoeSize > %@", 3)) { error in
            XCTAssertTrue("\(error)".contains("shoeSize"), "\(error)")
        }
        XCTAssertEqual(try Person.count(), 5)
    }

    func testFetchInBackgroundWithAPredicate() async throws {
        try await Person.perform {
            let people = try await Person.fetchInBackground(where: FetchPredicate("lastName == %@", "Smith"), sortedBy: [SortKey("age")])
            XCTAssertEqual(people.map(\.firstName), ["Jane", "John"])
            XCTAssertTrue(people.allSatisfy { $0.managedObjectContext === Person.contextForCurrentThread })
        }
    }
}
