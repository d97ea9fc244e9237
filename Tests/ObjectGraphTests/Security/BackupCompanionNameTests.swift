import Foundation
import ObjectGraph
import XCTest

/// A backup is never written, nor a restore read, under the name of a store's `-wal`, `-shm`
/// or `-journal` (docs/security.md, "Online backup"): SQLite takes such a file for that
/// store's log, and the store's next open deletes it.
final class BackupCompanionNameTests: StoreTestCase {
    private func saveEmployees(_ count: Int, in container: PersistentContainer) throws {
        for index in 0..<count {
            let employee = Employee(context: container.viewContext)
            employee.firstName = "employee \(index)"
        }
        try container.viewContext.save()
    }

    private func employees(in url: URL) throws -> Int {
        let container = try makeContainer(url: url)
        defer { container.persistentStoreCoordinator.close() }
        return try container.viewContext.count(for: FetchRequest<Employee>())
    }

    private func assertRefused(_ name: String, _ operation: () throws -> Void, file: StaticString = #filePath, line: UInt = #line) {
        XCTAssertThrowsError(try operation(), name, file: file, line: line) { error in
            let error = error as? StoreError
            XCTAssertEqual(error?.code, .cannotOpen, "\(String(describing: error))", file: file, line: line)
            XCTAssertTrue(error?.message.contains(name) == true, "names the path: \(String(describing: error))", file: file, line: line)
        }
    }

    /// Before: each of these backups was written and returned; opening the store then deleted
    /// the copy as a damaged log.
    func testABackupNamedAsAStoresCompanionIsRefusedBeforeAnythingIsWritten() throws {
        let container = try makeContainer()
        try saveEmployees(3, in: container)
        let other = directory.appendingPathComponent("Other.sqlite")
        try container.backup(to: other)
        let companions = ["-wal", "-shm", "-journal"]
        let names = companions.map { storeURL.path + $0 } + companions.map { other.path + $0 }
            + [directory.path + "/./Other.sqlite-wal"]
        // The open store's own -wal and -shm exist: refused as existing files, as before.
        for name in names where !FileManager.default.fileExists(atPath: name) {
            assertRefused(name) { try container.backup(to: URL(fileURLWithPath: name)) }
            XCTAssertFalse(FileManager.default.fileExists(atPath: name), "nothing was written at \(name)")
        }
        container.persistentStoreCoordinator.close()
        for name in names {
            XCTAssertFalse(FileManager.default.fileExists(atPath: name), name)
            assertRefused(name) { try PersistentContainer.backup(storeAt: storeURL, to: URL(fileURLWithPath: name)) }
            XCTAssertFalse(FileManager.default.fileExists(atPath: name), "nothing was written at \(name)")
        }
        XCTAssertEqual(try employees(in: storeURL), 3)
        XCTAssertEqual(try employees(in: other), 3)
        let left = try FileManager.default.contentsOfDirectory(atPath: directory.path)
        XCTAssertEqual(left.filter { $0.contains(".backup-") }, [], "no temporary is left")
    }

    /// Before: restoring from a copy renamed as the store's `-wal` went through, and the copy
    /// was gone afterwards (the store's open took it for its log).
    func testARestoreFromACopyNamedAsAStoresCompanionIsRefused() throws {
        let container = try makeContainer()
        try saveEmployees(3, in: container)
        let copy = directory.appendingPathComponent("Copy.sqlite")
        try container.backup(to: copy)
        let other = directory.appendingPathComponent("Other.sqlite")
        try container.backup(to: other)
        try saveEmployees(2, in: container)
        container.persistentStoreCoordinator.close()
        let copied = try Data(contentsOf: copy)
        let fresh = directory.appendingPathComponent("Fresh.sqlite")
        let cases = [(storeURL, storeURL.path + "-wal"), (storeURL, storeURL.path + "-journal"),
                     (storeURL, other.path + "-wal"), (fresh, fresh.path + "-wal")]
        for (store, name) in cases {
            try FileManager.default.moveItem(atPath: copy.path, toPath: name)
            assertRefused(name) { try PersistentContainer.restore(storeAt: store, from: URL(fileURLWithPath: name)) }
            XCTAssertEqual(FileManager.default.contents(atPath: name), copied, "the copy at \(name) is untouched")
            try FileManager.default.moveItem(atPath: name, toPath: copy.path)
        }
        XCTAssertFalse(FileManager.default.fileExists(atPath: fresh.path), "no store was written")
        XCTAssertEqual(try employees(in: storeURL), 5, "nothing was restored")
        try PersistentContainer.restore(storeAt: storeURL, from: copy)
        XCTAssertEqual(try employees(in: storeURL), 3, "the copy under its own name restores")
    }
}
