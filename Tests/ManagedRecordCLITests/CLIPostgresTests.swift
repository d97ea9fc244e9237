import Foundation
import ObjectGraph
import ObjectGraphPostgres
import PostgresTestSupport
import XCTest

/// The tool on a PostgreSQL URL: a store written by the library on the test server, read,
/// changed and migrated by the built `managedrecord`. Before, every command refused the URL
/// ("this tool works on SQLite store files only").
final class CLIPostgresTests: XCTestCase {
    private var url = URL(fileURLWithPath: "/")

    override func setUpWithError() throws {
        url = try PostgresTestServer.newDatabase("cli")
        let container = try PersistentContainer(name: "Company", entities: companyEntities, store: .postgres(url))
        try CLITestStores.fillCompany(container.viewContext)
        container.persistentStoreCoordinator.close()
    }

    private var store: String { url.absoluteString }

    func testReadCommandsWorkOnAPostgreSQLURLWithTheModelTheStoreKeeps() throws {
        XCTAssertEqual(try CommandLineRun.tool("count", store, "Employee").succeeded(), "5\n")
        XCTAssertEqual(try CommandLineRun.tool("count", store, "Employee", "age > 40 AND department.name == 'Engineering'").succeeded(), "2\n")
        let fetched = try CommandLineRun.tool("fetch", store, "Employee", "age > 40", "--sort=-age", "--format", "csv").succeeded()
        XCTAssertEqual(fetched.split(separator: "\n").dropFirst().map { $0.split(separator: ",")[1] }, ["Lee", "Jones", "Smith"], fetched)
        XCTAssertEqual(try CommandLineRun.tool("distinct", store, "Employee", "department.name").succeeded(),
                       "department.name\n---------------\nEngineering\nSales\n(2 rows)\n")
        XCTAssertEqual(try CommandLineRun.tool("aggregate", store, "Employee", "max", "age").succeeded(), "58\n")
        let schema = try CommandLineRun.tool("schema", store).succeeded()
        XCTAssertTrue(schema.contains("Employee (4 rows)") && schema.contains("Manager (1 row, sub-entity of Employee)"), schema)
        let exported = try CommandLineRun.tool("export", store, "Department", "--relationships", "omit").succeeded()
        let departments = try XCTUnwrap(JSONSerialization.jsonObject(with: Data(exported.utf8)) as? [[String: Any]])
        XCTAssertEqual(departments.compactMap { $0["name"] as? String }.sorted(), ["Engineering", "Sales"])
    }

    func testCheckSaysWhatItChecksOnAServerAndWhatItCannot() throws {
        let check = try CommandLineRun.tool("check", store)
        XCTAssertEqual(check.status, 0, check.stdout + check.stderr)
        XCTAssertTrue(check.stdout.contains("integrity: not checked"), check.stdout)
        XCTAssertTrue(check.stdout.contains("layout: ok"), check.stdout)
        XCTAssertTrue(check.stdout.contains("the store's own model agrees with its version hashes"), check.stdout)
        XCTAssertTrue(check.stdout.contains("version hashes: match") && check.stdout.contains("migration: not needed"), check.stdout)
        XCTAssertTrue(check.stdout.hasSuffix("ok\n"), check.stdout)
    }

    func testDeleteAndImportChangeTheServerStore() throws {
        XCTAssertEqual(try CommandLineRun.tool("delete", store, "Employee", "--where", "age > 50", "--yes").succeeded(), "deleted 2 Employee objects\n")
        let records = #"[{"firstName": "Dan", "lastName": "Roe", "age": 33, "salary": 40000, "department": "Sales"}]"#
        let imported = try CommandLineRun.tool("import", store, "Employee", "-", "--related-by", "Department=name", input: records).succeeded()
        XCTAssertTrue(imported.hasPrefix("inserted 1, "), imported)
        XCTAssertEqual(try CommandLineRun.tool("count", store, "Employee", "department.name == 'Sales'").succeeded(), "3\n")
        XCTAssertEqual(try CommandLineRun.tool("count", store, "Employee").succeeded(), "4\n")
    }

    func testHistoryCanBeEnabledAndListedOnAServerStore() throws {
        XCTAssertEqual(try CommandLineRun.tool("history", store, "--enable").succeeded(), "the store records persistent history from now on\n")
        try CommandLineRun.tool("delete", store, "Employee", "--where", "lastName == 'Wu'", "--yes").succeeded()
        let history = try CommandLineRun.tool("history", store).succeeded()
        XCTAssertTrue(history.contains("delete Employee p"), history)
        XCTAssertTrue(history.hasSuffix("(1 transaction)\n"), history)
    }

    /// Another program's commits reach `watch` through the server (LISTEN/NOTIFY and the history).
    func testWatchPrintsTheCommitsOfAnotherProgramOnAServerStore() throws {
        XCTAssertEqual(try CommandLineRun.tool("history", store, "--enable").status, 0)
        let watch = try WatchProcess(store: store, arguments: ["Employee", "age > 40"])
        defer { watch.stop() }
        XCTAssertTrue(watch.waitFor("(3 rows)"), watch.text)
        let container = try PersistentContainer(name: "Company", entities: companyEntities, store: .postgres(url), options: [.persistentHistory])
        defer { container.persistentStoreCoordinator.close() }
        let dee = Employee(context: container.viewContext)
        dee.firstName = "Dee"
        dee.age = 61
        try container.viewContext.save()
        XCTAssertTrue(watch.waitFor("+ Employee p\(try XCTUnwrap(dee.objectID.primaryKey)) firstName=Dee"), watch.text)
    }

    /// A password in the URL never appears in what the tool prints, whatever fails.
    func testThePasswordOfTheURLIsNeverPrinted() throws {
        let secret = "Sup3rSecretPw"
        var components = try XCTUnwrap(URLComponents(url: url, resolvingAgainstBaseURL: false))
        components.password = secret
        let withPassword = try XCTUnwrap(components.string)
        var unknownDatabase = components
        unknownDatabase.path = "/no_such_database_here"
        let runs: [[String]] = [
            ["count", withPassword, "Employe"], ["fetch", withPassword, "Employee", "agee > 1"],
            ["count", try XCTUnwrap(unknownDatabase.string), "Employee"], ["count", withPassword + "?schema=other", "Employee"],
            ["migrate", withPassword, "--model", "/nonexistent/New.xcdatamodeld", "--dry-run"],
            ["backup", withPassword, "/tmp/copy.sqlite"], ["restore", "/tmp/copy.sqlite", withPassword],
            ["delete", withPassword, "Employee", "--all"],
        ]
        for arguments in runs {
            let run = try CommandLineRun.tool(arguments: arguments)
            XCTAssertEqual(run.status, 1, "\(arguments[0]): \(run.stderr)")
            XCTAssertTrue(run.stderr.hasPrefix("managedrecord: error: "), "\(arguments[0]): \(run.stderr)")
            XCTAssertFalse(run.stderr.contains(secret) || run.stdout.contains(secret), "\(arguments[0]): \(run.stdout) \(run.stderr)")
        }
        let dryRun = try CommandLineRun.tool("migrate", withPassword, "--model", "/nonexistent/New.xcdatamodeld", "--dry-run")
        XCTAssertTrue(dryRun.stderr.contains("migrate --dry-run is SQLite-only"), "refused before the model is read: \(dryRun.stderr)")
        // The password is used: the store opens with it.
        XCTAssertEqual(try CommandLineRun.tool("count", withPassword, "Employee").succeeded(), "5\n")
    }

    /// A database (or schema) without a store is refused, and none is created in it.
    func testADatabaseWithoutAStoreIsRefusedAndLeftEmpty() throws {
        let empty = try PostgresTestServer.newDatabase("cli_empty")
        for arguments in [["count", empty.absoluteString, "Employee"], ["schema", empty.absoluteString],
                          ["import", empty.absoluteString, "Employee", "-"]] {
            let run = try CommandLineRun.tool(arguments: arguments, input: "[]")
            XCTAssertEqual(run.status, 1, run.stderr)
            XCTAssertTrue(run.stderr.contains("there is no store in the schema coredata"), run.stderr)
        }
        XCTAssertEqual(try PostgresTestServer.psql("SELECT count(*) FROM pg_namespace WHERE nspname = 'coredata'", database: empty), "0")
    }

    func testBackupAndRestoreRefuseAServerStoreSayingWhatToUse() throws {
        let backup = try CommandLineRun.tool("backup", store, "/tmp/never-written.sqlite")
        XCTAssertEqual(backup.status, 1)
        XCTAssertTrue(backup.stderr.contains("backup works on SQLite store files only") && backup.stderr.contains("pg_dump"), backup.stderr)
        XCTAssertFalse(FileManager.default.fileExists(atPath: "/tmp/never-written.sqlite"))
        let restore = try CommandLineRun.tool("restore", "/tmp/never-written.sqlite", store)
        XCTAssertEqual(restore.status, 1)
        XCTAssertTrue(restore.stderr.contains("pg_restore"), restore.stderr)
    }

    /// `--dry-run` (a forecast on a copy of the file) is refused on a server; `migrate`
    /// migrates, and a read with the old model then says to migrate.
    func testMigrateMigratesAServerStoreAndItsDryRunIsRefused() throws {
        let folder = try CLITestStores.folder()
        let version1 = folder.appendingPathComponent("v1.xml"), version2 = folder.appendingPathComponent("v2.xml")
        try CLITestStores.contactModel(#"<attribute name="fullName" optional="YES" attributeType="String"/>"#).write(to: version1)
        try CLITestStores.contactModel(#"<attribute name="fullName" optional="YES" attributeType="String"/><attribute name="starred" optional="YES" attributeType="Boolean" usesScalarValueType="YES"/>"#).write(to: version2)
        let contacts = try PostgresTestServer.newDatabase("cli_contacts")
        let container = try PersistentContainer(name: "Contacts", model: ManagedObjectModel(contentsOf: version1), store: .postgres(contacts))
        try container.viewContext.insertNewObject(forEntityName: "Contact").setValue("Ann", forKey: "fullName")
        try container.viewContext.save()
        container.persistentStoreCoordinator.close()
        let store = contacts.absoluteString

        let dryRun = try CommandLineRun.tool("migrate", store, "--model", version2.path, "--dry-run")
        XCTAssertEqual(dryRun.status, 1)
        XCTAssertEqual(dryRun.stdout, "")
        XCTAssertTrue(dryRun.stderr.contains("migrate --dry-run is SQLite-only") && dryRun.stderr.contains("Nothing was changed"), dryRun.stderr)
        let refused = try CommandLineRun.tool("count", store, "Contact", "--model", version2.path)
        XCTAssertEqual(refused.status, 1)
        XCTAssertTrue(refused.stderr.contains("this command does not migrate it") && refused.stderr.contains("managedrecord migrate"), refused.stderr)

        XCTAssertEqual(try CommandLineRun.tool("migrate", store, "--model", version2.path).succeeded(), "migrated \(store) in 1 step(s)\n")
        XCTAssertEqual(try CommandLineRun.tool("count", store, "Contact", "starred == nil").succeeded(), "1\n")
        XCTAssertEqual(try CommandLineRun.tool("migrate", store, "--model", version2.path).succeeded(), "\(store) already fits the model: nothing to migrate\n")
        let old = try CommandLineRun.tool("count", store, "Contact", "--model", version1.path)
        XCTAssertEqual(old.status, 1)
        XCTAssertTrue(old.stderr.contains("written with another version of the model"), old.stderr)
    }
}
