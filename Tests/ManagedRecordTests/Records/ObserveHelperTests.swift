import Foundation
import ManagedRecord
import Synchronization
import XCTest

/// `Person.observe(where:sortedBy:)` and `Person.changes`: the class-level observation one-liners.
final class ObserveHelperTests: RecordTestCase {
    func testObservedResultsOnTheMainContextFollowACommitOnAnotherThreadWithoutBeingTouched() throws {
        let ann = Person.newEntity()
        ann.lastName = "Adams"; ann.age = 50
        let young = Person.newEntity()
        young.lastName = "Young"; young.age = 20
        try Person.commit()
        let seniors = try Person.observe(where: "age > %@", 40, sortedBy: [SortKey("lastName")])
        XCTAssertEqual(seniors.objects.map(\.lastName), ["Adams"])
        XCTAssertTrue(seniors.context === Person.contextForCurrentThread)

        let heard = expectation(description: "the results change")
        nonisolated(unsafe) var diff: FetchedResultsDiff?
        seniors.onChange { change in
            if case .changes(let changes) = change { diff = changes }
            heard.fulfill()
        }
        let commits = Mutex<[CommittedChanges]>([])
        let observation = Person.contextManager.persistentStoreCoordinator.addChangeObserver { change in commits.withLock { $0.append(change) } }
        let youngID = young.objectID
        onNewThread {
            let same = try! (Person.contextForCurrentThread.existingObject(with: youngID) as! Person)
            same.age = 60                                 // now a senior, sorted after Adams
            let bea = Person.newEntity()
            bea.lastName = "Baker"; bea.age = 45
            try! Person.commit()
        }
        wait(for: [heard], timeout: 120)
        XCTAssertEqual(seniors.objects.map(\.lastName), ["Adams", "Baker", "Young"])
        XCTAssertEqual(diff?.insertedItems, [ResultPosition(section: 0, item: 1), ResultPosition(section: 0, item: 2)])
        XCTAssertEqual(commits.withLock { $0.count }, 1)
        XCTAssertEqual(commits.withLock { $0.first?.changedKeys[youngID] }, ["age"])
        observation.cancel()
    }

    func testObservingWithAMalformedFormatThrowsAndObservesNothing() {
        XCTAssertThrowsError(try Person.observe(where: "age >> %@", 3)) { error in
            XCTAssertTrue(error is FetchPredicateError, "\(error)")
        }
        XCTAssertEqual(Person.contextForCurrentThread.observerCount, 0)
    }
}
