import Foundation
import ObjectGraph
import XCTest

/// One object's changes and deletion, as callbacks and as a stream.
final class ObjectObservationTests: StoreTestCase {
    func testAnObjectHearsItsOwnAndMergedChangesWithKeysAndThenItsDeletion() throws {
        let container = try makeContainer(Models.company)
        let context = container.viewContext
        let john = Employee(context: context)
        john.firstName = "John"
        let bystander = Employee(context: context)
        bystander.firstName = "Ann"
        try context.save()
        let id = john.objectID
        let observation = john.observe()
        var heard: [ObjectChange] = []
        observation.onChange { heard.append($0) }

        john.age = 42                                          // in its own context
        context.processPendingChanges()
        bystander.age = 50                                     // another object: not heard
        try context.save()
        try container.performBackgroundTask { other in         // committed elsewhere, merged
            let same = try other.existingObject(with: id) as! Employee
            same.lastName = "Smith"
            same.salary = 10
            try other.save()
        }
        context.processPendingChanges()
        try container.performBackgroundTask { other in
            other.delete(try other.existingObject(with: id))
            try other.save()
        }
        context.processPendingChanges()
        XCTAssertEqual(heard, [.updated(keys: ["age"]), .updated(keys: ["lastName", "salary"]), .deleted])
        XCTAssertEqual(context.observerCount, 0, "a deletion ends the observation")
    }

    @MainActor
    func testTheStreamOfAnIdleMainContextsObjectDeliversABackgroundThreadsCommitAndEndsAtDeletion() async throws {
        let container = try makeContainer(Models.company)
        let context = container.viewContext
        let john = Employee(context: context)
        try context.save()
        let id = john.objectID
        let observation = john.observe()
        var changes = observation.changes.makeAsyncIterator()
        var received: [ObjectChange] = []
        for deletes in [false, true] {
            let background = container.newBackgroundContext()
            onAnotherThread {
                try! background.performAndWait {
                    let same = try background.existingObject(with: id) as! Employee
                    if deletes { background.delete(same) } else { same.age = 1 }
                    try background.save()
                }
            }
            // Nothing touches the context: the main queue merges while this task waits.
            if let change = await changes.next() { received.append(change) }
        }
        XCTAssertEqual(received, [.updated(keys: ["age"]), .deleted])
        let end = await changes.next()
        XCTAssertNil(end, "the stream ends after the deletion")
        XCTAssertTrue(john.isDeleted)
    }

    func testCancellingOrReleasingAnObservationLetsGoOfIt() throws {
        let container = try makeContainer(Models.company)
        let context = container.viewContext
        let john = Employee(context: context)
        try context.save()
        var observation: ObjectObservation? = john.observe()
        weak let released = observation
        XCTAssertEqual(context.observerCount, 1)
        observation = nil
        XCTAssertNil(released)
        XCTAssertEqual(context.observerCount, 0)
        let cancelled = john.observe()
        var heard = 0
        cancelled.onChange { _ in heard += 1 }
        cancelled.cancel()
        john.age = 3
        try context.save()
        XCTAssertEqual(heard, 0)
        XCTAssertEqual(context.observerCount, 0)
    }
}
