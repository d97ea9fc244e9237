import Foundation
import ObjectGraph
import XCTest

/// An undo after a refresh that dropped or reloaded what the undone group changed.
final class UndoAfterRefreshTests: StoreTestCase {
    /// The group changed `ann.department`, and through its inverse `sales.employees`; the
    /// refresh discarded Sales's side and turned it into a fault. Undoing must read Sales's
    /// members again rather than touch the fault's empty values (it stopped the process with
    /// an index out of range before).
    func testUndoingAnInverseChangeOfARefreshedObjectReloadsItsMembers() throws {
        let container = try makeContainer(Models.company)
        let context = container.viewContext
        let sales = Department(context: context)
        sales.name = "Sales"
        let bob = Employee(context: context)
        bob.firstName = "Bob"
        bob.department = sales
        let ann = Employee(context: context)
        ann.firstName = "Ann"
        try context.save()
        context.undoStack = UndoStack()

        ann.department = sales
        context.processPendingChanges()           // closes the undo group
        context.refresh(sales, mergeChanges: false)
        XCTAssertTrue(sales.isFault)

        context.undo()
        XCTAssertNil(ann.department)
        XCTAssertEqual(sales.employees.map(\.firstName), ["Bob"])
        try context.save()
        let fresh = try makeContainer(Models.company).viewContext
        let stored = try fresh.fetch(FetchRequest<Employee>(predicate: FetchPredicate("department.name == 'Sales'")))
        XCTAssertEqual(stored.map(\.firstName), ["Bob"])
    }
}
