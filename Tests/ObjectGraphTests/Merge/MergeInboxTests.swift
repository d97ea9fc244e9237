import Foundation
import ObjectGraph
import Synchronization
import XCTest

/// An idle context's waiting merges are bounded; past the bound it refreshes instead.
final class MergeInboxTests: StoreTestCase {
    func testAnOverflowingInboxRefreshesRegisteredObjectsInsteadOfHoardingRows() throws {
        let container = try makeContainer(Models.company)
        let view = container.viewContext
        view.mergeInboxCapacity = 5
        var people: [Employee] = []
        for index in 0..<3 {
            let person = Employee(context: view)
            person.firstName = "P\(index)"
            people.append(person)
        }
        try view.save()
        let ids = people.map(\.objectID)
        let background = container.newBackgroundContext()
        try background.performAndWait {
            for round in 0..<4 {
                for id in ids { (try background.existingObject(with: id) as! Employee).age = round + 1 }
                try background.save()
            }
            let doomed = try background.existingObject(with: ids[2])
            background.delete(doomed)
            try background.save()
        }
        XCTAssertEqual(people[0].age, 4, "the refreshed object reloads the last saved value")
        XCTAssertEqual(people[1].age, 4)
        _ = people[2].firstName
        XCTAssertTrue(people[2].isDeleted, "a row deleted meanwhile shows as deleted once touched")
        XCTAssertEqual(try view.count(for: FetchRequest<Employee>()), 2)
    }
}

/// A fault whose row another context deletes stays readable (regression: it was left with an
/// empty value buffer, and touching it crashed with "Index out of range").
final class MergedDeleteOfAFaultTests: StoreTestCase {
    func testAFaultDeletedElsewhereIsDeletedAndReadableAfterTheMerge() throws {
        let container = try makeContainer(Models.company)
        let view = container.viewContext
        let ann = Employee(context: view)
        ann.firstName = "Ann"
        try view.save()
        let id = ann.objectID
        view.refresh(ann, mergeChanges: false)
        let fault = view.object(with: id) as! Employee
        XCTAssertTrue(fault.isFault)
        let background = container.newBackgroundContext()
        try background.performAndWait {
            background.delete(try background.existingObject(with: id))
            try background.save()
        }
        fault.age = 3                     // the merge happens here; must not crash
        XCTAssertTrue(fault.isDeleted)
        XCTAssertEqual(fault.firstName, "", "a vanished object reads its default values")
        XCTAssertFalse(view.hasChanges, "an edit of a deleted, unregistered object is not a change")
    }
}

/// Saves broadcast while other threads create and drop contexts (regression: a broadcast could
/// hold the last reference to a context its owner had just released; the context's `deinit`
/// then ran on the broadcasting thread inside the coordinator's lock and waited for that lock
/// forever). Broadcasts now post into inboxes the coordinator holds, never into contexts.
final class BroadcastWhileContextsComeAndGoTests: StoreTestCase {
    func testSavesFinishWhileOtherThreadsDropTheirContexts() throws {
        let container = try makeContainer(Models.company)
        let seed = Employee(context: container.viewContext)
        seed.firstName = "Seed"
        try container.viewContext.save()
        let id = seed.objectID
        let coordinator = container.persistentStoreCoordinator
        let failure = Mutex<String?>(nil)
        let group = DispatchGroup()
        for _ in 0..<2 {
            group.enter()
            Thread.detachNewThread {
                for _ in 0..<400 {
                    let context = ManagedObjectContext(coordinator: coordinator)
                    _ = context.registeredObject(for: id)
                }
                group.leave()
            }
        }
        group.enter()
        Thread.detachNewThread {
            let writer = ManagedObjectContext(coordinator: coordinator)
            do {
                let employee = try writer.existingObject(with: id) as! Employee
                for round in 0..<200 {
                    employee.age = round
                    try writer.save()
                }
            } catch {
                failure.withLock { $0 = "\(error)" }
            }
            group.leave()
        }
        XCTAssertEqual(group.wait(timeout: .now() + 60), .success, "every thread finished (no deadlock)")
        XCTAssertNil(failure.withLock { $0 })
        XCTAssertEqual((try container.viewContext.existingObject(with: id) as! Employee).age, 199)
    }
}
