import Foundation
import ObjectGraph
import XCTest

/// Stores written here keep their model in their metadata; `ManagedObjectModel(storeURL:)`
/// rebuilds it without classes, with the same version hashes and layout.
final class StoreDescribedModelTests: StoreTestCase {
    func testAStoreWrittenHereRebuildsItsModelWithTheSameVersionHashes() throws {
        let original = try ManagedObjectModel(entities: Models.everything)
        do {
            let container = try PersistentContainer(name: "Test", model: original, storeURL: storeURL)
            container.persistentStoreCoordinator.close()
        }
        let rebuilt = try ManagedObjectModel(storeURL: storeURL)
        XCTAssertEqual(rebuilt.entityVersionHashesByName, original.entityVersionHashesByName)
        XCTAssertEqual(rebuilt.entities.map(\.name), original.entities.map(\.name))
        for entity in original.entities {
            let other = try XCTUnwrap(rebuilt.entitiesByName[entity.name])
            XCTAssertEqual(other.superentity?.name, entity.superentity?.name)
            XCTAssertEqual(other.properties.map(\.name), entity.properties.map(\.name), entity.name)
            XCTAssertTrue(other.managedClass == ManagedObject.self, "a rebuilt entity has no class")
        }
        let inspection = try StoreInspection(storeURL: storeURL, model: rebuilt)
        XCTAssertTrue(inspection.isHealthy, "\(inspection)")
        XCTAssertEqual(inspection.ownModelAgrees, true)
    }

    func testTheRebuiltModelOpensTheStoreAndReadsByKeyAndConstantDefaultsSurvive() throws {
        do {
            let container = try makeContainer()
            let department = Department(context: container.viewContext)
            department.name = "Sales"
            try container.viewContext.save()
            container.persistentStoreCoordinator.close()
        }
        let model = try ManagedObjectModel(storeURL: storeURL)
        let container = try PersistentContainer(name: "Test", model: model, storeURL: storeURL, options: [.readOnly])
        let departments = try container.viewContext.fetch(FetchRequest<ManagedObject>(entityName: "Department"))
        XCTAssertEqual(departments.map { $0.value(forKey: "name") as? String }, ["Sales"])
        let inserted = try container.viewContext.insertNewObject(forEntityName: "Department")   // in memory only
        XCTAssertEqual(inserted.value(forKey: "budget") as? Double, 0, "the constant default of `budget: Double = 0` is kept")
    }

    func testAnAppleStoreWithoutAModelGivesATypedErrorAndIsNotChanged() throws {
        let url = try Fixtures.copy("TavantTrade", "Model.sqlite", into: directory)
        let before = try Data(contentsOf: url)
        XCTAssertThrowsError(try ManagedObjectModel(storeURL: url)) { error in
            let storeError = error as? StoreError
            XCTAssertEqual(storeError?.code, .noModel, "\(error)")
            XCTAssertTrue(storeError?.message.contains("ManagedObjectModel(contentsOf:") ?? false, "\(error)")
        }
        XCTAssertEqual(try Data(contentsOf: url), before)
    }

    func testAFileThatIsNotACoreDataStoreIsATypedError() throws {
        let url = directory.appendingPathComponent("plain.sqlite")
        try Data("not a database at all, just text that is long enough to not be a header".utf8).write(to: url)
        XCTAssertThrowsError(try ManagedObjectModel(storeURL: url)) { error in
            XCTAssertEqual((error as? StoreError)?.code, .notADatabase, "\(error)")
        }
        XCTAssertThrowsError(try ManagedObjectModel(storeURL: directory.appendingPathComponent("missing.sqlite"))) { error in
            XCTAssertEqual((error as? StoreError)?.code, .cannotOpen, "\(error)")
        }
    }

    func testAMigrationRecordsTheNewModelInTheStore() throws {
        do {
            let container = try makeContainer(Models.company)
            container.persistentStoreCoordinator.close()
        }
        XCTAssertNil(try ManagedObjectModel(storeURL: storeURL).entitiesByName["Ticket"])
        let newer = try ManagedObjectModel(entities: Models.company + Models.tickets)
        do {
            let container = try PersistentContainer(name: "Test", model: newer, storeURL: storeURL)   // adds Ticket's table
            container.persistentStoreCoordinator.close()
        }
        let described = try ManagedObjectModel(storeURL: storeURL)
        XCTAssertNotNil(described.entitiesByName["Ticket"], "the migrated store describes the model it was migrated to")
        XCTAssertEqual(described.entityVersionHashesByName, newer.entityVersionHashesByName)
    }
}
