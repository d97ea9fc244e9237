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

/// Values set in awakeFromFetch() are part of the fetched state, not changes (Core Data).
final class AwakeFromFetchTests: StoreTestCase {
    final class Counter: ManagedObject {
        @Attribute var count: Int = 0
        @Attribute(.transient) var doubled: Int = 0
        override func awakeFromFetch() {
            super.awakeFromFetch()
            doubled = count * 2
        }
    }

    func testSettingATransientInAwakeFromFetchIsNoChange() throws {
        let container = try PersistentContainer(name: "Awake", entities: [Counter.self], storeURL: storeURL)
        let counter = Counter(context: container.viewContext)
        counter.count = 21
        try container.viewContext.save()

        let reader = try PersistentContainer(name: "Awake", entities: [Counter.self], storeURL: storeURL)
        let fetched = try XCTUnwrap(reader.viewContext.fetch(FetchRequest<Counter>()).first)
        XCTAssertEqual(fetched.doubled, 42)
        XCTAssertFalse(fetched.hasChanges)
        XCTAssertFalse(reader.viewContext.hasChanges)
        XCTAssertEqual(reader.viewContext.updatedObjects, [])
        fetched.count = 1
        XCTAssertTrue(reader.viewContext.hasChanges, "a later edit is still a change")
    }
}
