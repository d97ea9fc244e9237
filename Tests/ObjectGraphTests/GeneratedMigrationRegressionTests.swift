import Foundation
@testable import ObjectGraph
import XCTest

/// Defects the migration generator (MigrationGeneratorTests) found, each reduced to a case
/// of its own.
final class GeneratedMigrationRegressionTests: StoreTestCase {
    /// Generator case 1797: Bravo moves below Charlie, whose many-to-many `owner` becomes a
    /// to-one. Bravo's rows had no owner; the to-one was read from Charlie's old join table
    /// by key, and Bravo's keys matched Charlie's rows', so Bravos got Charlies' owners.
    func testAnEntityMovedBelowAnotherGetsNoLinksOfTheOtherEntitysRows() throws {
        let v1 = try fileModel("""
            <entity name="Charlie" representedClassName="Charlie">
                <attribute name="label" optional="YES" attributeType="String"/>
                <relationship name="owner" optional="YES" toMany="YES" deletionRule="Nullify" destinationEntity="Delta" inverseName="owned" inverseEntity="Delta"/>
            </entity>
            <entity name="Bravo" representedClassName="Bravo">
                <attribute name="size" optional="YES" attributeType="Integer 64" usesScalarValueType="YES"/>
            </entity>
            <entity name="Delta" representedClassName="Delta">
                <attribute name="label" optional="YES" attributeType="String"/>
                <relationship name="owned" optional="YES" toMany="YES" deletionRule="Nullify" destinationEntity="Charlie" inverseName="owner" inverseEntity="Charlie"/>
            </entity>
            """)
        do {
            let container = try PersistentContainer(name: "Test", model: v1, storeURL: storeURL)
            let context = container.viewContext
            let delta = try context.insertNewObject(forEntityName: "Delta")
            try delta.setValue("D", forKey: "label")
            let charlie = try context.insertNewObject(forEntityName: "Charlie")
            try charlie.setValue("C", forKey: "label")
            try charlie.setValue(Set([delta]), forKey: "owner")
            let bravo = try context.insertNewObject(forEntityName: "Bravo")
            try bravo.setValue(Int64(7), forKey: "size")
            try context.save()
            container.persistentStoreCoordinator.close()
        }
        let v2 = try fileModel("""
            <entity name="Charlie" representedClassName="Charlie">
                <attribute name="label" optional="YES" attributeType="String"/>
                <relationship name="owner" optional="YES" maxCount="1" deletionRule="Nullify" destinationEntity="Delta" inverseName="owned" inverseEntity="Delta"/>
            </entity>
            <entity name="Bravo" representedClassName="Bravo" parentEntity="Charlie">
                <attribute name="size" optional="YES" attributeType="Integer 64" usesScalarValueType="YES"/>
            </entity>
            <entity name="Delta" representedClassName="Delta">
                <attribute name="label" optional="YES" attributeType="String"/>
                <relationship name="owned" optional="YES" toMany="YES" deletionRule="Nullify" destinationEntity="Charlie" inverseName="owner" inverseEntity="Charlie"/>
            </entity>
            """)
        let container = try PersistentContainer(name: "Test", model: v2, storeURL: storeURL)
        let bravos = try objects("Bravo", in: container.viewContext)
        XCTAssertEqual(bravos.map { $0.value(forKey: "size") as? Int64 }, [7])
        XCTAssertNil(bravos.first?.value(forKey: "owner"), "Bravo had no owner")
        var charlies = FetchRequest<ManagedObject>(entityName: "Charlie")
        charlies.includesSubentities = false
        let charlie = try XCTUnwrap(container.viewContext.fetch(charlies).first)
        XCTAssertEqual((charlie.value(forKey: "owner") as? ManagedObject)?.value(forKey: "label") as? String, "D")
        let delta = try XCTUnwrap(objects("Delta", in: container.viewContext).first)
        XCTAssertEqual((delta.value(forKey: "owned") as? Set<ManagedObject>)?.count, 1)
    }

    /// Generator case 1702: Kilo leaves Alpha's hierarchy, so a Bravo's to-one to Alpha that
    /// pointed at a Kilo can no longer hold it. The link was removed silently; it is data, so
    /// it is refused unless dropping is allowed.
    func testLinksToAnEntityThatLeavesTheDestinationsHierarchyAreNotDroppedByAccident() throws {
        func model(kiloParent: String) throws -> ManagedObjectModel {
            try fileModel("""
                <entity name="Alpha" representedClassName="Alpha">
                    <attribute name="label" optional="YES" attributeType="String"/>
                    <relationship name="partner" optional="YES" toMany="YES" deletionRule="Nullify" destinationEntity="Bravo" inverseName="partnerOfAlpha" inverseEntity="Bravo"/>
                </entity>
                <entity name="Kilo" representedClassName="Kilo" \(kiloParent)>
                    <attribute name="size" optional="YES" attributeType="Integer 64" usesScalarValueType="YES"/>
                </entity>
                <entity name="Bravo" representedClassName="Bravo">
                    <attribute name="label" optional="YES" attributeType="String"/>
                    <relationship name="partnerOfAlpha" optional="YES" maxCount="1" deletionRule="Nullify" destinationEntity="Alpha" inverseName="partner" inverseEntity="Alpha"/>
                </entity>
                """)
        }
        do {
            let container = try PersistentContainer(name: "Test", model: try model(kiloParent: #"parentEntity="Alpha""#), storeURL: storeURL)
            let context = container.viewContext
            let kilo = try context.insertNewObject(forEntityName: "Kilo")
            try kilo.setValue(Int64(3), forKey: "size")
            let bravo = try context.insertNewObject(forEntityName: "Bravo")
            try bravo.setValue("B", forKey: "label")
            try bravo.setValue(kilo, forKey: "partnerOfAlpha")
            try context.save()
            container.persistentStoreCoordinator.close()
        }
        let before = storeBytes(storeURL)
        let v2 = try model(kiloParent: "")
        XCTAssertThrowsError(try PersistentContainer(name: "Test", model: v2, storeURL: storeURL)) { error in
            guard let error = error as? MigrationError else { return XCTFail("\(error)") }
            XCTAssertEqual(error.code, .wouldDropData)
            XCTAssertEqual(error.droppedData, [.init(entity: "Bravo", property: "partnerOfAlpha", rowCount: 1)])
        }
        XCTAssertEqual(storeBytes(storeURL), before)
        XCTAssertEqual(try migrationLeftovers(storeURL), [])
        let container = try PersistentContainer(name: "Test", model: v2, storeURL: storeURL, options: [.allowsDroppingData])
        let bravo = try XCTUnwrap(objects("Bravo", in: container.viewContext).first)
        XCTAssertNil(bravo.value(forKey: "partnerOfAlpha"), "dropped, as allowed")
        XCTAssertEqual(try objects("Kilo", in: container.viewContext).count, 1)
    }
}
