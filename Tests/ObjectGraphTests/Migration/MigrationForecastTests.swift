import Foundation
@testable import ObjectGraph
import XCTest

// A version 2 of the staged migration's contacts whose phone numbers become numbers.
final class ContactNumberV2: ManagedObject {
    override class var entityName: String { "Contact" }
    @Attribute var fullName: String = ""
    @Attribute(originalName: "phone") var telephone: Int = 0
    @Attribute var starred: Bool = false
}

/// ``MigrationForecast``: what a migration would do, step by step, without changing the
/// store; its figures are what the migration then does.
final class MigrationForecastTests: StoreTestCase {
    private func writeContacts(_ rows: [(String, String)]) throws {
        let container = try makeContainer([ContactV1.self])
        for (name, phone) in rows {
            let contact = ContactV1(context: container.viewContext)
            contact.fullName = name
            contact.phone = phone
        }
        try container.viewContext.save()
        container.persistentStoreCoordinator.close()
    }

    func testTheForecastOfAStagedChainEqualsWhatTheMigrationDoesAndChangesNothing() throws {
        try writeContacts([("Ada Lovelace", "555-0"), ("Grace Hopper", "555-1"), ("Plato", "555-2")])
        let (v1, v2, v3) = (try ManagedObjectModel(entities: [ContactV1.self]), try ManagedObjectModel(entities: [ContactV2.self]),
                            try ManagedObjectModel(entities: [ContactV3.self]))
        let stages = StagedMigrationManager([.lightweight(from: v1, to: v2, label: "rename phone"),
                                             .custom(from: v2, to: v3, label: "split fullName", didMigrate: { _, _ in })])
        let before = storeBytes(storeURL)
        let forecast = try PersistentStoreCoordinator.migrationForecast(model: v3, storeURL: storeURL, stagedMigration: stages)
        XCTAssertEqual(storeBytes(storeURL), before, "the forecast changes nothing")
        XCTAssertEqual(try migrationLeftovers(storeURL), [])

        XCTAssertEqual(forecast.steps.map(\.label), ["rename phone", "split fullName"])
        XCTAssertEqual(forecast.steps.map(\.isCustom), [false, true])
        let rename = forecast.steps[0]
        XCTAssertEqual(rename.propertiesRenamed, [.init(from: "Contact.phone", to: "Contact.telephone")])
        XCTAssertEqual(rename.propertiesAdded, ["Contact.starred"])
        XCTAssertEqual(rename.propertiesRemoved, [])
        let split = forecast.steps[1]
        XCTAssertEqual(Set(split.propertiesAdded), ["Contact.firstName", "Contact.lastName"])
        XCTAssertEqual(split.propertiesRemoved, ["Contact.fullName"])
        XCTAssertEqual(split.droppedData.map(\.description), ["Contact.fullName: 3 rows hold a value"])
        XCTAssertFalse(split.wouldBeRefused, "the stage declares the change")
        XCTAssertTrue(forecast.wouldSucceed)
        XCTAssertGreaterThan(forecast.bytesNeeded, 0)
        XCTAssertGreaterThanOrEqual(forecast.bytesNeeded, split.bytesWritten, "a custom stage holds two copies")

        let totals = Locked<[Int]>([])
        _ = try PersistentContainer(name: "Test", model: v3, location: .file(storeURL), stagedMigration: stages,
                                    migrationProgress: { progress in if progress.entity == nil { totals.withLock { $0.append(progress.totalRows) } } })
        XCTAssertEqual(totals.withLock { $0 }, forecast.steps.map(\.rowsTouched), "each step's rows are the rows the migration copies")
        XCTAssertEqual(forecast.steps.map(\.rowsTouched), [3, 3])
        XCTAssertEqual(forecast.steps[1].rowsByEntity, ["Contact": 3])
    }

    func testTheForecastListsEveryValueThatWouldNotConvertWithItsKeyAndTheMigrationStopsAtTheFirst() throws {
        try writeContacts([("Ada", "5550"), ("Grace", "call me"), ("Plato", "12"), ("Zeno", "n/a")])
        let v2 = try ManagedObjectModel(entities: [ContactNumberV2.self])
        let forecast = try PersistentStoreCoordinator.migrationForecast(model: v2, storeURL: storeURL)
        XCTAssertEqual(forecast.steps.count, 1)
        let step = try XCTUnwrap(forecast.steps.first)
        XCTAssertEqual(step.propertiesConverted, [.init(property: "Contact.telephone", from: AttributeType.string.rawValue, to: AttributeType.integer64.rawValue)])
        XCTAssertEqual(step.propertiesRenamed, [.init(from: "Contact.phone", to: "Contact.telephone")])
        XCTAssertEqual(step.failures.map(\.key), [2, 4])
        XCTAssertEqual(step.failures.map(\.value), ["\"call me\"", "\"n/a\""])
        XCTAssertEqual(Set(step.failures.map(\.code)), [.unconvertibleValue])
        XCTAssertFalse(forecast.wouldSucceed)

        XCTAssertThrowsError(try PersistentContainer(name: "Test", model: v2, location: .file(storeURL))) { error in
            let migration = error as? MigrationError
            XCTAssertEqual(migration?.code, .unconvertibleValue)
            XCTAssertEqual(migration?.property, "telephone")
            XCTAssertTrue(migration?.message.contains("Z_PK 2") == true, "the migration stops at the forecast's first failure: \(error)")
        }
    }

    func testAModelThatDropsDataIsForecastAsRefusedAndAStoreThatFitsNeedsNothing() throws {
        try writeContacts([("Ada Lovelace", "555-0")])
        let v1 = try ManagedObjectModel(entities: [ContactV1.self])
        XCTAssertFalse(try PersistentStoreCoordinator.migrationForecast(model: v1, storeURL: storeURL).needsMigration)
        let v3 = try ManagedObjectModel(entities: [ContactV3.self])
        let forecast = try PersistentStoreCoordinator.migrationForecast(model: v3, storeURL: storeURL)
        XCTAssertEqual(forecast.steps.map(\.wouldBeRefused), [true])
        XCTAssertFalse(forecast.wouldSucceed)
        XCTAssertThrowsError(try PersistentContainer(name: "Test", model: v3, location: .file(storeURL))) { error in
            XCTAssertEqual((error as? MigrationError)?.code, .wouldDropData)
        }
    }
}
