import Foundation
@testable import ObjectGraph
import XCTest

/// A model that lacks an entity, an attribute or a relationship holding values in the store
/// does not drop them by accident: the migration throws ``MigrationError`` `.wouldDropData`
/// listing them and changes nothing, unless the container allows dropping data or the
/// model file's versions declare the removal. Nothing that holds no value is reported.
final class DroppingDataMigrationTests: StoreTestCase {
    private func companyModel(employeeOnly: Bool = false, extra: String = "") throws -> ManagedObjectModel {
        if employeeOnly {
            return try fileModel("""
                <entity name="Employee" representedClassName="Employee">
                    <attribute name="name" optional="YES" attributeType="String"/>
                    <attribute name="nickname" optional="YES" attributeType="String"/>
                    \(extra)
                </entity>
                """)
        }
        return try fileModel("""
            <entity name="Department" representedClassName="Department">
                <attribute name="title" optional="YES" attributeType="String"/>
                <relationship name="employees" optional="YES" toMany="YES" deletionRule="Nullify" destinationEntity="Employee" inverseName="department" inverseEntity="Employee"/>
            </entity>
            <entity name="Employee" representedClassName="Employee">
                <attribute name="name" optional="YES" attributeType="String"/>
                <attribute name="nickname" optional="YES" attributeType="String"/>
                <relationship name="department" optional="YES" maxCount="1" deletionRule="Nullify" destinationEntity="Department" inverseName="employees" inverseEntity="Department"/>
            </entity>
            """)
    }

    /// Two departments, three employees in them; `nickname` is nil everywhere.
    private func writeCompany(departments: Bool = true) throws {
        let container = try PersistentContainer(name: "Test", model: try companyModel(), storeURL: storeURL)
        let context = container.viewContext
        var owners: [ManagedObject] = []
        if departments {
            for title in ["Sales", "Research"] {
                let department = try context.insertNewObject(forEntityName: "Department")
                try department.setValue(title, forKey: "title")
                owners.append(department)
            }
        }
        for index in 0..<3 {
            let employee = try context.insertNewObject(forEntityName: "Employee")
            try employee.setValue("Employee \(index)", forKey: "name")
            if !owners.isEmpty { try employee.setValue(owners[index % 2], forKey: "department") }
        }
        try context.save()
        container.persistentStoreCoordinator.close()
    }

    func testAModelLackingAnEntityIsRefusedWithWhatWouldBeDroppedAndTheStoreIsLeftAlone() throws {
        try writeCompany()
        let before = storeBytes(storeURL)
        let partial = try companyModel(employeeOnly: true)
        XCTAssertThrowsError(try PersistentContainer(name: "Test", model: partial, storeURL: storeURL)) { error in
            guard let error = error as? MigrationError else { return XCTFail("\(error)") }
            XCTAssertEqual(error.code, .wouldDropData)
            XCTAssertEqual(Set(error.droppedData), [
                .init(entity: "Department", property: nil, rowCount: 2),
                .init(entity: "Employee", property: "department", rowCount: 3),
            ])
            XCTAssertTrue(error.message.contains("Department: 2 rows"), error.message)
            XCTAssertTrue(error.message.contains("allowsDroppingData"), error.message)
        }
        XCTAssertEqual(storeBytes(storeURL), before, "the store is left byte for byte as it was")
        XCTAssertEqual(try migrationLeftovers(storeURL), [])

        // The full model still opens it, with everything in it.
        let full = try PersistentContainer(name: "Test", model: try companyModel(), storeURL: storeURL)
        XCTAssertEqual(try full.viewContext.count(for: FetchRequest<ManagedObject>(entityName: "Department")), 2)
    }

    func testAllowingDroppingDataMigratesAsCoreDataInfersIt() throws {
        try writeCompany()
        let partial = try companyModel(employeeOnly: true)
        let container = try PersistentContainer(name: "Test", model: partial, storeURL: storeURL, options: [.allowsDroppingData])
        XCTAssertTrue(container.options.contains(.allowsDroppingData))
        let employees = try objects("Employee", in: container.viewContext, sortedBy: "name")
        XCTAssertEqual(employees.map { $0.value(forKey: "name") as? String }, ["Employee 0", "Employee 1", "Employee 2"])
        XCTAssertFalse(try SQLiteFile(storeURL).tableNames().contains("ZDEPARTMENT"))
        try assertStoreIntegrity(storeURL)
    }

    func testTheCoordinatorTakesTheOptionToo() throws {
        try writeCompany()
        let partial = try companyModel(employeeOnly: true)
        XCTAssertThrowsError(try PersistentStoreCoordinator(model: partial, storeURL: storeURL))
        XCTAssertNoThrow(try PersistentStoreCoordinator(model: partial, storeURL: storeURL, allowsDroppingData: true))
    }

    func testEmptyEntitiesAndColumnsWithoutValuesAreDroppedSilently() throws {
        try writeCompany(departments: false)
        // Department has no rows, and every employee's department and nickname are nil.
        let partial = try companyModel(employeeOnly: true, extra: #"<attribute name="age" optional="YES" attributeType="Integer 16" usesScalarValueType="YES"/>"#)
        let container = try PersistentContainer(name: "Test", model: partial, storeURL: storeURL)
        XCTAssertEqual(try objects("Employee", in: container.viewContext).count, 3)
    }

    func testADroppedAttributeThatHoldsValuesIsNamedWithItsRowCount() throws {
        try writeCompany()
        let fewer = try fileModel("""
            <entity name="Department" representedClassName="Department">
                <relationship name="employees" optional="YES" toMany="YES" deletionRule="Nullify" destinationEntity="Employee" inverseName="department" inverseEntity="Employee"/>
            </entity>
            <entity name="Employee" representedClassName="Employee">
                <attribute name="name" optional="YES" attributeType="String"/>
                <relationship name="department" optional="YES" maxCount="1" deletionRule="Nullify" destinationEntity="Department" inverseName="employees" inverseEntity="Department"/>
            </entity>
            """)
        XCTAssertThrowsError(try PersistentContainer(name: "Test", model: fewer, storeURL: storeURL)) { error in
            XCTAssertEqual((error as? MigrationError)?.droppedData, [.init(entity: "Department", property: "title", rowCount: 2)], "\(error)")
        }
        // A store that does not record its model names the column.
        try forgetRecordedModel(storeURL)
        XCTAssertThrowsError(try PersistentContainer(name: "Test", model: fewer, storeURL: storeURL)) { error in
            XCTAssertEqual((error as? MigrationError)?.droppedData, [.init(entity: "Department", property: "ZTITLE", rowCount: 2)], "\(error)")
        }
    }

    func testAModelFileWhoseEarlierVersionWroteTheStoreDeclaresTheRemoval() throws {
        try writeCompany()
        let bundle = directory.appendingPathComponent("Company.xcdatamodeld")
        let versions = [("Company", try companyXML()), ("Company 2", try companyXML(employeeOnly: true))]
        for (name, xml) in versions {
            let folder = bundle.appendingPathComponent(name + ".xcdatamodel")
            try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
            try Data(xml.utf8).write(to: folder.appendingPathComponent("contents"))
        }
        let current = try PropertyListSerialization.data(fromPropertyList: ["_XCCurrentVersionName": "Company 2.xcdatamodel"], format: .xml, options: 0)
        try current.write(to: bundle.appendingPathComponent(".xccurrentversion"))
        let container = try PersistentContainer(name: "Test", model: try ManagedObjectModel(contentsOf: bundle), storeURL: storeURL)
        XCTAssertEqual(try objects("Employee", in: container.viewContext).count, 3)
        XCTAssertFalse(try SQLiteFile(storeURL).tableNames().contains("ZDEPARTMENT"))
    }

    /// The model file text of ``companyModel(employeeOnly:extra:)``.
    private func companyXML(employeeOnly: Bool = false) throws -> String {
        let model = try companyModel(employeeOnly: employeeOnly)
        return model.contentsXML
    }

    func testAReadOnlyOpenNeverMigratesEvenWhenDroppingIsAllowed() throws {
        try writeCompany()
        let before = storeBytes(storeURL)[0]
        let container = try PersistentContainer(name: "Test", model: try companyModel(employeeOnly: true), storeURL: storeURL,
                                                options: [.readOnly, .allowsDroppingData])
        XCTAssertEqual(try objects("Employee", in: container.viewContext).count, 3, "it reads what the model has")
        container.persistentStoreCoordinator.close()
        XCTAssertEqual(storeBytes(storeURL)[0], before, "the store file is not written")
        XCTAssertEqual(try SQLiteFile(storeURL).scalar("SELECT count(*) FROM ZDEPARTMENT"), .integer(2))
    }
}
