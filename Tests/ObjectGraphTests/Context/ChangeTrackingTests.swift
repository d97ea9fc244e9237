import Foundation
import ObjectGraph
import XCTest

final class ChangeTrackingTests: StoreTestCase {
    func testInsertedUpdatedAndDeletedObjectsAreTrackedUntilSave() throws {
        let container = try makeContainer(Models.company)
        let context = container.viewContext
        XCTAssertFalse(context.hasChanges)
        let ann = Employee(context: context)
        let bob = Employee(context: context)
        XCTAssertTrue(context.hasChanges)
        XCTAssertEqual(context.insertedObjects, [ann, bob])
        XCTAssertTrue(ann.isInserted)
        try context.save()
        XCTAssertFalse(context.hasChanges)
        XCTAssertEqual(context.insertedObjects, [])
        XCTAssertFalse(ann.isInserted)
        XCTAssertFalse(ann.hasChanges)

        ann.age = 33
        context.delete(bob)
        XCTAssertEqual(context.updatedObjects, [ann])
        XCTAssertEqual(context.deletedObjects, [bob])
        XCTAssertTrue(ann.isUpdated)
        XCTAssertTrue(ann.hasChanges)
        XCTAssertTrue(bob.isDeleted)
        try context.save()
        XCTAssertFalse(context.hasChanges)
        XCTAssertEqual(context.updatedObjects, [])
        XCTAssertEqual(context.deletedObjects, [])
        XCTAssertFalse(ann.isUpdated)
    }

    func testChangedValuesAndCommittedValuesDescribeTheEdit() throws {
        let container = try makeContainer(Models.company)
        let context = container.viewContext
        let sales = Department(context: context)
        let ann = Employee(context: context)
        ann.firstName = "Ann"
        ann.age = 30
        XCTAssertEqual(ann.committedValues(forKeys: nil).count, 0, "a new object has no committed values")
        try context.save()

        ann.age = 31
        ann.firstName = "Annie"
        ann.department = sales
        ann.scratch = "transient"
        let changed = ann.changedValues()
        XCTAssertEqual(Set(changed.keys), ["age", "firstName", "department"], "transient changes are not listed")
        XCTAssertEqual(changed["age"] as? Int, 31)
        XCTAssertEqual(changed["firstName"] as? String, "Annie")
        XCTAssertEqual(changed["department"] as? ObjectID, sales.objectID)

        let committed = ann.committedValues(forKeys: ["age", "firstName", "department"])
        XCTAssertEqual(committed["age"] as? Int, 30)
        XCTAssertEqual(committed["firstName"] as? String, "Ann")
        XCTAssertTrue(committed.keys.contains("department"), "the key is present")
        XCTAssertNil(committed["department"] ?? nil, "with no department committed")
        try context.save()
        XCTAssertTrue(ann.changedValues().isEmpty)
        XCTAssertEqual(ann.committedValues(forKeys: ["age"])["age"] as? Int, 31)
    }

    func testSettingAnEqualValueIsNoChange() throws {
        let container = try makeContainer(Models.company)
        let context = container.viewContext
        let ann = Employee(context: context)
        ann.firstName = "Ann"
        ann.age = 30
        try context.save()

        ann.firstName = "Ann"
        ann.age = 30
        ann.badge = ann.badge
        XCTAssertFalse(context.hasChanges)
        XCTAssertFalse(ann.hasChanges)
        XCTAssertEqual(context.updatedObjects, [])

        ann.age = 31
        ann.age = 30
        XCTAssertFalse(ann.hasChanges, "changing a value and back again is no change")
        XCTAssertTrue(ann.changedValues().isEmpty)
        XCTAssertFalse(context.hasChanges)
        let recorder = SQLRecorder(container.persistentStoreCoordinator)
        try context.save()
        XCTAssertEqual(recorder.writes, [], "a save with no real change writes nothing")
    }

    func testSettingAnEqualValueOfEveryTypeOnAFetchedObjectIsNoChange() throws {
        do {
            let container = try makeContainer(Models.specimen)
            let specimen = Specimen(context: container.viewContext)
            specimen.amount = Decimal(string: "12.5")!
            specimen.link = URL(string: "https://example.com/x")!
            specimen.optionalLink = URL(string: "https://example.com/y")!
            specimen.optionalAmount = 3
            specimen.moment = Date(timeIntervalSinceReferenceDate: 1000.25)
            specimen.single = 1.5
            try container.viewContext.save()
        }
        let container = try makeContainer(Models.specimen)
        let specimen = try XCTUnwrap(fetchAll(Specimen.self, in: container.viewContext).first)
        specimen.flag = specimen.flag
        specimen.integer = specimen.integer
        specimen.small = specimen.small
        specimen.medium = specimen.medium
        specimen.large = specimen.large
        specimen.real = specimen.real
        specimen.single = specimen.single
        specimen.text = specimen.text
        specimen.moment = specimen.moment
        specimen.bytes = specimen.bytes
        specimen.identifier = specimen.identifier
        specimen.dimensions = specimen.dimensions
        XCTAssertEqual(Array(specimen.changedValues().keys), [], "plain types")

        specimen.amount = Decimal(string: "12.5")!
        specimen.optionalAmount = 3
        XCTAssertEqual(Array(specimen.changedValues().keys).sorted(), [], "an equal Decimal is a change")
        specimen.link = URL(string: "https://example.com/x")!
        specimen.optionalLink = URL(string: "https://example.com/y")!
        XCTAssertEqual(Array(specimen.changedValues().keys).sorted(), [], "an equal URL is a change")
        XCTAssertFalse(container.viewContext.hasChanges)
    }

    func testAnObjectCreatedThenDeletedBeforeSaveIsNoChange() throws {
        let container = try makeContainer(Models.company)
        let context = container.viewContext
        let temp = Employee(context: context)
        context.delete(temp)
        XCTAssertFalse(context.hasChanges)
        XCTAssertEqual(context.insertedObjects, [])
        XCTAssertEqual(context.deletedObjects, [])
    }

    func testEachSaveIncrementsTheRowVersion() throws {
        let container = try makeContainer(Models.company)
        let context = container.viewContext
        let ann = Employee(context: context)
        try context.save()
        let file = try SQLiteFile(storeURL)
        XCTAssertEqual(try file.scalar("SELECT Z_OPT FROM ZEMPLOYEE"), .integer(1))
        ann.age = 1
        try context.save()
        XCTAssertEqual(try file.scalar("SELECT Z_OPT FROM ZEMPLOYEE"), .integer(2))
        ann.age = 2
        try context.save()
        XCTAssertEqual(try file.scalar("SELECT Z_OPT FROM ZEMPLOYEE"), .integer(3))
    }
}
