import Foundation
import ObjectGraph
import XCTest

/// rollback(), reset() and refresh(_:mergeChanges:).
final class ContextStateTests: StoreTestCase {
    func testRollbackUndoesInsertsEditsDeletesAndRelationshipChanges() throws {
        let container = try makeContainer(Models.company)
        let context = container.viewContext
        let sales = Department(context: context)
        sales.name = "Sales"
        let support = Department(context: context)
        support.name = "Support"
        let john = Employee(context: context)
        john.firstName = "John"
        john.department = sales
        let jane = Employee(context: context)
        jane.firstName = "Jane"
        jane.department = sales
        try context.save()

        john.firstName = "Johnny"
        john.department = support
        context.delete(jane)
        let newcomer = Employee(context: context)
        newcomer.department = support
        XCTAssertTrue(context.hasChanges)

        context.rollback()
        XCTAssertFalse(context.hasChanges)
        XCTAssertEqual(context.insertedObjects, [])
        XCTAssertEqual(context.updatedObjects, [])
        XCTAssertEqual(context.deletedObjects, [])
        XCTAssertEqual(john.firstName, "John")
        XCTAssertTrue(john.department === sales)
        XCTAssertEqual(sales.employees, [john, jane])
        XCTAssertEqual(support.employees, [])
        XCTAssertFalse(jane.isDeleted)
        XCTAssertTrue(jane.department === sales)
        XCTAssertNil(newcomer.managedObjectContext, "a rolled-back insert leaves the context")
        XCTAssertFalse(newcomer.isInserted)

        try context.save()   // nothing to write
        XCTAssertEqual(try SQLiteFile(storeURL).scalar("SELECT count(*) FROM ZEMPLOYEE"), .integer(2))
    }

    func testRollbackRestoresACascadeDelete() throws {
        let container = try makeContainer(Models.company)
        let context = container.viewContext
        let sales = Department(context: context)
        let john = Employee(context: context)
        john.department = sales
        try context.save()

        context.delete(sales)
        XCTAssertTrue(john.isDeleted)
        context.rollback()
        XCTAssertFalse(sales.isDeleted)
        XCTAssertFalse(john.isDeleted)
        XCTAssertTrue(john.department === sales)
        XCTAssertEqual(sales.employees, [john])
        XCTAssertFalse(context.hasChanges)
    }

    func testResetForgetsEveryObjectAndUnsavedChange() throws {
        let container = try makeContainer(Models.company)
        let context = container.viewContext
        let john = Employee(context: context)
        john.firstName = "John"
        try context.save()
        john.firstName = "Changed"
        let unsaved = Employee(context: context)
        unsaved.firstName = "Unsaved"

        context.reset()
        XCTAssertFalse(context.hasChanges)
        XCTAssertTrue(context.registeredObjects.isEmpty)
        XCTAssertNil(john.managedObjectContext)
        XCTAssertNil(unsaved.managedObjectContext)
        XCTAssertNil(context.registeredObject(for: john.objectID))

        let fetched = try fetchAll(Employee.self, in: context)
        XCTAssertEqual(fetched.map(\.firstName), ["John"], "the unsaved edit and insert are gone")
        XCTAssertFalse(fetched[0] === john, "a fetch after reset makes a new instance")
    }

    func testRefreshWithoutMergingDiscardsChangesAndTurnsTheObjectIntoAFault() throws {
        let container = try makeContainer(Models.company)
        let context = container.viewContext
        let john = Employee(context: context)
        john.firstName = "John"
        john.age = 40
        try context.save()

        // Another coordinator changes the row.
        let other = try makeContainer(Models.company)
        let theirs = try object(Employee.self, try translate(john.objectID, to: other), in: other.viewContext)
        theirs.age = 41
        try other.viewContext.save()

        john.firstName = "Local edit"
        context.refresh(john, mergeChanges: false)
        XCTAssertTrue(john.isFault)
        XCTAssertFalse(context.hasChanges, "the unsaved change is discarded")
        XCTAssertEqual(john.firstName, "John")
        XCTAssertEqual(john.age, 41, "touching the fault reads the store's current row")
        XCTAssertFalse(john.isFault)
    }

    func testRefreshWithMergingKeepsUnsavedChangesOnTopOfTheStoresValues() throws {
        let container = try makeContainer(Models.company)
        let context = container.viewContext
        let john = Employee(context: context)
        john.firstName = "John"
        john.age = 40
        try context.save()

        let other = try makeContainer(Models.company)
        let theirs = try object(Employee.self, try translate(john.objectID, to: other), in: other.viewContext)
        theirs.age = 41
        theirs.lastName = "Doe"
        try other.viewContext.save()

        john.firstName = "Johnny"
        context.refresh(john, mergeChanges: true)
        XCTAssertEqual(john.firstName, "Johnny")
        XCTAssertEqual(john.age, 41)
        XCTAssertEqual(john.lastName, "Doe")
        XCTAssertTrue(context.hasChanges)
        XCTAssertEqual(john.changedValues().keys.sorted(), ["firstName"])
        XCTAssertEqual(john.committedValues(forKeys: ["age"])["age"] as? Int, 41)
        try context.save()   // no conflict: the refresh read the current version
        let reader = try makeContainer(Models.company)
        let stored = try XCTUnwrap(fetchAll(Employee.self, in: reader.viewContext).first)
        XCTAssertEqual(stored.fullName, "Johnny Doe")
        XCTAssertEqual(stored.age, 41)
    }
}
