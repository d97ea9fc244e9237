import Foundation
import ObjectGraph
import XCTest

/// rollback() clears the undo stack, as in Core Data (regression: an undo after a rollback
/// re-applied the discarded changes).
final class UndoAfterRollbackTests: StoreTestCase {
    func testUndoAfterRollbackReappliesNothing() throws {
        let container = try makeContainer(Models.company)
        let context = container.viewContext
        context.undoStack = UndoStack()
        let ann = Employee(context: context)
        ann.firstName = "Ann"
        ann.age = 1
        try context.save()

        ann.age = 5
        context.processPendingChanges()           // closes an undo group
        ann.age = 9
        let temp = Employee(context: context)
        temp.firstName = "Temp"
        context.delete(temp)
        context.rollback()
        XCTAssertEqual(ann.age, 1)
        XCTAssertFalse(context.undoStack?.canUndo ?? true, "rollback clears the undo stack")

        context.undo()
        XCTAssertEqual(ann.age, 1, "the discarded edits stay discarded")
        XCTAssertFalse(context.hasChanges)
        XCTAssertEqual(context.insertedObjects, [])
        XCTAssertNil(temp.managedObjectContext, "the discarded insert stays discarded")
        try context.save()
        let stored = try SQLiteFile(storeURL).rows("SELECT ZFIRSTNAME, ZAGE FROM ZEMPLOYEE")
        XCTAssertEqual(stored, [[.text("Ann"), .integer(1)]])
    }
}
