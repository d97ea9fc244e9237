import Foundation
import ObjectGraph
import XCTest

final class ObjectIDTests: StoreTestCase {
    func testAnIDIsTemporaryUntilSaveThenPermanent() throws {
        let container = try makeContainer(Models.company)
        let context = container.viewContext
        let john = Employee(context: context)
        let temporary = john.objectID
        XCTAssertTrue(temporary.isTemporaryID)
        XCTAssertNil(temporary.primaryKey)
        XCTAssertEqual(temporary.entityName, "Employee")
        try context.save()
        let permanent = john.objectID
        XCTAssertFalse(permanent.isTemporaryID)
        XCTAssertNotEqual(permanent, temporary)
        let key = try XCTUnwrap(permanent.primaryKey)
        XCTAssertEqual(try SQLiteFile(storeURL).rows("SELECT Z_PK FROM ZEMPLOYEE"), [[.integer(key)]])
        XCTAssertTrue(context.object(with: permanent) === john, "the object is registered under its permanent ID")
        XCTAssertNil(context.registeredObject(for: temporary))
    }

    /// IDs hold their entity and store without reference counts; they stay usable after the
    /// container, its coordinator and its model are gone.
    func testAnIDOutlivesItsContainerAndModel() throws {
        var ids: [ObjectID] = []
        do {
            let container = try makeContainer(Models.company)
            let john = Employee(context: container.viewContext)
            john.firstName = "John"
            ids.append(john.objectID)
            try container.viewContext.save()
            ids.append(john.objectID)
        }
        XCTAssertEqual(ids[0].entityName, "Employee")
        XCTAssertTrue(ids[0].isTemporaryID)
        XCTAssertEqual(ids[1].entityName, "Employee")
        XCTAssertEqual(ids[1].primaryKey, 1)
        XCTAssertTrue(ids[1].uriRepresentation.absoluteString.hasSuffix("/Employee/p1"))
        XCTAssertNotEqual(ids[0], ids[1])
        XCTAssertEqual(Set(ids + ids).count, 2)

        let reopened = try makeContainer(Models.company)
        let found = try XCTUnwrap(reopened.persistentStoreCoordinator.managedObjectID(forURIRepresentation: ids[1].uriRepresentation))
        XCTAssertEqual((try reopened.viewContext.existingObject(with: found) as? Employee)?.firstName, "John")
    }

    func testRelationshipsToANewObjectAreSavedWithItsPermanentKey() throws {
        let container = try makeContainer(Models.company)
        let context = container.viewContext
        let sales = Department(context: context)
        try context.save()
        let john = Employee(context: context)
        john.department = sales
        try context.save()
        XCTAssertEqual(sales.employees.map(\.objectID), [john.objectID])
        XCTAssertFalse(sales.employees.first?.objectID.isTemporaryID ?? true)
        XCTAssertEqual(try SQLiteFile(storeURL).rows("SELECT ZDEPARTMENT FROM ZEMPLOYEE"), [[.integer(sales.objectID.primaryKey!)]])
    }

    func testIDsAreHashableAndEqualForTheSameRow() throws {
        let container = try makeContainer(Models.company)
        let context = container.viewContext
        let ann = Employee(context: context)
        let boss = Manager(context: context)
        try context.save()
        let ids: Set<ObjectID> = [ann.objectID, boss.objectID, ann.objectID]
        XCTAssertEqual(ids.count, 2)
        let fetchedIDs = try context.fetchObjectIDs(FetchRequest<Employee>())
        XCTAssertEqual(Set(fetchedIDs), ids)
        var names: [ObjectID: String] = [:]
        names[boss.objectID] = "boss"
        XCTAssertEqual(names[fetchedIDs.first { $0.entityName == "Manager" }!], "boss")
    }

    func testTheURIRepresentationRoundTripsThroughTheCoordinator() throws {
        let container = try makeContainer(Models.company)
        let context = container.viewContext
        let boss = Manager(context: context)
        boss.firstName = "Boss"
        XCTAssertEqual(boss.objectID.uriRepresentation.scheme, "x-coredata")
        try context.save()
        let uri = boss.objectID.uriRepresentation
        XCTAssertEqual(uri.scheme, "x-coredata")
        XCTAssertTrue(uri.absoluteString.contains(container.persistentStoreCoordinator.storeIdentifier), "\(uri)")
        XCTAssertTrue(uri.absoluteString.hasSuffix("/Manager/p\(boss.objectID.primaryKey!)"), "\(uri)")
        let back = try XCTUnwrap(container.persistentStoreCoordinator.managedObjectID(forURIRepresentation: uri))
        XCTAssertEqual(back, boss.objectID)
        XCTAssertEqual(back.entityName, "Manager")
        XCTAssertTrue(context.object(with: back) === boss)

        // Another container on the same file reads the URI too.
        let other = try makeContainer(Models.company)
        let theirs = try XCTUnwrap(other.persistentStoreCoordinator.managedObjectID(forURIRepresentation: uri))
        let object = try other.viewContext.existingObject(with: theirs)
        XCTAssertEqual((object as? Manager)?.firstName, "Boss")

        // URIs of another store, of a temporary ID, or nonsense name nothing here.
        let stranger = try PersistentContainer(name: "Stranger", entities: Models.company, location: .inMemory)
        let strangerBoss = Manager(context: stranger.viewContext)
        XCTAssertNil(container.persistentStoreCoordinator.managedObjectID(forURIRepresentation: strangerBoss.objectID.uriRepresentation))
        try stranger.viewContext.save()
        XCTAssertNil(container.persistentStoreCoordinator.managedObjectID(forURIRepresentation: strangerBoss.objectID.uriRepresentation))
        XCTAssertNil(container.persistentStoreCoordinator.managedObjectID(forURIRepresentation: URL(string: "https://example.com/Manager/p1")!))
    }

    func testExistingObjectThrowsAContextErrorForAMissingRow() throws {
        let container = try makeContainer(Models.company)
        let context = container.viewContext
        let ann = Employee(context: context)
        try context.save()
        let id = ann.objectID
        let store = container.persistentStoreCoordinator.storeIdentifier
        let missing = try XCTUnwrap(container.persistentStoreCoordinator.managedObjectID(
            forURIRepresentation: URL(string: "x-coredata://\(store)/Employee/p999")!))
        XCTAssertThrowsError(try context.existingObject(with: missing)) { error in
            let error = error as? ContextError
            XCTAssertEqual(error?.code, .objectNotFound)
            XCTAssertEqual(error?.objectID, missing)
        }

        // A row deleted by another container.
        let other = try makeContainer(Models.company)
        other.viewContext.delete(try other.viewContext.existingObject(with: try translate(id, to: other)))
        try other.viewContext.save()
        let fresh = try makeContainer(Models.company)
        XCTAssertThrowsError(try fresh.viewContext.existingObject(with: try translate(id, to: fresh))) { error in
            XCTAssertEqual((error as? ContextError)?.code, .objectNotFound)
        }
    }

    func testExistingObjectThrowsForATemporaryIDOfAnotherContext() throws {
        let container = try makeContainer(Models.company)
        let unsaved = Employee(context: container.viewContext)
        let background = container.newBackgroundContext()
        let id = unsaved.objectID
        let code = background.performAndWait { () -> ContextError.Code? in
            do {
                _ = try background.existingObject(with: id)
                return nil
            } catch {
                return (error as? ContextError)?.code
            }
        }
        XCTAssertEqual(code, .foreignObjectID)
    }
}
