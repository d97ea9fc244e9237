import Foundation
import ManagedRecord
import XCTest

/// `ManagedRecord.setUp(..., options: [.persistentHistory])`: commits of the class-level API
/// record Core Data's persistent history, with the calling context's author.
final class HistorySetUpTests: RecordTestCase {
    func testCommitsRecordHistoryWithTheContextsAuthor() throws {
        let url = folder.appendingPathComponent("Gadgets.sqlite")
        let manager = try ManagedRecord.setUp(model: "Gadgets", entities: [Gadget.self], storeURL: url, options: [.persistentHistory])
        XCTAssertTrue(manager.persistentStoreCoordinator.recordsHistory)
        manager.contextForCurrentThread.transactionAuthor = "script"
        let gadget = Gadget.newEntity()
        gadget.label = "lamp"
        try Gadget.commit()
        gadget.label = "desk lamp"
        try Gadget.commit()
        let history = try manager.persistentStoreCoordinator.history(after: nil)
        XCTAssertEqual(history.map(\.author), ["script", "script"])
        XCTAssertEqual(history.map { $0.changes.map(\.changeType) }, [[.insert], [.update]])
        XCTAssertEqual(history.last?.changes.first?.updatedProperties, ["label"])
        XCTAssertEqual(history.last?.changes.first?.changedObjectID, gadget.objectID)
    }
}
