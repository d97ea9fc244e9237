import Foundation
import ObjectGraph
import XCTest

final class PersistentContainerTests: StoreTestCase {
    /// Runs `body` with XDG_DATA_HOME set to `value` (unset for nil), restoring it afterwards.
    private func withXDGDataHome<T>(_ value: String?, _ body: () throws -> T) rethrows -> T {
        let saved = getenv("XDG_DATA_HOME").map { String(cString: $0) }
        if let value { setenv("XDG_DATA_HOME", value, 1) } else { unsetenv("XDG_DATA_HOME") }
        defer {
            if let saved { setenv("XDG_DATA_HOME", saved, 1) } else { unsetenv("XDG_DATA_HOME") }
        }
        return try body()
    }

    func testTheDefaultLocationHonoursXDGDataHome() throws {
        let dataHome = directory.appendingPathComponent("xdg-data", isDirectory: true)
        let expected = dataHome.appendingPathComponent("Company").appendingPathComponent("Company.sqlite")
        try withXDGDataHome(dataHome.path) {
            XCTAssertEqual(PersistentContainer.defaultStoreURL(name: "Company").standardizedFileURL.path, expected.path)
            let container = try PersistentContainer(name: "Company", entities: Models.company)
            XCTAssertEqual(container.storeURL?.standardizedFileURL.path, expected.path)
            Employee(context: container.viewContext).firstName = "Ann"
            try container.viewContext.save()
        }
        XCTAssertTrue(FileManager.default.fileExists(atPath: expected.path), "folders are created and the store written there")
        XCTAssertEqual(try SQLiteFile(expected).scalar("SELECT ZFIRSTNAME FROM ZEMPLOYEE"), .text("Ann"))
    }

    func testWithoutXDGDataHomeTheDefaultLocationIsUnderTheHomeFolder() throws {
        let home = FileManager.default.homeDirectoryForCurrentUser
        let url = withXDGDataHome(nil) { PersistentContainer.defaultStoreURL(name: "Company") }
        XCTAssertEqual(url.standardizedFileURL.path,
                       home.appendingPathComponent(".local/share/Company/Company.sqlite").standardizedFileURL.path)
        let relative = withXDGDataHome("relative/path") { PersistentContainer.defaultStoreURL(name: "Company") }
        XCTAssertEqual(relative.standardizedFileURL.path, url.standardizedFileURL.path,
                       "a relative XDG_DATA_HOME is ignored, as the XDG spec says")
    }

    func testAnInMemoryStoreSavesAndFetchesAndLeavesNoFile() throws {
        let container = try PersistentContainer(name: "Memory", entities: Models.company, location: .inMemory)
        XCTAssertNil(container.storeURL)
        let context = container.viewContext
        let sales = Department(context: context)
        sales.name = "Sales"
        let ann = Employee(context: context)
        ann.department = sales
        try context.save()
        XCTAssertFalse(ann.objectID.isTemporaryID)
        XCTAssertEqual(try context.count(for: FetchRequest<Employee>()), 1)
        context.reset()
        let fetched = try XCTUnwrap(fetchAll(Department.self, in: context).first)
        XCTAssertEqual(fetched.name, "Sales")
        XCTAssertEqual(fetched.employees.count, 1)

        let other = try PersistentContainer(name: "Memory", entities: Models.company, location: .inMemory)
        XCTAssertEqual(try other.viewContext.count(for: FetchRequest<Employee>()), 0, "each in-memory store is its own")
        XCTAssertNotEqual(other.persistentStoreCoordinator.storeIdentifier, container.persistentStoreCoordinator.storeIdentifier)
    }

    func testAnExplicitStoreURLCreatesMissingFolders() throws {
        let url = directory.appendingPathComponent("a/b/c/Deep.sqlite")
        let container = try PersistentContainer(name: "Deep", entities: Models.company, storeURL: url)
        XCTAssertEqual(container.storeURL, url)
        XCTAssertEqual(container.name, "Deep")
        XCTAssertTrue(FileManager.default.fileExists(atPath: url.path))
    }

    func testReopeningAStoreKeepsItsIdentifier() throws {
        let first = try makeContainer(Models.company).persistentStoreCoordinator.storeIdentifier
        let second = try makeContainer(Models.company).persistentStoreCoordinator.storeIdentifier
        XCTAssertEqual(first, second)
        XCTAssertEqual(try SQLiteFile(storeURL).scalar("SELECT Z_UUID FROM Z_METADATA"), .text(first))
    }
}
