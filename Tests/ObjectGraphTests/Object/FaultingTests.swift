import Foundation
import ObjectGraph
import XCTest

/// Faults, one-query to-many loading, and uniquing.
final class FaultingTests: StoreTestCase {
    /// Saves a department with `count` employees and returns the department's URI.
    private func seedDepartment(employees count: Int) throws -> URL {
        let container = try makeContainer(Models.company)
        let sales = Department(context: container.viewContext)
        sales.name = "Sales"
        for index in 0..<count {
            let employee = Employee(context: container.viewContext)
            employee.firstName = "E\(index)"
            employee.age = 20 + index
            employee.department = sales
        }
        try container.viewContext.save()
        return sales.objectID.uriRepresentation
    }

    func testObjectWithIDReturnsAFaultThatLoadsOnFirstTouch() throws {
        let uri = try seedDepartment(employees: 1)
        let container = try makeContainer(Models.company)
        let recorder = SQLRecorder(container.persistentStoreCoordinator)
        let id = try XCTUnwrap(container.persistentStoreCoordinator.managedObjectID(forURIRepresentation: uri))

        let fault = container.viewContext.object(with: id)
        XCTAssertTrue(fault.isFault)
        XCTAssertTrue(fault is Department, "the fault has the entity's class")
        XCTAssertEqual(recorder.selects, [], "object(with:) never touches the store")

        let sales = try XCTUnwrap(fault as? Department)
        XCTAssertEqual(sales.name, "Sales")
        XCTAssertFalse(sales.isFault)
        XCTAssertEqual(recorder.selects.count, 1, "touching a property runs one query: \(recorder.selects)")
        _ = sales.budget
        XCTAssertEqual(recorder.selects.count, 1, "a loaded object needs no further query")
    }

    func testAToManyLoadsItsMembersAndTheirValuesWithOneQuery() throws {
        let uri = try seedDepartment(employees: 25)
        let container = try makeContainer(Models.company)
        let recorder = SQLRecorder(container.persistentStoreCoordinator)
        let id = try XCTUnwrap(container.persistentStoreCoordinator.managedObjectID(forURIRepresentation: uri))
        let sales = try object(Department.self, id, in: container.viewContext)
        recorder.reset()

        let employees = sales.employees
        let ages = employees.map(\.age).sorted()
        XCTAssertEqual(ages, Array(20..<45))
        XCTAssertTrue(employees.allSatisfy { !$0.isFault })
        XCTAssertEqual(recorder.selects.count, 1, "one query for the relationship and its members: \(recorder.selects)")
        _ = sales.employees.map(\.firstName)
        XCTAssertEqual(recorder.selects.count, 1, "a loaded to-many needs no further query")
    }

    func testAToOneDestinationIsAFaultUntilTouched() throws {
        _ = try seedDepartment(employees: 1)
        let container = try makeContainer(Models.company)
        let recorder = SQLRecorder(container.persistentStoreCoordinator)
        let employee = try XCTUnwrap(fetchAll(Employee.self, in: container.viewContext).first)
        recorder.reset()
        let department = try XCTUnwrap(employee.department)
        XCTAssertTrue(department.isFault, "the destination of a to-one is a fault")
        XCTAssertEqual(recorder.selects, [])
        XCTAssertEqual(department.name, "Sales")
        XCTAssertEqual(recorder.selects.count, 1)
    }

    func testFetchesReturnTheSameInstanceForTheSameRow() throws {
        _ = try seedDepartment(employees: 3)
        let container = try makeContainer(Models.company)
        let context = container.viewContext
        let first = try fetchAll(Employee.self, in: context, sortedBy: "firstName")
        let second = try fetchAll(Employee.self, in: context, sortedBy: "age")
        XCTAssertEqual(first.count, 3)
        for (a, b) in zip(first, second) { XCTAssertTrue(a === b, "one object per row in a context") }
        let department = try XCTUnwrap(fetchAll(Department.self, in: context).first)
        XCTAssertTrue(first[0].department === department)
        XCTAssertTrue(department.employees.contains { $0 === first[1] })
        XCTAssertTrue(context.object(with: first[2].objectID) === first[2])
        XCTAssertTrue(try context.existingObject(with: first[2].objectID) === first[2])
        let byName = try context.fetch(FetchRequest<ManagedObject>(entityName: "Employee"))
        XCTAssertTrue(byName.allSatisfy { object in first.contains { $0 === object } })
    }

    func testAFetchKeepsTheUnsavedChangesOfARegisteredObject() throws {
        _ = try seedDepartment(employees: 1)
        let container = try makeContainer(Models.company)
        let context = container.viewContext
        let employee = try XCTUnwrap(fetchAll(Employee.self, in: context).first)
        employee.firstName = "Edited"
        let again = try XCTUnwrap(fetchAll(Employee.self, in: context).first)
        XCTAssertTrue(again === employee)
        XCTAssertEqual(again.firstName, "Edited")
    }

    func testDifferentContextsHaveTheirOwnInstances() throws {
        _ = try seedDepartment(employees: 1)
        let container = try makeContainer(Models.company)
        let mine = try XCTUnwrap(fetchAll(Employee.self, in: container.viewContext).first)
        let background = container.newBackgroundContext()
        let id = mine.objectID
        let differs = try background.performAndWait { () throws -> Bool in
            let theirs = try background.existingObject(with: id)
            return theirs !== mine && theirs.objectID == id
        }
        XCTAssertTrue(differs)
    }

    func testAToManyOfMoreThanFiveHundredMembersStillLoadsWithOneQuery() throws {
        let uri = try seedDepartment(employees: 1_200)
        let container = try makeContainer(Models.company)
        let recorder = SQLRecorder(container.persistentStoreCoordinator)
        let id = try XCTUnwrap(container.persistentStoreCoordinator.managedObjectID(forURIRepresentation: uri))
        let sales = try object(Department.self, id, in: container.viewContext)
        recorder.reset()
        let employees = sales.employees
        XCTAssertEqual(employees.count, 1_200)
        XCTAssertEqual(Set(employees.map(\.firstName)).count, 1_200)
        XCTAssertEqual(recorder.selects.count, 1, "\(recorder.selects.count) queries")
    }

    func testTouchingADeletedRowsFaultMarksItDeleted() throws {
        let uri = try seedDepartment(employees: 0)
        let container = try makeContainer(Models.company)
        let id = try XCTUnwrap(container.persistentStoreCoordinator.managedObjectID(forURIRepresentation: uri))
        let fault = container.viewContext.object(with: id)
        let other = try makeContainer(Models.company)
        other.viewContext.delete(try other.viewContext.existingObject(with: try translate(id, to: other)))
        try other.viewContext.save()

        XCTAssertTrue(fault.isFault)
        _ = (fault as? Department)?.name
        XCTAssertTrue(fault.isDeleted, "a fault whose row is gone turns into a deleted object")
        XCTAssertNil(container.viewContext.registeredObject(for: id))
        XCTAssertThrowsError(try container.viewContext.existingObject(with: id))
    }
}
