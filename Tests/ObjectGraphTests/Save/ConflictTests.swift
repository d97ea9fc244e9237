import Foundation
import ObjectGraph
import XCTest

/// Optimistic locking: two coordinators (two containers) on one file, each with its own
/// view of a row, and Core Data's five merge policies.
final class ConflictTests: StoreTestCase {
    /// Saves one employee (Ann Smith, 30, salary 1000) and returns it, in `container`'s view context.
    private func seed(_ container: PersistentContainer) throws -> Employee {
        let employee = Employee(context: container.viewContext)
        employee.firstName = "Ann"
        employee.lastName = "Smith"
        employee.age = 30
        employee.salary = 1000
        try container.viewContext.save()
        return employee
    }

    /// The employee as a third, fresh container reads it from the file.
    private func storedEmployee() throws -> (firstName: String, lastName: String, age: Int, salary: Double) {
        let reader = try makeContainer(Models.company)
        let employee = try XCTUnwrap(fetchAll(Employee.self, in: reader.viewContext).first)
        return (employee.firstName, employee.lastName, employee.age, employee.salary)
    }

    /// Sets up the conflict: `mine` (in container A) read the row at version 1, then
    /// container B changed `age` to 50 and `lastName` to "Jones" and saved (version 2).
    private func makeConflict() throws -> (a: PersistentContainer, mine: Employee, b: PersistentContainer) {
        let a = try makeContainer(Models.company)
        // A keeps the object it saved: its snapshot is the row at version 1. (An object A
        // let go of would be read again, at B's version, when A next asked for it.)
        let mine = try seed(a)
        let b = try makeContainer(Models.company)
        let theirs = try object(Employee.self, try translate(mine.objectID, to: b), in: b.viewContext)
        theirs.age = 50
        theirs.lastName = "Jones"
        try b.viewContext.save()
        XCTAssertEqual(mine.age, 30, "A still sees what it read before B's save")
        return (a, mine, b)
    }

    func testTheErrorPolicyThrowsAMergeConflictNamingTheObjectAndLeavesEverythingAsItWas() throws {
        let (a, mine, _) = try makeConflict()
        mine.firstName = "Annie"
        let before = try SQLiteFile.dump(storeURL)

        XCTAssertThrowsError(try a.viewContext.save()) { error in
            guard let conflict = error as? MergeConflictError else { return XCTFail("expected MergeConflictError, got \(error)") }
            XCTAssertEqual(conflict.conflicts.map(\.objectID), [mine.objectID])
            XCTAssertEqual(conflict.conflicts.first?.snapshotVersion, 1)
            XCTAssertEqual(conflict.conflicts.first?.storeVersion, 2)
            XCTAssertTrue("\(conflict)".contains("Employee"), "the message names the entity: \(conflict)")
        }
        XCTAssertEqual(try SQLiteFile.dump(storeURL), before, "nothing was written")
        XCTAssertTrue(a.viewContext.hasChanges)
        XCTAssertEqual(a.viewContext.updatedObjects, [mine])
        XCTAssertEqual(mine.firstName, "Annie", "the pending change is kept")
        XCTAssertEqual(mine.changedValues().keys.sorted(), ["firstName"])

        // Fix: refresh keeping the change, then retry.
        a.viewContext.refresh(mine, mergeChanges: true)
        XCTAssertEqual(mine.age, 50, "refresh read B's values")
        XCTAssertEqual(mine.firstName, "Annie", "and kept A's change on top")
        try a.viewContext.save()
        let stored = try storedEmployee()
        XCTAssertEqual(stored.firstName, "Annie")
        XCTAssertEqual(stored.lastName, "Jones")
        XCTAssertEqual(stored.age, 50)
    }

    func testAConflictBetweenTheViewContextAndABackgroundContextIsDetected() throws {
        let container = try makeContainer(Models.company)
        let view = container.viewContext
        view.automaticallyMergesChanges = false
        let id = try seed(container).objectID
        let mine = try object(Employee.self, id, in: view)

        let background = container.newBackgroundContext()
        try background.performAndWait {
            let theirs = try XCTUnwrap(try background.existingObject(with: id) as? Employee)
            theirs.age = 51
            try background.save()
        }
        XCTAssertEqual(mine.age, 30, "automaticallyMergesChanges = false: the view context did not merge")

        mine.age = 31
        XCTAssertThrowsError(try view.save()) { error in
            XCTAssertEqual((error as? MergeConflictError)?.conflicts.map(\.objectID), [id])
        }
        view.mergePolicy = .mergeByPropertyObjectTrump
        try view.save()
        XCTAssertEqual(try storedEmployee().age, 31)
    }

    func testDeletingARowChangedElsewhereIsAConflictUnderTheErrorPolicy() throws {
        let (a, mine, _) = try makeConflict()
        a.viewContext.delete(mine)
        XCTAssertThrowsError(try a.viewContext.save()) { error in
            XCTAssertEqual((error as? MergeConflictError)?.conflicts.map(\.objectID), [mine.objectID])
        }
        XCTAssertEqual(try SQLiteFile(storeURL).scalar("SELECT count(*) FROM ZEMPLOYEE"), .integer(1))
        XCTAssertEqual(a.viewContext.deletedObjects, [mine], "the delete is still pending")
    }

    func testUpdatingARowDeletedElsewhereIsAConflictWithNoStoreVersion() throws {
        let a = try makeContainer(Models.company)
        let id = try seed(a).objectID
        let mine = try object(Employee.self, id, in: a.viewContext)
        let b = try makeContainer(Models.company)
        b.viewContext.delete(try b.viewContext.existingObject(with: try translate(id, to: b)))
        try b.viewContext.save()

        mine.age = 99
        XCTAssertThrowsError(try a.viewContext.save()) { error in
            guard let conflict = error as? MergeConflictError else { return XCTFail("expected MergeConflictError, got \(error)") }
            XCTAssertEqual(conflict.conflicts.map(\.objectID), [id])
            XCTAssertNil(conflict.conflicts.first?.storeVersion, "the row was deleted")
        }
    }

    func testAConflictLeavesInsertsOfTheSameSavePendingWithTemporaryIDs() throws {
        let (a, mine, _) = try makeConflict()
        mine.salary = 1
        let newcomer = Employee(context: a.viewContext)
        newcomer.firstName = "New"
        let before = try SQLiteFile.dump(storeURL)
        XCTAssertThrowsError(try a.viewContext.save())
        XCTAssertEqual(try SQLiteFile.dump(storeURL), before, "no row inserted, no key consumed")
        XCTAssertTrue(newcomer.objectID.isTemporaryID)
        XCTAssertEqual(a.viewContext.insertedObjects, [newcomer])
        XCTAssertTrue(newcomer.isInserted)

        a.viewContext.refresh(mine, mergeChanges: true)
        try a.viewContext.save()
        XCTAssertFalse(newcomer.objectID.isTemporaryID)
        XCTAssertEqual(try SQLiteFile(storeURL).scalar("SELECT count(*) FROM ZEMPLOYEE"), .integer(2))
    }
}
