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

    /// Generator case 1784, in a store without its model (as Apple's Core Data writes them):
    /// siblings Kilo and Mike both have a `stamp`, Kilo's an Integer and Mike's a Date with a
    /// default, nil in every row. Mike's nils must stay nil, and Kilo's empty column of
    /// another type must not stop the migration.
    func testAnEmptySameNamedColumnOfAnotherTypeNeitherStopsTheMigrationNorFillsADefault() throws {
        func model(_ extra: String) throws -> ManagedObjectModel {
            try fileModel("""
                <entity name="Alpha" representedClassName="Alpha">
                    <attribute name="ident" attributeType="Integer 64" defaultValueString="0" usesScalarValueType="YES"/>
                    \(extra)
                </entity>
                <entity name="Kilo" representedClassName="Kilo" parentEntity="Alpha">
                    <attribute name="stamp" optional="YES" attributeType="Integer 64" usesScalarValueType="YES"/>
                </entity>
                <entity name="Mike" representedClassName="Mike" parentEntity="Alpha">
                    <attribute name="stamp" optional="YES" attributeType="Date" defaultValueString="106321"/>
                </entity>
                """)
        }
        do {
            let container = try PersistentContainer(name: "Test", model: try model(""), storeURL: storeURL)
            for ident in 1...2 {
                let mike = try container.viewContext.insertNewObject(forEntityName: "Mike")
                try mike.setValue(Int64(ident), forKey: "ident")
                try mike.setValue(nil, forKey: "stamp")
            }
            let kilo = try container.viewContext.insertNewObject(forEntityName: "Kilo")
            try kilo.setValue(Int64(3), forKey: "ident")
            try container.viewContext.save()
            container.persistentStoreCoordinator.close()
        }
        try forgetRecordedModel(storeURL)
        let v2 = try model(#"<attribute name="note" optional="YES" attributeType="String"/>"#)
        let container = try PersistentContainer(name: "Test", model: v2, storeURL: storeURL)
        let mikes = try objects("Mike", in: container.viewContext)
        XCTAssertEqual(mikes.count, 2)
        XCTAssertTrue(mikes.allSatisfy { $0.value(forKey: "stamp") == nil }, "\(mikes.map { $0.value(forKey: "stamp") as Any })")
    }

    /// Generator case 101212, in a store without its model: Kilo gets a new many-to-many
    /// `partner` while its sibling Mike has a to-one `partner` with values. Kilo's join table
    /// was filled from Mike's column (then emptied by the fix-ups), and those rows were
    /// counted as links the migration removes, so it was refused as dropping data.
    func testANewRelationshipIsNotFilledFromASiblingsSameNamedColumn() throws {
        func model(_ kilo: String, _ bravo: String) throws -> ManagedObjectModel {
            try fileModel("""
                <entity name="Alpha" representedClassName="Alpha">
                    <attribute name="label" optional="YES" attributeType="String"/>
                </entity>
                <entity name="Kilo" representedClassName="Kilo" parentEntity="Alpha">
                    \(kilo)
                </entity>
                <entity name="Mike" representedClassName="Mike" parentEntity="Alpha">
                    <relationship name="partner" optional="YES" maxCount="1" deletionRule="Nullify" destinationEntity="Bravo" inverseName="partnerOfMike" inverseEntity="Bravo"/>
                </entity>
                <entity name="Bravo" representedClassName="Bravo">
                    <attribute name="label" optional="YES" attributeType="String"/>
                    <relationship name="partnerOfMike" optional="YES" toMany="YES" deletionRule="Nullify" destinationEntity="Mike" inverseName="partner" inverseEntity="Mike"/>
                    \(bravo)
                </entity>
                """)
        }
        do {
            let container = try PersistentContainer(name: "Test", model: try model("", ""), storeURL: storeURL)
            let context = container.viewContext
            let bravo = try context.insertNewObject(forEntityName: "Bravo")
            for _ in 0..<2 {
                _ = try context.insertNewObject(forEntityName: "Kilo")
                let mike = try context.insertNewObject(forEntityName: "Mike")
                try mike.setValue(bravo, forKey: "partner")
            }
            try context.save()
            container.persistentStoreCoordinator.close()
        }
        try forgetRecordedModel(storeURL)
        let v2 = try model(
            #"<relationship name="partner" optional="YES" toMany="YES" deletionRule="Nullify" destinationEntity="Bravo" inverseName="partnerOfKilo" inverseEntity="Bravo"/>"#,
            #"<relationship name="partnerOfKilo" optional="YES" toMany="YES" deletionRule="Nullify" destinationEntity="Kilo" inverseName="partner" inverseEntity="Kilo"/>"#)
        let container = try PersistentContainer(name: "Test", model: v2, storeURL: storeURL)
        let kilos = try objects("Kilo", in: container.viewContext)
        XCTAssertEqual(kilos.map { ($0.value(forKey: "partner") as? Set<ManagedObject>)?.count }, [0, 0])
        let mikes = try objects("Mike", in: container.viewContext)
        XCTAssertTrue(mikes.allSatisfy { $0.value(forKey: "partner") != nil }, "Mike's links are kept")
    }
}
