import Foundation
import ObjectGraph
import XCTest

final class LifecycleHookTests: StoreTestCase {
    func testAwakeFromInsertRunsOnceWithDefaultsSetAndItsChangesAreSaved() throws {
        let container = try makeContainer(Models.tickets)
        let ticket = Ticket(context: container.viewContext)
        XCTAssertEqual(ticket.events, ["awakeFromInsert"])
        XCTAssertEqual(ticket.createdBy, "awakeFromInsert")
        ticket.title = "First"
        try container.viewContext.save()
        let reopened = try makeContainer(Models.tickets)
        let fetched = try XCTUnwrap(fetchAll(Ticket.self, in: reopened.viewContext).first)
        XCTAssertEqual(fetched.createdBy, "awakeFromInsert")
        XCTAssertEqual(fetched.events, ["awakeFromFetch"], "a fetched object is awoken from fetch, not from insert")
    }

    func testAFaultIsAwokenFromFetchWhenItFires() throws {
        do {
            let container = try makeContainer(Models.tickets)
            Ticket(context: container.viewContext).title = "T"
            try container.viewContext.save()
        }
        let container = try makeContainer(Models.tickets)
        let id = try XCTUnwrap(container.viewContext.fetchObjectIDs(FetchRequest<Ticket>()).first)
        let ticket = try XCTUnwrap(container.viewContext.object(with: id) as? Ticket)
        XCTAssertEqual(ticket.events, [])
        XCTAssertEqual(ticket.title, "T")
        XCTAssertEqual(ticket.events, ["awakeFromFetch"])
    }

    func testSaveCallsWillSaveThenValidationThenDidSave() throws {
        let container = try makeContainer(Models.tickets)
        let context = container.viewContext
        let ticket = Ticket(context: context)
        ticket.title = "T"
        ticket.events = []
        try context.save()
        XCTAssertEqual(ticket.events, ["willSave", "validateForInsert", "didSave"])

        ticket.events = []
        ticket.priority = 2
        try context.save()
        XCTAssertEqual(ticket.events, ["willSave", "validateForUpdate", "didSave"])

        ticket.events = []
        context.delete(ticket)
        XCTAssertEqual(ticket.events, ["prepareForDeletion"])
        try context.save()
        XCTAssertEqual(ticket.events, ["prepareForDeletion", "willSave", "validateForDelete", "didSave"])
    }

    func testValidationReportsEveryProblemTogetherAndLeavesEverythingAsItWas() throws {
        let container = try makeContainer(Models.tickets)
        let context = container.viewContext
        let locked = Ticket(context: context)
        locked.title = "Locked"
        locked.locked = true
        let edited = Ticket(context: context)
        edited.title = "Edited"
        try context.save()
        let before = try SQLiteFile.dump(storeURL)

        let untitled = Ticket(context: context)          // insert problem
        edited.priority = -1                             // update problem
        context.delete(locked)                           // delete problem
        XCTAssertThrowsError(try context.save()) { error in
            guard let validation = error as? ValidationError else { return XCTFail("expected ValidationError, got \(error)") }
            XCTAssertEqual(validation.problems.count, 3, "\(validation)")
            XCTAssertEqual(Set(validation.problems.compactMap(\.key)), ["title", "priority", "locked"])
            XCTAssertEqual(Set(validation.problems.compactMap(\.objectID)), [untitled.objectID, edited.objectID, locked.objectID])
            XCTAssertTrue(validation.problems.allSatisfy { $0.entity == "Ticket" })
        }
        XCTAssertEqual(try SQLiteFile.dump(storeURL), before, "the store is unchanged")
        XCTAssertEqual(context.insertedObjects, [untitled], "pending changes are kept")
        XCTAssertEqual(context.updatedObjects, [edited])
        XCTAssertEqual(context.deletedObjects, [locked])
        XCTAssertTrue(untitled.objectID.isTemporaryID)
        XCTAssertEqual(edited.priority, -1)

        // Fix every problem and retry.
        untitled.title = "Now titled"
        edited.priority = 1
        locked.locked = false
        try context.save()
        let file = try SQLiteFile(storeURL)
        XCTAssertEqual(try file.rows("SELECT ZTITLE, ZPRIORITY FROM ZTICKET ORDER BY ZTITLE"),
                       [[.text("Edited"), .integer(1)], [.text("Now titled"), .integer(0)]])
        XCTAssertFalse(untitled.objectID.isTemporaryID)
    }

    func testAnInsertAndAnUpdateThatFailValidationLeaveEverythingAsItWasAndSaveOnceFixed() throws {
        let container = try makeContainer(Models.tickets)
        let context = container.viewContext
        let edited = Ticket(context: context)
        edited.title = "Edited"
        try context.save()
        let before = try SQLiteFile.dump(storeURL)

        let first = Ticket(context: context)
        let second = Ticket(context: context)
        edited.priority = -5
        XCTAssertThrowsError(try context.save()) { error in
            let problems = (error as? ValidationError)?.problems ?? []
            XCTAssertEqual(problems.count, 3, "two untitled inserts and one bad update, reported together: \(error)")
            XCTAssertEqual(Set(problems.compactMap(\.objectID)), [first.objectID, second.objectID, edited.objectID])
        }
        XCTAssertEqual(try SQLiteFile.dump(storeURL), before)
        XCTAssertEqual(context.insertedObjects, [first, second])
        XCTAssertEqual(context.updatedObjects, [edited])
        XCTAssertEqual(edited.changedValues().keys.sorted(), ["priority"])
        XCTAssertTrue(first.objectID.isTemporaryID)

        first.title = "One"
        second.title = "Two"
        edited.priority = 5
        try context.save()
        XCTAssertFalse(context.hasChanges)
        XCTAssertEqual(try SQLiteFile(storeURL).rows("SELECT ZTITLE, ZPRIORITY FROM ZTICKET ORDER BY ZTITLE"),
                       [[.text("Edited"), .integer(5)], [.text("One"), .integer(0)], [.text("Two"), .integer(0)]])
    }
}
