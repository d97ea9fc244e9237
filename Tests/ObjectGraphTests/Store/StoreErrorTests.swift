import Foundation
import ObjectGraph
import XCTest

/// Bad input gets typed errors and leaves the file untouched.
final class StoreErrorTests: StoreTestCase {
    private func files(besides url: URL) -> [String] {
        let names = (try? FileManager.default.contentsOfDirectory(atPath: url.deletingLastPathComponent().path)) ?? []
        return names.filter { $0 != url.lastPathComponent }.sorted()
    }

    func testOpeningAFileThatIsNotSQLiteThrowsNotADatabaseAndLeavesItUntouched() throws {
        let url = directory.appendingPathComponent("notes.sqlite")
        let contents = Data(String(repeating: "These are plain notes, not a database.\n", count: 200).utf8)
        try contents.write(to: url)

        XCTAssertThrowsError(try makeContainer(Models.company, url: url)) { error in
            guard let error = error as? StoreError else { return XCTFail("expected StoreError, got \(error)") }
            XCTAssertEqual(error.code, .notADatabase)
            XCTAssertEqual(error.url, url)
            XCTAssertFalse(error.message.isEmpty)
        }
        XCTAssertEqual(try Data(contentsOf: url), contents, "the file is left untouched")
        XCTAssertEqual(files(besides: url), [], "no -wal or -shm file was left behind")
    }

    func testOpeningASQLiteFileWithForeignTablesThrowsNotACoreDataStoreAndLeavesItUntouched() throws {
        let url = directory.appendingPathComponent("foreign.sqlite")
        do {
            let file = try SQLiteFile(url, readOnly: false)
            try file.execute("CREATE TABLE people (name TEXT, age INTEGER); INSERT INTO people VALUES ('Ann', 30), ('Bob', 25);")
        }
        let contents = try Data(contentsOf: url)

        XCTAssertThrowsError(try makeContainer(Models.company, url: url)) { error in
            guard let error = error as? StoreError else { return XCTFail("expected StoreError, got \(error)") }
            XCTAssertEqual(error.code, .notACoreDataStore)
            XCTAssertEqual(error.url, url)
        }
        XCTAssertEqual(files(besides: url), [], "no -wal or -shm file was left behind")
        XCTAssertEqual(try Data(contentsOf: url), contents, "the file's bytes are unchanged")
        let file = try SQLiteFile(url)
        XCTAssertEqual(try file.tableNames(), ["people"], "no Core Data table was added")
        XCTAssertEqual(try file.scalar("SELECT count(*) FROM people"), .integer(2))
        XCTAssertEqual(try file.scalar("PRAGMA journal_mode"), .text("delete"), "the journal mode is unchanged")
    }

    func testAnEmptyFileBecomesANewStore() throws {
        let url = directory.appendingPathComponent("empty.sqlite")
        XCTAssertTrue(FileManager.default.createFile(atPath: url.path, contents: Data()))
        let container = try makeContainer(Models.company, url: url)
        Employee(context: container.viewContext).firstName = "Ann"
        try container.viewContext.save()
        XCTAssertEqual(try SQLiteFile(url).scalar("SELECT count(*) FROM ZEMPLOYEE"), .integer(1))
    }

    func testALocationThatCannotBeWrittenThrowsCannotOpen() throws {
        // Running as root ignores permission bits, so use places no one can write: below a
        // regular file, and inside /proc.
        let blocker = directory.appendingPathComponent("blocker")
        let blockerContents = Data("a file, not a folder".utf8)
        try blockerContents.write(to: blocker)
        let belowAFile = blocker.appendingPathComponent("Store.sqlite")
        XCTAssertThrowsError(try makeContainer(Models.company, url: belowAFile)) { error in
            XCTAssertEqual((error as? StoreError)?.code, .cannotOpen, "\(error)")
            XCTAssertEqual((error as? StoreError)?.url, belowAFile)
        }
        XCTAssertEqual(try Data(contentsOf: blocker), blockerContents)

        let inProc = URL(fileURLWithPath: "/proc/objectgraph-tests-\(UUID().uuidString)/Store.sqlite")
        XCTAssertThrowsError(try makeContainer(Models.company, url: inProc)) { error in
            XCTAssertEqual((error as? StoreError)?.code, .cannotOpen, "\(error)")
        }
    }

    func testAReadOnlyFolderThrowsReadOnlyFolderForANonRootUser() throws {
        try XCTSkipIf(geteuid() == 0, "root ignores permission bits; covered by the /proc case")
        let folder = directory.appendingPathComponent("locked", isDirectory: true)
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        try FileManager.default.setAttributes([.posixPermissions: 0o555], ofItemAtPath: folder.path)
        defer { try? FileManager.default.setAttributes([.posixPermissions: 0o755], ofItemAtPath: folder.path) }
        XCTAssertThrowsError(try makeContainer(Models.company, url: folder.appendingPathComponent("Store.sqlite"))) { error in
            XCTAssertEqual((error as? StoreError)?.code, .readOnlyFolder, "\(error)")
        }
    }

    func testErrorsDescribeThemselves() throws {
        let url = directory.appendingPathComponent("notes.sqlite")
        try Data("plain text".utf8).write(to: url)
        XCTAssertThrowsError(try makeContainer(Models.company, url: url)) { error in
            let text = "\(error)"
            XCTAssertTrue(text.contains("notADatabase"), text)
            XCTAssertTrue(text.contains(url.path), text)
        }
    }
}

/// A `Manager` entity that is a root entity, not a sub-entity of Employee.
final class StandaloneManager: ManagedObject {
    override class var entityName: String { "Manager" }
    @Attribute var level: Int = 1
}
