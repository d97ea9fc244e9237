import Foundation
import ObjectGraph
import XCTest

/// The example of docs/threading.md, "Child contexts", as written there, run against a real store.
final class ChildContextGuideTests: StoreTestCase {
    func testTheEditingSheetExample() throws {
        let container = try makeContainer(Models.company)
        let employee = Employee(context: container.viewContext)
        employee.salary = 1000
        try container.viewContext.save()

        // ChildContextGuideTests compiles and runs this example.
        let context = container.viewContext
        let sheet = context.newChildContext(concurrencyType: .privateQueue, name: "editing sheet")
        let id = employee.objectID
        try sheet.performAndWait {
            let draft = try sheet.existingObject(with: id) as! Employee
            draft.salary += 100
            try sheet.save()        // into `context` only: now one of its unsaved changes
        }
        XCTAssertTrue(context.hasChanges)
        XCTAssertEqual(employee.salary, 1100)
        try context.save()          // now in the store

        let reader = try makeContainer(Models.company)
        XCTAssertEqual(try reader.viewContext.fetch(FetchRequest<Employee>()).map(\.salary), [1100])
    }
}
