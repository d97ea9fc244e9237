import Foundation
import ObjectGraph
import XCTest

/// A write never adopts another context's newer saved values: only reads refresh. Otherwise a
/// value computed from an old read would be written over the other save without a conflict
/// (a lost update, found by LoadTests).
final class LostUpdateTests: StoreTestCase {
    func testAWriteComputedFromAnOldReadMeetsTheOtherSaveAsAConflictInsteadOfOverwritingIt() throws {
        let container = try makeContainer(Models.company)
        let view = container.viewContext
        let ann = Employee(context: view)
        ann.firstName = "Ann"
        ann.salary = 100
        try view.save()
        let id = ann.objectID

        let seen = ann.salary                               // the view context reads 100
        let background = container.newBackgroundContext()
        try background.performAndWait {
            let theirs = try background.existingObject(with: id) as! Employee
            theirs.salary += 50                             // 150, saved: posted to the view context
            try background.save()
        }
        ann.salary = seen + 10                              // a write from the old read: 110

        XCTAssertThrowsError(try view.save(), "the write must meet the other save's version") { error in
            XCTAssertTrue(error is MergeConflictError, "expected MergeConflictError, got \(error)")
        }
        XCTAssertEqual(ann.salary, 110, "the pending change is kept")
        let stored = try background.performAndWait { () -> Double in
            background.reset()
            return (try background.existingObject(with: id) as! Employee).salary
        }
        XCTAssertEqual(stored, 150, "the other context's saved raise is still in the store")

        // Fix and retry: read again, write from the fresh value.
        view.refresh(ann, mergeChanges: false)
        ann.salary += 10
        try view.save()
        XCTAssertEqual(ann.salary, 160)
    }

    func testAReadStillShowsAnotherContextsSave() throws {
        let container = try makeContainer(Models.company)
        let view = container.viewContext
        let ann = Employee(context: view)
        ann.salary = 100
        try view.save()
        let id = ann.objectID
        let background = container.newBackgroundContext()
        try background.performAndWait {
            (try background.existingObject(with: id) as! Employee).salary = 150
            try background.save()
        }
        XCTAssertEqual(ann.salary, 150, "a read merges the other context's save")
        ann.salary += 10
        try view.save()
        XCTAssertEqual(ann.salary, 160)
    }
}
