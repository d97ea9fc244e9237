import Foundation
import ObjectGraph
import Synchronization
import XCTest

/// Commits pushed to observers: the coordinator's change stream and callbacks, and an idle
/// main-queue context merging another thread's commit without being touched.
final class CommitPushTests: StoreTestCase {
    func testAnIdleMainContextsObserverHearsABackgroundThreadsCommitWithItsIDsAndKeys() throws {
        let container = try makeContainer(Models.company)
        let context = container.viewContext
        XCTAssertEqual(context.concurrencyType, .mainQueue)
        let john = Employee(context: context)
        john.firstName = "John"
        try context.save()
        let johnID = john.objectID

        let heard = expectation(description: "the view context's observer hears the commit")
        nonisolated(unsafe) var merged: ContextChanges?
        nonisolated(unsafe) var onMainThread = false
        context.addObserver(for: .objectsDidChange) { changes in
            merged = changes
            onMainThread = Thread.isMainThread
            heard.fulfill()
        }
        let insertedID = Mutex<ObjectID?>(nil)
        let background = container.newBackgroundContext()
        onAnotherThread {
            try! background.performAndWait {
                let same = try background.existingObject(with: johnID) as! Employee
                same.age = 43
                same.lastName = "Smith"
                let dee = Employee(context: background)
                dee.firstName = "Dee"
                try background.save()
                insertedID.withLock { $0 = dee.objectID }
            }
        }
        // The main context is not touched: only the main queue runs while the test waits.
        wait(for: [heard], timeout: 120)
        let changes = try XCTUnwrap(merged)
        XCTAssertTrue(onMainThread, "the merge runs on the main queue")
        XCTAssertEqual(changes.updated, [johnID])
        XCTAssertEqual(changes.changedKeys[johnID], ["age", "lastName"])
        XCTAssertEqual(changes.inserted, [try XCTUnwrap(insertedID.withLock { $0 })])
        XCTAssertEqual(john.age, 43, "the merge already happened, on the main queue")
    }

    func testTheCommitCallbackHearsEverySaveAndBatchDeleteWithTheirIDs() throws {
        let container = try makeContainer(Models.company)
        let context = container.viewContext
        let heard = Mutex<[CommittedChanges]>([])
        let observation = container.addChangeObserver { change in heard.withLock { $0.append(change) } }
        let sales = Department(context: context)
        sales.name = "Sales"
        try context.save()
        sales.budget = 10
        try context.save()
        let background = container.newBackgroundContext()
        try background.performAndWait {
            let request = BatchDeleteRequest(entityName: "Department", predicate: try FetchPredicate("name == %@", "Sales"))
            try background.execute(request)
        }
        let changes = heard.withLock { $0 }
        XCTAssertEqual(changes.count, 3)
        XCTAssertEqual(changes[0].inserted, [sales.objectID])
        XCTAssertEqual(changes[1].updated, [sales.objectID])
        XCTAssertEqual(changes[1].changedKeys[sales.objectID], ["budget"])
        XCTAssertEqual(changes[2].deleted, [sales.objectID])
        XCTAssertEqual(container.persistentStoreCoordinator.changeObserverCount, 1)
        observation.cancel()
        XCTAssertEqual(container.persistentStoreCoordinator.changeObserverCount, 0)
        sales.budget = 20   // deleted by the batch delete: nothing more is heard
        try? context.save()
        XCTAssertEqual(heard.withLock { $0.count }, 3, "a cancelled observation hears nothing")
    }

    func testReleasingACommitObservationRemovesIt() throws {
        let container = try makeContainer(Models.company)
        var observation: ChangeObservation? = container.addChangeObserver { _ in }
        XCTAssertEqual(container.persistentStoreCoordinator.changeObserverCount, 1)
        weak let released = observation
        observation = nil
        XCTAssertNil(released)
        XCTAssertEqual(container.persistentStoreCoordinator.changeObserverCount, 0)
    }

    @MainActor
    func testTheChangeStreamDeliversCommitsFromOtherThreadsInOrderAndEndsWithItsTask() async throws {
        let container = try makeContainer(Models.company)
        let coordinator = container.persistentStoreCoordinator
        let consumer: Task<[CommittedChanges], Never>
        do {
            let stream = container.changes   // observing from here on; released with the task
            consumer = Task {
                var received: [CommittedChanges] = []
                for await change in stream {
                    received.append(change)
                    if received.count == 3 { break }
                }
                return received
            }
        }
        XCTAssertEqual(coordinator.changeObserverCount, 1)
        var names: [String] = []
        for index in 0..<3 {
            let background = container.newBackgroundContext()
            background.name = "writer\(index)"
            names.append(background.name)
            onAnotherThread {
                try! background.performAndWait {
                    let e = Employee(context: background)
                    e.firstName = "E\(index)"
                    try background.save()
                }
            }
        }
        let received = await consumer.value
        XCTAssertEqual(received.map(\.contextName), names)
        XCTAssertEqual(received.map(\.inserted.count), [1, 1, 1])

        // A stream whose task is cancelled lets its observer go.
        let idle = Task { for await _ in container.changes {} }
        for _ in 0..<200 where coordinator.changeObserverCount < 1 { try await Task.sleep(nanoseconds: 5_000_000) }
        idle.cancel()
        _ = await idle.value
        XCTAssertEqual(coordinator.changeObserverCount, 0, "cancelled streams leave no observer behind")
    }
}
