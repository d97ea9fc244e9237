import Foundation
import ObjectGraph
import XCTest

final class Member: ManagedObject {
    @Attribute(.unique) var email: String? = nil
    @Attribute var firstName: String = ""
    @Attribute var lastName: String = ""
    override class var uniquenessConstraints: [[String]] { [["firstName", "lastName"]] }
}

final class Organiser: ManagedObject {
    @Attribute(.unique) var scratch: String? = nil
    @Attribute(.transient) var note: String? = nil
    override class var uniquenessConstraints: [[String]] { [["note"]] }
}

/// Uniqueness constraints from model files and from Swift, enforced by the save.
final class UniquenessConstraintTests: StoreTestCase {
    private func openCoreDataPlus() throws -> (PersistentContainer, URL) {
        let url = try Fixtures.copy("CoreDataPlus", "SampleModel_V1.sqlite", into: directory)
        let model = try ManagedObjectModel(contentsOf: Fixtures.directory.appendingPathComponent("CoreDataPlus/SampleModel.xcdatamodel-contents.xml"))
        return (try PersistentContainer(name: "Cars", model: model, storeURL: url), url)
    }

    private func conflict(_ body: () throws -> Void) -> ConstraintConflictError? {
        do { try body() } catch let error as ConstraintConflictError { return error } catch { XCTFail("\(error)") }
        return nil
    }

    func testAFileModelsConstraintRefusesADuplicateAndLosesNothing() throws {
        let (container, url) = try openCoreDataPlus()
        let context = container.viewContext
        let car = try context.insertNewObject(forEntityName: "SportCar")
        try car.setValue("300", forKey: "numberPlate")      // the BMW's plate, an ExpensiveSportCar
        let error = conflict { try context.save() }
        let found = try XCTUnwrap(error?.conflicts.first)
        XCTAssertEqual(error?.conflicts.count, 1)
        XCTAssertEqual(found.entity, "Car")
        XCTAssertEqual(found.constraint, ["numberPlate"])
        XCTAssertEqual(found.objectID, car.objectID)
        XCTAssertEqual(found.conflictingObjectIDs.map(\.entityName), ["ExpensiveSportCar"])
        XCTAssertEqual(found.conflictingObjectIDs.first?.primaryKey, 87)
        XCTAssertTrue(context.hasChanges, "the insert stays pending")
        XCTAssertEqual(try SQLiteFile(url).scalar("SELECT count(*) FROM ZCAR"), .integer(125))
        XCTAssertEqual(try SQLiteFile(url).scalar("SELECT Z_MAX FROM Z_PRIMARYKEY WHERE Z_NAME = 'Car'"), .integer(125), "no key consumed")

        try car.setValue("300-B", forKey: "numberPlate")
        try context.save()
        XCTAssertEqual(try SQLiteFile(url).scalar("SELECT count(*) FROM ZCAR"), .integer(126))
    }

    func testConflictsAmongNewObjectsUpdatesCompoundConstraintsAndNil() throws {
        let (container, _) = try openCoreDataPlus()
        let context = container.viewContext
        let first = try context.insertNewObject(forEntityName: "Car")
        let second = try context.insertNewObject(forEntityName: "Car")
        try first.setValue("NEW-1", forKey: "numberPlate")
        try second.setValue("NEW-1", forKey: "numberPlate")
        let pair = conflict { try context.save() }
        XCTAssertEqual(Set(pair?.conflicts.map(\.objectID) ?? []), [first.objectID, second.objectID], "each names the other")
        XCTAssertEqual(pair?.conflicts.first { $0.objectID == first.objectID }?.conflictingObjectIDs, [second.objectID])
        context.delete(second)
        try context.save()

        // An update that takes another row's plate.
        var request = FetchRequest<ManagedObject>(entityName: "Car")
        request.predicate = try FetchPredicate("numberPlate == %@", "170")
        let panda = try XCTUnwrap(context.fetch(request).first)
        try panda.setValue("NEW-1", forKey: "numberPlate")
        XCTAssertEqual(conflict { try context.save() }?.conflicts.first?.conflictingObjectIDs, [first.objectID])
        context.rollback()

        // Person: firstName + lastName together; a nil never conflicts.
        let victoria = try context.insertNewObject(forEntityName: "Person")
        try victoria.setValue("Victoria", forKey: "firstName")
        try victoria.setValue("Coster", forKey: "lastName")
        try victoria.setValue(UUID(), forKey: "id")
        try victoria.setValue(Date(), forKey: "updatedAt")
        XCTAssertEqual(conflict { try context.save() }?.conflicts.first?.constraint, ["firstName", "lastName"])
        try victoria.setValue("Other", forKey: "lastName")
        let nameless = try context.insertNewObject(forEntityName: "Person")
        try nameless.setValue(UUID(), forKey: "id")
        try nameless.setValue(Date(), forKey: "updatedAt")
        let twin = try context.insertNewObject(forEntityName: "Person")
        try twin.setValue(UUID(), forKey: "id")
        try twin.setValue(Date(), forKey: "updatedAt")
        try context.save()
    }

    func testSwiftDeclaredConstraints() throws {
        let container = try makeContainer([Member.self])
        let context = container.viewContext
        let model = container.managedObjectModel
        XCTAssertEqual(model.entitiesByName["Member"]?.fileDetails.uniquenessConstraints, [["email"], ["firstName", "lastName"]])
        let ann = Member(context: context)
        (ann.email, ann.firstName, ann.lastName) = ("ann@example.com", "Ann", "Lee")
        try context.save()
        let copy = Member(context: context)
        (copy.email, copy.firstName, copy.lastName) = ("ann@example.com", "Ann", "Other")
        XCTAssertEqual(conflict { try context.save() }?.conflicts.map(\.constraint), [["email"]])
        copy.email = nil
        copy.lastName = "Lee"
        XCTAssertEqual(conflict { try context.save() }?.conflicts.map(\.constraint), [["firstName", "lastName"]])
        copy.lastName = "Park"
        try context.save()
        let indexes = try SQLiteFile(storeURL).rows("SELECT sql FROM sqlite_master WHERE name LIKE 'Z_Member_UNIQUE_%' ORDER BY name")
        XCTAssertEqual(indexes, [[.text("CREATE UNIQUE INDEX Z_Member_UNIQUE_email ON ZMEMBER (ZEMAIL COLLATE BINARY ASC)")],
                                 [.text("CREATE UNIQUE INDEX Z_Member_UNIQUE_firstName_lastName ON ZMEMBER (ZFIRSTNAME COLLATE BINARY ASC, ZLASTNAME COLLATE BINARY ASC)")]],
                       "the unique indexes Core Data creates for constraints")

        XCTAssertThrowsError(try ManagedObjectModel(entities: [Organiser.self])) { error in
            XCTAssertEqual((error as? ModelError)?.code, .invalidUniquenessConstraint)
            XCTAssertEqual((error as? ModelError)?.property, "note", "a transient attribute cannot be constrained")
        }
    }
}
