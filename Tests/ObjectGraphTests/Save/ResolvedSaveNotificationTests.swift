import Foundation
import ObjectGraph
import XCTest

/// A save whose merge policy takes values from the store changes objects in memory; the
/// context's `.objectsDidChange` observers (fetched results among them) must hear it.
final class ResolvedSaveNotificationTests: StoreTestCase {
    func testValuesAMergePolicyTakesFromTheStoreAreAnnouncedAsUpdates() throws {
        let container = try makeContainer(Models.company)
        let context = container.viewContext
        context.mergePolicy = .mergeByPropertyObjectTrump
        // The other save reaches this context only through its own save's conflict (a merge
        // would give it the other value first).
        context.automaticallyMergesChanges = false
        let john = Employee(context: context)
        john.lastName = "Smith"
        try context.save()
        let id = john.objectID
        john.salary = 61_000                                   // unsaved here
        try container.performBackgroundTask { other in
            (try other.existingObject(with: id) as! Employee).lastName = "Smyth"
            try other.save()
        }
        var heard: [ContextChanges] = []
        context.addObserver(for: .objectsDidChange) { heard.append($0) }
        try context.save()                                     // keeps our salary, takes their lastName
        XCTAssertEqual(john.lastName, "Smyth")
        let taken = heard.filter { $0.changedKeys[id]?.contains("lastName") == true }
        XCTAssertEqual(taken.count, 1, "the lastName taken from the store is announced: \(heard)")
    }

    func testFetchedResultsFollowAValueTakenFromTheStoreAtSave() throws {
        let container = try makeContainer(Models.company)
        let context = container.viewContext
        context.mergePolicy = .mergeByPropertyObjectTrump
        // The other save reaches this context only through its own save's conflict (a merge
        // would give it the other value first).
        context.automaticallyMergesChanges = false
        for name in ["a", "b", "c"] { Employee(context: context).lastName = name }
        try context.save()
        let results = try FetchedResults(FetchRequest<Employee>(sortDescriptors: [SortKey("lastName")]), context: context)
        let first = results.objects[0]
        let id = first.objectID
        first.age = 30                                         // unsaved here
        context.processPendingChanges()
        try container.performBackgroundTask { other in
            (try other.existingObject(with: id) as! Employee).lastName = "z"
            try other.save()
        }
        try context.save()
        XCTAssertEqual(first.lastName, "z")
        XCTAssertEqual(results.objects.map(\.lastName), ["b", "c", "z"], "the results moved the renamed object")
    }
}
