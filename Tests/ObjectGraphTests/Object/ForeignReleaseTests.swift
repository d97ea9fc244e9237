import Foundation
import ObjectGraph
import XCTest

/// Letting go of the last reference to an object on a thread other than its context's, while
/// that context fetches on its own thread or is being released on a third: the object's
/// deallocation leaves the identity map under the map's lock, a lookup never returns an
/// object that is already deallocating, and a context torn down meanwhile waits for the
/// deallocations that claimed it (docs/unsafe-code.md, section 4).
final class ForeignReleaseTests: StoreTestCase {
    /// Objects handed from one thread to another on purpose: only released there.
    final class Handoff: @unchecked Sendable {  // each field is set before the thread that clears it starts
        var objects: [Department] = []
        var context: ManagedObjectContext?
    }

    private let rowCount = 2_000

    private func makeStore() throws -> PersistentContainer {
        let container = try makeContainer()
        for index in 0..<rowCount { Department(context: container.viewContext).name = "D\(index)" }
        try container.viewContext.save()
        return container
    }

    func testReleasingObjectsOnAnotherThreadWhileTheirContextFetchesIsSafe() throws {
        let container = try makeStore()
        let context = container.newBackgroundContext()
        for round in 0..<60 {
            let handoff = Handoff()
            handoff.objects = try context.performAndWait { try context.fetch(FetchRequest<Department>()) }
            let start = DispatchSemaphore(value: 0), released = DispatchSemaphore(value: 0)
            Thread {
                start.wait()
                handoff.objects = []   // 2,000 deallocations on this thread
                released.signal()
            }.start()
            start.signal()
            let (count, distinct, names) = try context.performAndWait {
                let fetched = try context.fetch(FetchRequest<Department>())
                return (fetched.count, Set(fetched.map(ObjectIdentifier.init)).count,
                        Set(fetched.map(\.name)).count)
            }
            released.wait()
            XCTAssertEqual(count, rowCount, "round \(round)")
            XCTAssertEqual(distinct, rowCount, "round \(round): one instance per row")
            XCTAssertEqual(names, rowCount, "round \(round): every object has its own row's values")
        }
        let registered = context.performAndWait { context.registeredObjects.count }
        XCTAssertEqual(registered, 0, "every released object left the identity map")
        let again = try context.performAndWait { try context.fetch(FetchRequest<Department>()).count }
        XCTAssertEqual(again, rowCount)
    }

    /// A new background context (held only by the handoff) and its fetched objects.
    private func fetchedInNewContext(_ container: PersistentContainer) throws -> Handoff {
        let handoff = Handoff()
        let context = container.newBackgroundContext()
        handoff.objects = try context.performAndWait { try context.fetch(FetchRequest<Department>()) }
        handoff.context = context
        return handoff
    }

    func testReleasingObjectsOnAnotherThreadWhileTheirContextIsReleasedIsSafe() throws {
        let container = try makeStore()
        for round in 0..<60 {
            let handoff = try fetchedInNewContext(container)
            let kept = Array(handoff.objects.prefix(10))
            let start = DispatchSemaphore(value: 0), done = DispatchSemaphore(value: 0)
            Thread {
                start.wait()
                handoff.context = nil   // the context's last reference: it is torn down here
                done.signal()
            }.start()
            Thread {
                start.wait()
                handoff.objects = []    // while its objects deallocate here
                done.signal()
            }.start()
            start.signal()
            start.signal()
            done.wait()
            done.wait()
            for object in kept {
                XCTAssertNil(object.managedObjectContext, "round \(round): an object outliving its context belongs to none")
            }
        }
        let count = try container.viewContext.count(for: FetchRequest<Department>())
        XCTAssertEqual(count, rowCount, "the store is untouched")
    }
}
