import Foundation
import ManagedRecord
import XCTest

final class ThreadContextTests: RecordTestCase {
    func testEachThreadGetsItsOwnContextAndTheMainThreadTheMainContext() throws {
        let main = Person.contextForCurrentThread
        XCTAssertTrue(main === Person.contextForCurrentThread)
        XCTAssertTrue(Person.contextManager.mainThreadContext === main)
        let sameOnThread = Locked(false)
        let differentFromMain = Locked(false)
        let mainID = ObjectIdentifier(main)
        onNewThread {
            let first = Person.contextForCurrentThread
            sameOnThread.set(first === Person.contextForCurrentThread)
            differentFromMain.set(ObjectIdentifier(first) != mainID)
        }
        XCTAssertTrue(sameOnThread.value)
        XCTAssertTrue(differentFromMain.value)
    }

    func testACommitOnABackgroundThreadIsMergedIntoTheMainContext() throws {
        let person = Person.newEntity()
        person.firstName = "Before"
        try Person.commit()
        let id = person.objectID
        onNewThread {
            let mine = Person.contextForCurrentThread.object(with: id) as! Person
            mine.firstName = "After"
            _ = Person.newEntity()
            try! Person.commit()
        }
        XCTAssertEqual(person.firstName, "After", "the registered object shows the new value")
        XCTAssertEqual(try Person.count(), 2, "the insert appears in fetches")
    }

    func testACommitOnTheMainThreadReachesBackgroundContexts() throws {
        let person = Person.newEntity()
        person.firstName = "One"
        try Person.commit()
        let id = person.objectID
        let ready = DispatchSemaphore(value: 0)
        let proceed = DispatchSemaphore(value: 0)
        let seen = Locked("")
        let thread = Thread {
            let mine = Person.contextForCurrentThread.object(with: id) as! Person
            _ = mine.firstName
            ready.signal()
            proceed.wait()
            seen.set(mine.firstName)
            ready.signal()
        }
        thread.start()
        ready.wait()
        person.firstName = "Two"
        try Person.commit()
        proceed.signal()
        ready.wait()
        XCTAssertEqual(seen.value, "Two")
    }

    func testADeleteCommittedElsewhereMakesTheRegisteredObjectDeleted() throws {
        let person = Person.newEntity()
        try Person.commit()
        let id = person.objectID
        onNewThread {
            Person.contextForCurrentThread.delete(Person.contextForCurrentThread.object(with: id))
            try! Person.commit()
        }
        XCTAssertEqual(try Person.count(), 0)
        XCTAssertTrue(person.isDeleted)
    }

    func testInCurrentThreadContextRefusesUnsavedObjectsAndMovesSavedOnes() throws {
        let unsaved = Person.newEntity()
        unsaved.firstName = "New"
        XCTAssertTrue(try unsaved.inCurrentThreadContext() === unsaved, "same thread: the object itself")
        nonisolated(unsafe) let shared = unsaved
        let messages = Locked<[String]>([])
        onNewThread {
            do { _ = try shared.inCurrentThreadContext() } catch { messages.set(messages.value + ["\(error)"]) }
        }
        XCTAssertEqual(messages.value.count, 1)
        XCTAssertTrue(messages.value.first?.contains("Commit first") == true, "\(messages.value)")

        try Person.commit()
        unsaved.firstName = "Changed"
        onNewThread {
            do { _ = try [shared].inCurrentThreadContext() } catch { messages.set(messages.value + ["\(error)"]) }
        }
        XCTAssertEqual(messages.value.count, 2, "an array with an unsaved object throws rather than dropping it")

        try Person.commit()
        let name = Locked("")
        let sameID = Locked(false)
        onNewThread {
            do {
                let here = try [shared].inCurrentThreadContext()
                name.set(here[0].firstName)
                sameID.set(here[0].objectID == shared.objectID && here[0] !== shared)
            } catch {
                messages.set(messages.value + ["\(error)"])
            }
        }
        XCTAssertEqual(name.value, "Changed")
        XCTAssertTrue(sameID.value)
        XCTAssertEqual(messages.value.count, 2)
    }

    func testThreadContextsAreReleasedWhenTheirThreadsEnd() throws {
        weak var leaked: ManagedObjectContext?
        let box = Locked<ManagedObjectContext?>(nil)
        onNewThread {
            _ = Person.newEntity()
            box.set(Person.contextForCurrentThread)
        }
        // Give the thread time to finish its exit (the destructor runs after the body).
        leaked = box.value
        box.set(nil)
        var waited = 0
        while leaked != nil && waited < 100 {
            Thread.sleep(forTimeInterval: 0.01)
            waited += 1
        }
        XCTAssertNil(leaked)
    }

    func testPerformBindsAContextToTheTask() async throws {
        let count = try await Person.perform { () -> Int in
            let person = Person.newEntity()
            person.firstName = "Async"
            try await Task.sleep(nanoseconds: 1_000_000)
            person.lastName = "Task"
            try Person.commit()
            return try Person.count()
        }
        XCTAssertEqual(count, 1)
    }
}

/// A value shared with another thread in a test.
final class Locked<Value>: @unchecked Sendable {  // every access holds the lock
    private let lock = NSLock()
    private var stored: Value
    init(_ value: Value) { stored = value }
    var value: Value { lock.withLock { stored } }
    func set(_ value: Value) { lock.withLock { stored = value } }
}
