import Foundation
import ManagedRecord
import XCTest

/// `setUp` on a store in a folder that cannot be written says so (not "not a database"), and
/// `options: [.readOnly]` reads it without writing.
final class ReadOnlySetUpTests: RecordTestCase {
    private var entities: [ManagedObject.Type] { [Company.self, Person.self, Boss.self] }

    /// `chattr` on `url`: the immutable attribute binds root too.
    private func chattr(_ flag: String, _ url: URL) throws {
        guard FileManager.default.isExecutableFile(atPath: "/usr/bin/chattr") else { throw XCTSkip("no /usr/bin/chattr") }
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/chattr")
        process.arguments = [flag, url.path]
        try process.run()
        process.waitUntilExit()
        if process.terminationStatus != 0 { throw XCTSkip("chattr \(flag) failed: no immutable attribute here") }
    }

    func testSetUpInAFolderThatCannotBeWrittenSaysSoAndReadOnlyWorks() throws {
        Person.newEntity().firstName = "Ann"
        try Person.commit()
        ManagedRecord.tearDown(model: "Staff")
        try chattr("+i", folder)
        defer { try? chattr("-i", folder) }

        XCTAssertThrowsError(try ManagedRecord.setUp(model: "Staff", entities: entities, storeURL: storeURL)) { error in
            XCTAssertEqual((error as? StoreError)?.code, .readOnlyFolder, "\(error)")
        }
        try ManagedRecord.setUp(model: "Staff", entities: entities, storeURL: storeURL, options: [.readOnly])
        XCTAssertEqual(try Person.fetchAll().map(\.firstName), ["Ann"])
        XCTAssertFalse(try Person.doesRequireMigration())
        Person.newEntity().firstName = "Bob"
        XCTAssertThrowsError(try Person.commit()) { error in
            XCTAssertEqual((error as? StoreError)?.code, .readOnly, "\(error)")
        }
        XCTAssertTrue(Person.contextForCurrentThread.hasChanges, "the change stays pending")
        XCTAssertThrowsError(try Person.deleteStore()) { error in
            XCTAssertEqual((error as? StoreError)?.code, .readOnly, "\(error)")
        }
        XCTAssertEqual(try Person.count(), 2, "Ann, and the pending Bob")
        ManagedRecord.tearDown(model: "Staff")
        XCTAssertEqual(try FileManager.default.contentsOfDirectory(atPath: folder.path), ["Staff.sqlite"])
    }
}
