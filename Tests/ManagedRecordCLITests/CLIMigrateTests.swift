import Foundation
import ObjectGraph
import XCTest

/// `managedrecord migrate STORE --model NEW [--dry-run]`: the forecast changes nothing and
/// names what the migration then does; without --dry-run the store is migrated.
final class CLIMigrateTests: XCTestCase {
    private var folder = URL(fileURLWithPath: "/nonexistent")

    override func setUpWithError() throws {
        folder = try CLITestStores.folder()
    }

    /// A model file of one `Contact` entity with `attributes`.
    private func modelFile(_ name: String, _ attributes: String) throws -> URL {
        let file = folder.appendingPathComponent(name)
        try CLITestStores.contactModel(attributes).write(to: file)
        return file
    }

    /// A store of version 1 (`fullName`, `phone` as text) holding `phones`, and version 2's
    /// model file: `phone` renamed `telephone` and made a number, `starred` added.
    private func contacts(_ phones: [String]) throws -> (store: URL, version2: URL) {
        let version1 = try modelFile("v1.xml", """
            <attribute name="fullName" optional="YES" attributeType="String"/>
            <attribute name="phone" optional="YES" attributeType="String"/>
            """)
        let store = folder.appendingPathComponent("Contacts.sqlite")
        let container = try PersistentContainer(name: "Contacts", model: ManagedObjectModel(contentsOf: version1), storeURL: store)
        for (index, phone) in phones.enumerated() {
            let contact = try container.viewContext.insertNewObject(forEntityName: "Contact")
            try contact.setValue("Contact \(index)", forKey: "fullName")
            try contact.setValue(phone, forKey: "phone")
        }
        try container.viewContext.save()
        container.persistentStoreCoordinator.close()
        let version2 = try modelFile("v2.xml", """
            <attribute name="fullName" optional="YES" attributeType="String"/>
            <attribute name="telephone" optional="YES" attributeType="Integer 64" usesScalarValueType="YES" elementID="phone"/>
            <attribute name="starred" optional="YES" attributeType="Boolean" usesScalarValueType="YES"/>
            """)
        return (store, version2)
    }

    private func bytes(_ store: URL) -> [Data?] {
        ["", "-wal", "-shm"].map { FileManager.default.contents(atPath: store.path + $0) }
    }

    func testTheDryRunPrintsTheForecastWithEveryFailingValueAndChangesNothing() throws {
        let (store, version2) = try contacts(["5550", "call me", "12", "n/a"])
        let before = bytes(store)
        let run = try CommandLineRun.tool("migrate", store.path, "--model", version2.path, "--dry-run")
        XCTAssertEqual(run.status, 1, "the migration would fail: \(run.stdout) \(run.stderr)")
        for expected in ["step 1: lightweight", "properties added: Contact.starred", "properties renamed: Contact.phone → Contact.telephone",
                         "properties converted: Contact.telephone: ", "rows touched: 4 (Contact 4)", "values that would not convert: 2",
                         "Contact.telephone of the row with Z_PK 2: \"call me\"", "Contact.telephone of the row with Z_PK 4: \"n/a\"",
                         "space needed: ", "the migration would FAIL"] {
            XCTAssertTrue(run.stdout.contains(expected), "\(expected) in:\n\(run.stdout)")
        }
        XCTAssertEqual(bytes(store), before, "the dry run changes nothing")
        XCTAssertEqual(try FileManager.default.contentsOfDirectory(atPath: folder.path).filter { $0.contains("migrating") }, [])

        let migrate = try CommandLineRun.tool("migrate", store.path, "--model", version2.path)
        XCTAssertEqual(migrate.status, 1)
        XCTAssertTrue(migrate.stderr.contains("Z_PK 2"), "the migration stops at the forecast's first failing value: \(migrate.stderr)")
        XCTAssertEqual(bytes(store)[0], before[0], "and changes nothing (reading the store left an empty -wal beside it)")
        XCTAssertEqual(bytes(store)[1] ?? Data(), Data())
    }

    func testWithoutDryRunTheStoreIsMigratedAsForecast() throws {
        let (store, version2) = try contacts(["5550", "12", "7"])
        let forecast = try CommandLineRun.tool("migrate", store.path, "--model", version2.path, "--dry-run")
        XCTAssertEqual(forecast.status, 0, forecast.stdout + forecast.stderr)
        XCTAssertTrue(forecast.stdout.contains("rows touched: 3"), forecast.stdout)
        XCTAssertTrue(forecast.stdout.contains("the migration would succeed"), forecast.stdout)

        let migrate = try CommandLineRun.tool("migrate", store.path, "--model", version2.path)
        XCTAssertEqual(migrate.status, 0, migrate.stderr)
        XCTAssertTrue(migrate.stdout.contains("migrated \(store.path) in 1 step(s)"), migrate.stdout)
        let model = try ManagedObjectModel(contentsOf: version2)
        XCTAssertFalse(try PersistentStoreCoordinator.requiresMigration(model: model, storeURL: store))
        let container = try PersistentContainer(name: "Contacts", model: model, storeURL: store, options: [.readOnly])
        var request = FetchRequest<ManagedObject>(entityName: "Contact")
        request.sortDescriptors = [SortKey("fullName")]
        XCTAssertEqual(try container.viewContext.fetch(request).map { try $0.checkedValue(forKey: "telephone") as? Int64 }, [5550, 12, 7])

        let again = try CommandLineRun.tool("migrate", store.path, "--model", version2.path, "--dry-run")
        XCTAssertEqual(again.status, 0)
        XCTAssertTrue(again.stdout.contains("nothing to migrate"), again.stdout)
    }
}
