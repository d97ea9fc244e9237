import Foundation
import ObjectGraph
import XCTest

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
