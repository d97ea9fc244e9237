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

    func testABackgroundSaveIsMergedIntoTheViewContext() throws {
        let container = try makeContainer(Models.company)
        let view = container.viewContext
        let ann = Employee(context: view)
        ann.firstName = "Ann"
        let bob = Employee(context: view)
        bob.firstName = "Bob"
        try view.save()
        var merged: [ContextChanges] = []
        view.addObserver(for: .objectsDidChange) { merged.append($0) }

        let annID = ann.objectID
        let bobID = bob.objectID
        let background = container.newBackgroundContext()
        let newID = try background.performAndWait { () throws -> ObjectID in
            let theirAnn = try XCTUnwrap(try background.existingObject(with: annID) as? Employee)
            theirAnn.firstName = "Annette"
            theirAnn.age = 44
            background.delete(try background.existingObject(with: bobID))
            let cy = Employee(context: background)
            cy.firstName = "Cy"
            try background.save()
            return cy.objectID
        }

        XCTAssertEqual(ann.firstName, "Annette", "the registered object shows the saved values")
        XCTAssertEqual(ann.age, 44)
        XCTAssertFalse(ann.hasChanges, "merged values are not unsaved changes")
        XCTAssertTrue(bob.isDeleted, "the merged delete makes the object deleted")
        XCTAssertNil(view.registeredObject(for: bobID))
        XCTAssertFalse(view.hasChanges)
        let names = try fetchAll(Employee.self, in: view, sortedBy: "firstName").map(\.firstName)
        XCTAssertEqual(names, ["Annette", "Cy"])
        XCTAssertEqual(try object(Employee.self, newID, in: view).firstName, "Cy")

        let updated = merged.reduce(into: Set<ObjectID>()) { $0.formUnion($1.updated) }
        let deleted = merged.reduce(into: Set<ObjectID>()) { $0.formUnion($1.deleted) }
        XCTAssertTrue(updated.contains(annID), "the merge is announced to objectsDidChange observers")
        XCTAssertTrue(deleted.contains(bobID))
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

    func testABackgroundInsertIntoAToManyIsSeenThroughTheViewContextsLoadedRelationship() throws {
        let container = try makeContainer(Models.company)
        let view = container.viewContext
        let sales = Department(context: view)
        let john = Employee(context: view)
        john.firstName = "John"
        john.department = sales
        try view.save()
        XCTAssertEqual(sales.employees.map(\.firstName), ["John"])

        let salesID = sales.objectID
        let johnID = john.objectID
        let background = container.newBackgroundContext()
        try background.performAndWait {
            let theirSales = try XCTUnwrap(try background.existingObject(with: salesID) as? Department)
            let jane = Employee(context: background)
            jane.firstName = "Jane"
            jane.department = theirSales
            let theirJohn = try XCTUnwrap(try background.existingObject(with: johnID) as? Employee)
            background.delete(theirJohn)
            try background.save()
        }
        XCTAssertEqual(sales.employees.map(\.firstName), ["Jane"], "the merged department shows the new member and not the deleted one")
        XCTAssertTrue(john.isDeleted)
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
