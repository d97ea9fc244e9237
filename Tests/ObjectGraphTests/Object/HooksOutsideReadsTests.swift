import Foundation
import ObjectGraph
import XCTest

/// awakeFromFetch() runs after the read that loaded the object is over, so it may touch
/// relationships, fetch or save (regression: with an in-memory store, reads hold the
/// coordinator's write lock, and such a hook waited for that lock forever).
final class HooksOutsideReadsTests: XCTestCase {
    final class Shelf: ManagedObject {
        @Attribute var name: String = ""
        @Relationship(inverse: \Jar.$shelf) var jars: Set<Jar>
        var jarsAtAwake = -1

        override func awakeFromFetch() {
            super.awakeFromFetch()
            jarsAtAwake = jars.count
        }
    }

    final class Jar: ManagedObject {
        @Attribute var label: String = ""
        @Relationship var shelf: Shelf?
        var saveAtAwake: String?

        override func awakeFromFetch() {
            super.awakeFromFetch()
            guard let context = managedObjectContext, context.hasChanges else { return }
            do {
                try context.save()
                saveAtAwake = "saved"
            } catch {
                saveAtAwake = "\(error)"
            }
        }
    }

    /// Runs `body` on a thread of its own and fails (instead of hanging the suite) when it
    /// does not come back: a deadlock guard, not a measurement.
    private func runGuardingAgainstDeadlock(_ body: @escaping @Sendable () throws -> Void) {
        let done = expectation(description: "the body finished")
        Thread.detachNewThread {
            do { try body() } catch { XCTFail("\(error)") }
            done.fulfill()
        }
        wait(for: [done], timeout: 120)
    }

    func testAwakeFromFetchMayLoadARelationshipFromAnInMemoryStore() {
        runGuardingAgainstDeadlock {
            let container = try PersistentContainer(name: "Hooks", entities: [Shelf.self, Jar.self], location: .inMemory)
            let context = container.viewContext
            let shelf = Shelf(context: context)
            shelf.name = "Top"
            for label in ["jam", "honey"] {
                let jar = Jar(context: context)
                jar.label = label
                jar.shelf = shelf
            }
            try context.save()
            context.reset()
            let fetched = try context.fetch(FetchRequest<Shelf>())
            XCTAssertEqual(fetched.map(\.jarsAtAwake), [2])
            XCTAssertFalse(context.hasChanges)
        }
    }

    func testAwakeFromFetchMaySaveToAnInMemoryStore() {
        runGuardingAgainstDeadlock {
            let container = try PersistentContainer(name: "Hooks", entities: [Shelf.self, Jar.self], location: .inMemory)
            let context = container.viewContext
            Jar(context: context).label = "jam"
            try context.save()
            context.reset()
            Jar(context: context).label = "pending"
            var request = FetchRequest<Jar>()
            request.includesPendingChanges = false
            let fetched = try context.fetch(request)
            XCTAssertEqual(fetched.map(\.saveAtAwake), ["saved"])
            XCTAssertFalse(context.hasChanges)
            XCTAssertEqual(try context.count(for: FetchRequest<Jar>()), 2)
        }
    }
}
