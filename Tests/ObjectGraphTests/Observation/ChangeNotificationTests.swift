import Foundation
import ObjectGraph
import Synchronization
import XCTest

/// Observers of `.objectsDidChange` and `.didSave`, and merging a background save.
final class ChangeNotificationTests: StoreTestCase {
    func testObjectsDidChangeAnnouncesInsertsUpdatesWithKeysAndDeletes() throws {
        let container = try makeContainer(Models.company)
        let context = container.viewContext
        let ann = Employee(context: context)
        let bob = Employee(context: context)
        try context.save()

        var heard: [ContextChanges] = []
        let token = context.addObserver(for: .objectsDidChange) { heard.append($0) }
        let cy = Employee(context: context)
        ann.age = 5
        ann.lastName = "A"
        context.delete(bob)
        context.processPendingChanges()

        XCTAssertEqual(heard.count, 1)
        XCTAssertEqual(heard.first?.inserted, [cy.objectID])
        XCTAssertEqual(heard.first?.updated, [ann.objectID])
        XCTAssertEqual(heard.first?.changedKeys[ann.objectID], ["age", "lastName"])
        XCTAssertEqual(heard.first?.deleted, [bob.objectID])

        context.processPendingChanges()
        XCTAssertEqual(heard.count, 1, "nothing new: no second notification")

        context.removeObserver(token)
        ann.age = 6
        context.processPendingChanges()
        XCTAssertEqual(heard.count, 1, "a removed observer hears nothing")
    }

    func testEveryProcessPendingChangesAnnouncesFurtherEditsOfAnAlreadyChangedObject() throws {
        let container = try makeContainer(Models.company)
        let context = container.viewContext
        let ann = Employee(context: context)
        try context.save()
        var heard: [ContextChanges] = []
        context.addObserver(for: .objectsDidChange) { heard.append($0) }

        ann.age = 1
        context.processPendingChanges()
        ann.firstName = "Ann"
        context.processPendingChanges()

        XCTAssertEqual(heard.count, 2, "the second edit of an already updated object is announced too")
        XCTAssertEqual(heard.last?.updated, [ann.objectID])
        XCTAssertEqual(heard.last?.changedKeys[ann.objectID]?.contains("firstName"), true)
    }

    func testDidSaveAnnouncesPermanentIDsAndChangedKeys() throws {
        let container = try makeContainer(Models.company)
        let context = container.viewContext
        let ann = Employee(context: context)
        let bob = Employee(context: context)
        try context.save()

        var saves: [ContextChanges] = []
        context.addObserver(for: .didSave) { saves.append($0) }
        let cy = Employee(context: context)
        ann.salary = 10
        context.delete(bob)
        try context.save()

        XCTAssertEqual(saves.count, 1)
        let changes = try XCTUnwrap(saves.first)
        XCTAssertEqual(changes.inserted, [cy.objectID])
        XCTAssertFalse(changes.inserted.contains { $0.isTemporaryID }, "inserted objects are announced with permanent IDs")
        XCTAssertEqual(changes.updated, [ann.objectID])
        XCTAssertEqual(changes.changedKeys[ann.objectID], ["salary"])
        XCTAssertEqual(changes.deleted, [bob.objectID])

        try context.save()
        XCTAssertEqual(saves.count, 1, "a save with nothing to write announces nothing")
    }

    func testAMergedSaveDoesNotOverwriteUnsavedChangesOfTheViewContext() throws {
        let container = try makeContainer(Models.company)
        let view = container.viewContext
        let ann = Employee(context: view)
        try view.save()
        let id = ann.objectID
        ann.firstName = "Mine"

        let background = container.newBackgroundContext()
        try background.performAndWait {
            let theirs = try XCTUnwrap(try background.existingObject(with: id) as? Employee)
            theirs.firstName = "Theirs"
            try background.save()
        }
        XCTAssertEqual(ann.firstName, "Mine", "the unsaved change is not overwritten by the merge")
        XCTAssertTrue(view.hasChanges)
        XCTAssertEqual(view.updatedObjects, [ann])
        view.mergePolicy = .mergeByPropertyObjectTrump
        try view.save()
        let reader = try makeContainer(Models.company)
        XCTAssertEqual(try fetchAll(Employee.self, in: reader.viewContext).map(\.firstName), ["Mine"])
    }

    func testPerformBackgroundTaskRunsOnANewContextAndMerges() throws {
        let container = try makeContainer(Models.company)
        let view = container.viewContext
        XCTAssertEqual(try view.count(for: FetchRequest<Employee>()), 0)
        let id = try container.performBackgroundTask { context -> ObjectID in
            let employee = Employee(context: context)
            employee.firstName = "From background"
            try context.save()
            return employee.objectID
        }
        XCTAssertEqual(try view.count(for: FetchRequest<Employee>()), 1)
        XCTAssertEqual(try object(Employee.self, id, in: view).firstName, "From background")
    }

    func testASaveOnAnotherThreadIsMergedAtTheViewContextsNextAccess() throws {
        let container = try makeContainer(Models.company)
        let view = container.viewContext
        let ann = Employee(context: view)
        ann.firstName = "Ann"
        try view.save()
        let id = ann.objectID
        let background = container.newBackgroundContext()
        let failure = Mutex<String?>(nil)
        let group = DispatchGroup()
        group.enter()
        Thread.detachNewThread {
            do {
                try background.performAndWait {
                    guard let theirs = try background.existingObject(with: id) as? Employee else { return }
                    theirs.firstName = "Changed on another thread"
                    let extra = Employee(context: background)
                    extra.firstName = "Extra"
                    try background.save()
                }
            } catch {
                failure.withLock { $0 = "\(error)" }
            }
            group.leave()
        }
        XCTAssertEqual(group.wait(timeout: .now() + 30), .success)
        XCTAssertNil(failure.withLock { $0 })
        XCTAssertEqual(ann.firstName, "Changed on another thread")
        XCTAssertEqual(try view.count(for: FetchRequest<Employee>()), 2)
    }
}
