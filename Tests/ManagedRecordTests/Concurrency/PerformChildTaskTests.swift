import Foundation
import ManagedRecord
import XCTest

/// An unstructured `Task { }` started inside `perform` keeps its own context after the block
/// ends: the context used to be released with the block's, under the task's feet, so an
/// object it had fetched stopped as "belongs to no context any more" (and its release raced
/// with the task's reads).
final class PerformChildTaskTests: RecordTestCase {
    func testATaskStartedInPerformKeepsItsContextAfterTheBlockEnds() async throws {
        // Every helper call here is inside a perform block: an async test body runs on the
        // cooperative pool, where a thread's context would outlive the test (threading.md).
        let id = try await Person.perform { () -> ObjectID in
            let person = Person.newEntity()
            person.firstName = "Before"
            try Person.commit()
            return person.objectID
        }

        let blockEnded = AsyncStream<Void>.makeStream()
        let child = await Person.perform { () -> Task<String, any Error> in
            Task {
                let mine = try Person.contextForCurrentThread.existingObject(with: id) as! Person
                for await _ in blockEnded.stream { break }   // the block's contexts are closed now
                mine.firstName = "Changed after the block"
                try await Task.sleep(nanoseconds: 1_000_000)   // resumes on any thread
                mine.lastName = "Still mine"
                try Person.commit()
                return try Person.fetch(where: "lastName == %@", "Still mine").first?.firstName ?? "none"
            }
        }
        blockEnded.continuation.yield()
        blockEnded.continuation.finish()
        let seen = try await child.value
        XCTAssertEqual(seen, "Changed after the block", "the task's own context saw its commit")
        let saved = try await Person.perform { try Person.fetch(where: "lastName == %@", "Still mine").first?.firstName }
        XCTAssertEqual(saved, "Changed after the block", "the commit reached the store")
    }
}
