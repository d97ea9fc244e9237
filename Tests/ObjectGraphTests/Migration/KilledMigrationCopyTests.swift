import Foundation
import ObjectGraph
import XCTest

/// A migration killed before it finished leaves its copy of the store (as large as the store)
/// in the folder; the next open removes it, and never touches other files.
final class KilledMigrationCopyTests: StoreTestCase {
    func testTheNextOpenRemovesTheCopyOfAKilledMigrationAndNothingElse() throws {
        do {
            let container = try makeContainer(Models.company)
            Employee(context: container.viewContext).firstName = "Ann"
            try container.viewContext.save()
            container.persistentStoreCoordinator.close()
        }
        let copy = directory.appendingPathComponent(".Store.sqlite.migrating-\(UUID().uuidString)")
        let other = directory.appendingPathComponent(".Other.sqlite.migrating-\(UUID().uuidString)")
        for file in [copy, URL(fileURLWithPath: copy.path + "-journal"), other] {
            XCTAssertTrue(FileManager.default.createFile(atPath: file.path, contents: Data(repeating: 7, count: 4096)))
        }
        let container = try makeContainer(Models.company)
        XCTAssertEqual(try container.viewContext.count(for: FetchRequest<Employee>()), 1)
        XCTAssertFalse(FileManager.default.fileExists(atPath: copy.path), "the killed migration's copy is removed")
        XCTAssertFalse(FileManager.default.fileExists(atPath: copy.path + "-journal"), "and its journal")
        XCTAssertTrue(FileManager.default.fileExists(atPath: other.path), "another store's files are left alone")
    }
}
