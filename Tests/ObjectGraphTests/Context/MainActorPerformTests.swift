import Foundation
import ObjectGraph
import XCTest

/// API.md's `try await background.perform { ... }` must compile and work from main-actor code.
final class MainActorPerformTests: StoreTestCase {
    @MainActor
    func testAsyncPerformOnABackgroundContextFromMainActorCode() async throws {
        let container = try makeContainer(Models.company)
        let sales = Department(context: container.viewContext)
        sales.name = "Sales"
        try container.viewContext.save()
        let id = sales.objectID
        let background = container.newBackgroundContext()
        let budget = try await background.perform { () -> Double in
            let same = try background.existingObject(with: id) as! Department
            same.budget = 10
            try background.save()
            return same.budget
        }
        XCTAssertEqual(budget, 10)
        let reader = try makeContainer(Models.company)
        let stored = try XCTUnwrap(try reader.viewContext.fetch(FetchRequest<Department>()).first)
        XCTAssertEqual(stored.budget, 10)
    }
}
