import Foundation
import ManagedRecord
import XCTest

/// `inCurrentThreadContext()` on objects that another thread keeps changing and committing
/// reads only what that thread published for it (under ThreadSanitizer: no race). It used
/// to read the object's state, values and snapshot (`hasChanges`) unsynchronized, against
/// the other thread's `markChanged` and its save's `apply`.
final class CrossThreadMoveTests: RecordTestCase {
    /// The writer's objects, handed to the mover on purpose: the mover only calls
    /// `inCurrentThreadContext()` on them, which is what this test checks is safe.
    final class Handoff: @unchecked Sendable {  // written once before `ready` is signalled, then only read
        var objects: [Person] = []
    }

    func testMovingObjectsThatAnotherThreadKeepsChangingAndCommittingIsSafe() throws {
        let rounds = 200, count = 50
        let handoff = Handoff()
        let ready = DispatchSemaphore(value: 0), writerDone = DispatchSemaphore(value: 0), moverDone = DispatchSemaphore(value: 0)
        // The writer's thread ends (and its context is released) while the objects it handed
        // over are still held and then let go here, on another thread.
        let failures = Locked<[String]>([])
        let outcome = Locked((moved: 0, refused: 0, finalNames: [String]()))

        let writer = Thread {
            do {
                handoff.objects = (0..<count).map { index in
                    let person = Person.newEntity()
                    person.firstName = "round -1"
                    person.age = index
                    return person
                }
                try Person.commit()
                ready.signal()
                for round in 0..<rounds {
                    for person in handoff.objects { person.firstName = "round \(round)" }
                    try Person.commit()
                }
            } catch {
                failures.set(failures.value + ["writer: \(error)"])
                ready.signal()
            }
            writerDone.signal()
        }
        let mover = Thread {
            ready.wait()
            var moved = 0, refused = 0
            func moveAll() -> [Person] {
                var result: [Person] = []
                for person in handoff.objects {
                    do {
                        let mine = try person.inCurrentThreadContext()
                        if mine.managedObjectContext !== Person.contextForCurrentThread {
                            failures.set(failures.value + ["moved into another context"])
                        }
                        if mine === person { failures.set(failures.value + ["the writer's object came back unmoved"]) }
                        _ = mine.firstName   // read in this thread's context
                        result.append(mine)
                        moved += 1
                    } catch let error as RecordError {
                        XCTAssertTrue(error.message.contains("Commit first"), error.message)
                        refused += 1
                    } catch {
                        failures.set(failures.value + ["mover: \(type(of: error)) \(error)"])
                    }
                }
                return result
            }
            while writerDone.wait(timeout: .now()) == .timedOut { _ = moveAll() }
            // The writer has finished: every object is committed and clean, so all move, with the last values.
            let final = moveAll()
            outcome.set((moved, refused, final.map(\.firstName)))
            moverDone.signal()
        }
        writer.start()
        mover.start()
        moverDone.wait()
        handoff.objects = []

        XCTAssertEqual(failures.value, [])
        XCTAssertEqual(outcome.value.finalNames, Array(repeating: "round \(rounds - 1)", count: count))
        XCTAssertGreaterThan(outcome.value.moved, count)
        print("CrossThreadMoveTests: \(outcome.value.moved) moved, \(outcome.value.refused) refused (uncommitted changes at that moment)")
    }
}
