import Foundation
import ObjectGraph
import XCTest

/// A context's change sets keep their members through many insertions and removals (the
/// tables close their holes as they go) and hand a save exactly the objects that changed.
final class ChangeSetTableTests: StoreTestCase {
    func testChangeSetsKeepTheirMembersThroughManyRemovals() throws {
        let container = try makeContainer(Models.company)
        let context = container.viewContext
        let people = (0..<100).map { index -> Employee in
            let employee = Employee(context: context)
            employee.firstName = "P\(index)"
            employee.age = index
            return employee
        }
        // Most new objects are deleted again before any save: they simply leave.
        for employee in people where employee.age % 10 >= 3 { context.delete(employee) }
        let kept = people.filter { $0.age % 10 < 3 }
        XCTAssertEqual(context.insertedObjects, Set(kept))
        XCTAssertEqual(context.deletedObjects, [])
        try context.save()
        XCTAssertFalse(context.hasChanges)
        XCTAssertEqual(try context.count(for: FetchRequest<Employee>()), 30)
        XCTAssertTrue(kept.allSatisfy { !$0.objectID.isTemporaryID })

        // Changes to 30 objects, 20 of them taken back by refreshing, 5 deleted.
        for employee in kept { employee.salary = 10 }
        for employee in kept[..<20] { context.refresh(employee, mergeChanges: false) }
        for employee in kept[20..<25] { context.delete(employee) }
        XCTAssertEqual(context.updatedObjects, Set(kept[25...]))
        XCTAssertEqual(context.deletedObjects, Set(kept[20..<25]))
        XCTAssertTrue(context.hasChanges)
        try context.save()
        XCTAssertFalse(context.hasChanges)
        let file = try SQLiteFile(storeURL)
        XCTAssertEqual(try file.scalar("SELECT count(*) FROM ZEMPLOYEE"), .integer(25))
        XCTAssertEqual(try file.scalar("SELECT count(*) FROM ZEMPLOYEE WHERE ZSALARY = 10"), .integer(5))

        // An object changed, taken back and changed again is saved once.
        let again = kept[0]
        again.salary = 20
        context.refresh(again, mergeChanges: false)
        again.salary = 30
        XCTAssertEqual(context.updatedObjects, [again])
        try context.save()
        XCTAssertEqual(try file.scalar("SELECT ZSALARY FROM ZEMPLOYEE WHERE Z_PK = \(again.objectID.primaryKey ?? 0)"), .real(30))
        context.rollback()
        XCTAssertFalse(context.hasChanges)
    }
}
