import Foundation
import ObjectGraph
import XCTest

/// An idle context's waiting merges are bounded; past the bound it refreshes instead.
final class MergeInboxTests: StoreTestCase {
    func testAnOverflowingInboxRefreshesRegisteredObjectsInsteadOfHoardingRows() throws {
        let container = try makeContainer(Models.company)
        let view = container.viewContext
        view.mergeInboxCapacity = 5
        var people: [Employee] = []
        for index in 0..<3 {
            let person = Employee(context: view)
            person.firstName = "P\(index)"
            people.append(person)
        }
        try view.save()
        let ids = people.map(\.objectID)
        let background = container.newBackgroundContext()
        try background.performAndWait {
            for round in 0..<4 {
                for id in ids { (try background.existingObject(with: id) as! Employee).age = round + 1 }
                try background.save()
            }
            let doomed = try background.existingObject(with: ids[2])
            background.delete(doomed)
            try background.save()
        }
        XCTAssertEqual(people[0].age, 4, "the refreshed object reloads the last saved value")
        XCTAssertEqual(people[1].age, 4)
        _ = people[2].firstName
        XCTAssertTrue(people[2].isDeleted, "a row deleted meanwhile shows as deleted once touched")
        XCTAssertEqual(try view.count(for: FetchRequest<Employee>()), 2)
    }
}
