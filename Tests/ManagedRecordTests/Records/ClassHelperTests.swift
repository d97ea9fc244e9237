import Foundation
import ManagedRecord
import XCTest

final class ClassHelperTests: RecordTestCase {
    func testNewEntityCommitAndFetchAllRoundTripThroughTheStore() throws {
        let person = Person.newEntity()
        person.firstName = "John"
        person.lastName = "Smith"
        try Person.commit()
        XCTAssertFalse(person.objectID.isTemporaryID)
        XCTAssertEqual(try Person.fetchAll().map(\.firstName), ["John"])
        XCTAssertEqual(try Person.count(), 1)

        // A second process-like stack on the same file sees the row.
        let container = try PersistentContainer(name: "Check", entities: [Company.self, Person.self, Boss.self], storeURL: storeURL)
        XCTAssertEqual(try container.viewContext.count(for: FetchRequest<Person>()), 1)
    }

    func testFetchAllIncludesSubentitiesAndSortsByKey() throws {
        let a = Person.newEntity(); a.lastName = "Wu"
        let b = Boss.newEntity(); b.lastName = "Adams"
        try Person.commit()
        XCTAssertEqual(try Person.fetchAll(sortedBy: [SortKey("lastName")]).map(\.lastName), ["Adams", "Wu"])
        XCTAssertEqual(try Boss.fetchAll().count, 1)
    }

    func testRollbackDiscardsUncommittedChanges() throws {
        let person = Person.newEntity()
        person.firstName = "Temp"
        Person.rollback()
        XCTAssertEqual(try Person.count(), 0)
        XCTAssertFalse(Person.contextForCurrentThread.hasChanges)
    }

    func testDeleteRemovesTheObjectAtTheNextCommit() throws {
        let person = Person.newEntity()
        try Person.commit()
        person.delete()
        XCTAssertTrue(person.isDeleted)
        try Person.commit()
        XCTAssertEqual(try Person.count(), 0)
    }

    func testCloneCopiesAttributesButNotRelationships() throws {
        let company = Company.newEntity()
        company.name = "Acme"
        let person = Person.newEntity()
        person.firstName = "Ann"
        person.age = 31
        person.company = company
        let twin = person.clone()
        XCTAssertEqual(twin.firstName, "Ann")
        XCTAssertEqual(twin.age, 31)
        XCTAssertEqual(twin.badge, person.badge)
        XCTAssertNil(twin.company)
        XCTAssertFalse(twin === person)
        try Person.commit()
        XCTAssertEqual(try Person.count(), 2)
    }

    func testSerializeGivesStoredAttributesByName() throws {
        let person = Person.newEntity()
        person.firstName = "Ann"
        person.age = 31
        let dictionary = person.serialize()
        XCTAssertEqual(dictionary["firstName"] as? String, "Ann")
        XCTAssertEqual(dictionary["age"] as? Int, 31)
        XCTAssertEqual(dictionary["badge"] as? String, person.badge.uuidString)   // JSON-ready
        XCTAssertNil(dictionary["company"])
    }

    func testSeveralModelsLiveSideBySideWithTheirOwnStores() throws {
        let gadgets = folder.appendingPathComponent("Gadgets.sqlite")
        try ManagedRecord.setUp(model: "Gadgets", entities: [Gadget.self], storeURL: gadgets)
        let gadget = Gadget.newEntity()
        gadget.label = "Phone"
        try Gadget.commit()
        _ = Person.newEntity()
        try Person.commit()
        XCTAssertEqual(try Gadget.count(), 1)
        XCTAssertEqual(try Person.count(), 1)
        XCTAssertTrue(FileManager.default.fileExists(atPath: gadgets.path))
        XCTAssertFalse(Gadget.contextForCurrentThread === Person.contextForCurrentThread)
        XCTAssertEqual(Gadget.contextManager.storeURL, gadgets)
    }

    func testDeleteStoreRemovesTheFilesAndTheNextUseStartsEmpty() throws {
        let old = Person.newEntity()
        try Person.commit()
        let oldStore = Person.contextManager.persistentStoreCoordinator.storeIdentifier
        try Person.deleteStore()
        XCTAssertNotEqual(Person.contextManager.persistentStoreCoordinator.storeIdentifier, oldStore, "a new store file")
        XCTAssertNil(old.managedObjectContext.map { $0 === Person.contextForCurrentThread } ?? nil)
        XCTAssertFalse(Person.contextForCurrentThread.hasChanges)
        XCTAssertEqual(try Person.count(), 0)
        let fresh = Person.newEntity()
        fresh.firstName = "After"
        try Person.commit()
        XCTAssertEqual(try Person.fetchAll().map(\.firstName), ["After"])
    }

    func testSeedStoreIsCopiedOnlyWhenNoStoreExists() throws {
        let seed = folder.appendingPathComponent("seed/Seed.sqlite")
        try makeSeed(at: seed, names: ["Seeded One", "Seeded Two"])
        let target = folder.appendingPathComponent("fresh/Staff.sqlite")
        try ManagedRecord.setUp(model: "Staff", entities: [Company.self, Person.self, Boss.self], storeURL: target, seedStore: seed)
        XCTAssertEqual(try Person.fetchAll(sortedBy: [SortKey("firstName")]).map(\.firstName), ["Seeded One", "Seeded Two"])
        let mine = Person.newEntity()
        mine.firstName = "Mine"
        try Person.commit()

        // Setting up again with a store present leaves it alone.
        ManagedRecord.tearDown(model: "Staff")
        try ManagedRecord.setUp(model: "Staff", entities: [Company.self, Person.self, Boss.self], storeURL: target, seedStore: seed)
        XCTAssertEqual(try Person.count(), 3)
    }

    func testASeedStoreIsCopiedInOwnerOnly() throws {
        let seed = folder.appendingPathComponent("seed/Seed.sqlite")
        try makeSeed(at: seed, names: ["Seeded"])
        XCTAssertEqual(chmod(seed.path, 0o644), 0, "the seed is readable by everyone, as a bundled file may be")
        let target = folder.appendingPathComponent("fresh/Staff.sqlite")
        try ManagedRecord.setUp(model: "Staff", entities: [Company.self, Person.self, Boss.self], storeURL: target, seedStore: seed)
        XCTAssertEqual(try Person.fetchAll().map(\.firstName), ["Seeded"])
        func mode(_ url: URL) throws -> Int {
            (try FileManager.default.attributesOfItem(atPath: url.path)[.posixPermissions] as? NSNumber)?.intValue ?? -1
        }
        XCTAssertEqual(String(try mode(target), radix: 8), "600", "the copied store")
        XCTAssertEqual(String(try mode(target.deletingLastPathComponent()), radix: 8), "700", "the folder made for it")
    }

    private func makeSeed(at url: URL, names: [String]) throws {
        let container = try PersistentContainer(name: "Seed", entities: [Company.self, Person.self, Boss.self], storeURL: url)
        for name in names {
            let person = Person(context: container.viewContext)
            person.firstName = name
        }
        try container.viewContext.save()
    }

    func testDoesRequireMigrationAfterTheModelGainsAnAttribute() throws {
        let url = folder.appendingPathComponent("Gadgets.sqlite")
        try ManagedRecord.setUp(model: "Gadgets", entities: [Gadget.self], storeURL: url)
        let gadget = Gadget.newEntity()
        gadget.label = "Phone"
        try Gadget.commit()
        XCTAssertFalse(try Gadget.doesRequireMigration())
        ManagedRecord.tearDown(model: "Gadgets")

        XCTAssertTrue(try ManagedRecord.doesRequireMigration(entities: [GadgetV2.self], storeURL: url))
        try ManagedRecord.setUp(model: "Gadgets", entities: [GadgetV2.self], storeURL: url)
        XCTAssertTrue(try GadgetV2.doesRequireMigration(), "setUp found a store of the older model and migrated it")
        let migrated = try XCTUnwrap(GadgetV2.fetchAll().first)
        XCTAssertEqual(migrated.label, "Phone")
        XCTAssertEqual(migrated.weight, 0)
        migrated.weight = 1.5
        try GadgetV2.commit()

        ManagedRecord.tearDown(model: "Gadgets")
        try ManagedRecord.setUp(model: "Gadgets", entities: [GadgetV2.self], storeURL: url)
        XCTAssertFalse(try GadgetV2.doesRequireMigration())
        XCTAssertEqual(try GadgetV2.fetchAll().first?.weight, 1.5)
    }
}

final class GadgetV2: ManagedObject {
    @Attribute var label: String = ""
    @Attribute var weight: Double = 0
    override class var entityName: String { "Gadget" }
    override class var modelName: String? { "Gadgets" }
}

final class UndoAndBackgroundTests: RecordTestCase {
    func testUndoRevertsTheLastGroupOfChanges() throws {
        let person = Person.newEntity()
        person.firstName = "Ann"
        try Person.commit()
        person.firstName = "Changed"
        Person.contextForCurrentThread.processPendingChanges()
        let extra = Person.newEntity()
        extra.firstName = "Extra"
        Person.undo()
        XCTAssertTrue(extra.isDeleted || extra.managedObjectContext == nil, "the insert is undone")
        XCTAssertEqual(person.firstName, "Changed", "the earlier group stays")
        Person.undo()
        XCTAssertEqual(person.firstName, "Ann")
        try Person.commit()
        XCTAssertEqual(try Person.fetchAll().map(\.firstName), ["Ann"])
    }

    func testUndoBringsBackADeletedObject() throws {
        let person = Person.newEntity()
        try Person.commit()
        person.delete()
        Person.undo()
        XCTAssertFalse(person.isDeleted)
        try Person.commit()
        XCTAssertEqual(try Person.count(), 1)
    }

    func testFetchInBackgroundReturnsObjectsOfTheCallersContext() async throws {
        try await Person.perform {
            for name in ["B", "A", "C"] {
                let person = Person.newEntity()
                person.firstName = name
            }
            try Person.commit()
            let fetched = try await Person.fetchInBackground(sortedBy: [SortKey("firstName")])
            XCTAssertEqual(fetched.map(\.firstName), ["A", "B", "C"])
            XCTAssertTrue(fetched.allSatisfy { $0.managedObjectContext === Person.contextForCurrentThread })
        }
    }
}

class Shape: ManagedObject {
    @Attribute var name: String = ""
    override class var modelName: String? { "Shapes" }
    override class var shouldFetchRequestsReturnSubentities: Bool { false }
}

final class Circle: Shape {
    @Attribute var radius: Double = 1
    override class var shouldFetchRequestsReturnSubentities: Bool { true }
}

final class SubentityOptionTests: RecordTestCase {
    func testShouldFetchRequestsReturnSubentitiesDecidesWhatClassLevelFetchesInclude() throws {
        try ManagedRecord.setUp(model: "Shapes", entities: [Shape.self, Circle.self], storeURL: folder.appendingPathComponent("Shapes.sqlite"))
        defer { ManagedRecord.tearDown(model: "Shapes") }
        let square = Shape.newEntity()
        square.name = "square"
        let circle = Circle.newEntity()
        circle.name = "circle"
        try Shape.commit()
        XCTAssertEqual(try Shape.fetchAll().map(\.name), ["square"], "Shape opts out of sub-entities")
        XCTAssertEqual(try Shape.count(), 1)
        XCTAssertEqual(try Shape.count(where: "name != %@", ""), 1)
        XCTAssertEqual(try Circle.fetchAll().map(\.name), ["circle"])
        XCTAssertEqual(try Shape.deleteAll(), 1, "the batch delete honours the option too")
        XCTAssertEqual(try Circle.count(), 1)
    }
}
