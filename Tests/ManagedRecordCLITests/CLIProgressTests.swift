import Foundation
import ObjectGraph
import XCTest

/// export, import and delete report progress on standard error when it is a terminal (done
/// of total, rate, time left), and stay quiet in a pipe.
final class CLIProgressTests: XCTestCase {
    func testProgressIsShownOnATerminalOnly() throws {
        let folder = try CLITestStores.folder()
        let store = try CLITestStores.company(in: folder).path
        let file = folder.appendingPathComponent("employees.json").path

        let piped = try CommandLineRun.tool("export", store, "Employee", "--relationships", "omit", "--output", file)
        XCTAssertEqual(piped.status, 0, piped.stderr)
        XCTAssertEqual(piped.stderr, "", "nothing but the result in a pipe")
        XCTAssertEqual(piped.stdout, "", "the export went to the file")

        let exported = try CommandLineRun.onTerminal(["export", store, "Employee", "--relationships", "omit", "--output", file])
        XCTAssertEqual(exported.status, 0, exported.stdout)
        XCTAssertTrue(exported.stdout.contains("exported 5 Employee objects in "), exported.stdout)
        XCTAssertTrue(exported.stdout.contains("/s)"), "the rate: \(exported.stdout)")

        let target = try CLITestStores.company(in: CLITestStores.folder()).path
        let imported = try CommandLineRun.onTerminal(["import", target, "Employee", file, "--batch-size", "2"])
        XCTAssertEqual(imported.status, 0, imported.stdout)
        XCTAssertTrue(imported.stdout.contains("imported 2 of 5 Employee records, ") && imported.stdout.contains("imported 4 of 5"), imported.stdout)
        XCTAssertTrue(imported.stdout.contains(" left"), "the time left: \(imported.stdout)")
        XCTAssertTrue(imported.stdout.contains("imported 5 Employee records in "), imported.stdout)
        XCTAssertTrue(imported.stdout.contains("inserted 5, updated 0, skipped 0"), imported.stdout)
        let quiet = try CommandLineRun.tool("import", target, "Employee", file, "--batch-size", "2")
        XCTAssertEqual(quiet.stderr, "", "no progress in a pipe")
        XCTAssertEqual(quiet.stdout, "inserted 5, updated 0, skipped 0\n")
    }

    func testDeleteSaysWhatItIsDeletingOnATerminalOnly() throws {
        let store = try CLITestStores.company(in: CLITestStores.folder()).path
        let deleted = try CommandLineRun.onTerminal(["delete", store, "Employee", "--where", "age > 50", "--yes"])
        XCTAssertEqual(deleted.status, 0, deleted.stdout)
        XCTAssertTrue(deleted.stdout.contains("deleting 2 Employee objects..."), deleted.stdout)
        XCTAssertTrue(deleted.stdout.contains("deleted 2 Employee objects"), deleted.stdout)
        let piped = try CommandLineRun.tool("delete", store, "Employee", "--where", "age < 30", "--yes")
        XCTAssertEqual(piped.stderr, "")
        XCTAssertEqual(piped.stdout, "deleted 1 Employee object\n")
    }

    func testMigrateShowsItsProgressOnATerminal() throws {
        let folder = try CLITestStores.folder()
        let version1 = folder.appendingPathComponent("v1.xml")
        let version2 = folder.appendingPathComponent("v2.xml")
        for (file, attribute) in [(version1, "name"), (version2, "title")] {
            try Data("""
                <?xml version="1.0" encoding="UTF-8" standalone="yes"?>
                <model type="com.apple.IDECoreDataModeler.DataModel" documentVersion="1.0" systemVersion="1" minimumToolsVersion="Automatic" sourceLanguage="Swift" userDefinedModelVersionIdentifier="">
                <entity name="Note" representedClassName="Note" syncable="YES">
                <attribute name="\(attribute)" optional="YES" attributeType="String"\(attribute == "title" ? #" elementID="name""# : "")/>
                </entity>
                </model>
                """.utf8).write(to: file)
        }
        let store = folder.appendingPathComponent("Notes.sqlite")
        let container = try PersistentContainer(name: "Notes", model: ManagedObjectModel(contentsOf: version1), storeURL: store)
        for index in 0..<3 { try container.viewContext.insertNewObject(forEntityName: "Note").setValue("note \(index)", forKey: "name") }
        try container.viewContext.save()
        container.persistentStoreCoordinator.close()

        let migrated = try CommandLineRun.onTerminal(["migrate", store.path, "--model", version2.path])
        XCTAssertEqual(migrated.status, 0, migrated.stdout)
        XCTAssertTrue(migrated.stdout.contains("migrating: 3 of 3 rows (100%), Note"), migrated.stdout)
        XCTAssertTrue(migrated.stdout.contains("migrated \(store.path) in 1 step(s)"), migrated.stdout)
    }
}
