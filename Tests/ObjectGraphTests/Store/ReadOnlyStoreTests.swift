import Foundation
import ObjectGraph
import XCTest

/// A store that cannot be written says why (read-only file, read-only folder, a directory,
/// no permission), and opens with `options: [.readOnly]`, which never writes a byte.
final class ReadOnlyStoreTests: StoreTestCase {
    /// A store with one employee, "Ann", closed again (so its -wal and -shm are gone).
    private func makeStore(at url: URL) throws {
        let container = try makeContainer(Models.company, url: url)
        Employee(context: container.viewContext).firstName = "Ann"
        try container.viewContext.save()
        container.persistentStoreCoordinator.close()
    }

    private func expectStoreError(_ code: StoreError.Code, mentioning words: [String], file: StaticString = #filePath, line: UInt = #line,
                                  _ body: () throws -> Void) {
        XCTAssertThrowsError(try body(), file: file, line: line) { error in
            guard let error = error as? StoreError else { return XCTFail("expected StoreError, got \(error)", file: file, line: line) }
            XCTAssertEqual(error.code, code, "\(error)", file: file, line: line)
            for word in words { XCTAssertTrue(error.message.contains(word), "\(error.message) should mention \(word)", file: file, line: line) }
        }
    }

    func testADirectoryGivenAsTheStorePathSaysSo() throws {
        let folder = directory.appendingPathComponent("Company.sqlite", isDirectory: true)
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        expectStoreError(.isADirectory, mentioning: ["directory"]) { _ = try makeContainer(Models.company, url: folder) }
        expectStoreError(.isADirectory, mentioning: ["directory"]) {
            _ = try PersistentContainer(name: "Company", entities: Models.company, storeURL: folder, options: [.readOnly])
        }
        XCTAssertEqual(try FileManager.default.contentsOfDirectory(atPath: folder.path), [], "nothing was created in it")
    }

    /// Root ignores permission bits but not the immutable attribute (`chattr +i`).
    func testAnImmutableStoreFileIsReportedReadOnlyAndOpensWithTheReadOnlyOption() throws {
        try assertImmutable(storeURL, makesStore: storeURL, report: .readOnlyFile, mentioning: ["read-only", ".readOnly"])
    }

    func testAStoreInAnImmutableFolderIsReportedReadOnlyAndOpensWithTheReadOnlyOption() throws {
        let folder = directory.appendingPathComponent("archive", isDirectory: true)
        let url = folder.appendingPathComponent("Company.sqlite")
        try assertImmutable(folder, makesStore: url, report: .readOnlyFolder, mentioning: ["folder", ".readOnly"])
        XCTAssertEqual(try FileManager.default.contentsOfDirectory(atPath: folder.path), ["Company.sqlite"], "no -wal or -shm")
    }

    /// With `target` immutable, opening the store at `url` for writing throws `code`, and
    /// opening it read-only reads but never writes.
    private func assertImmutable(_ target: URL, makesStore url: URL, report code: StoreError.Code, mentioning words: [String]) throws {
        try makeStore(at: url)
        let before = try Data(contentsOf: url)
        try Immutable.mark(target)
        defer { Immutable.clear(target) }
        expectStoreError(code, mentioning: words) { _ = try makeContainer(Models.company, url: url) }
        try assertReadOnlyContainerReadsButNeverWrites(url, bytes: before)
    }

    /// Opens `url` read-only: fetches work; a save throws `.readOnly` and the context keeps
    /// its changes; the file keeps its bytes.
    private func assertReadOnlyContainerReadsButNeverWrites(_ url: URL, bytes: Data, file: StaticString = #filePath, line: UInt = #line) throws {
        let container = try PersistentContainer(name: "Company", entities: Models.company, storeURL: url, options: [.readOnly])
        XCTAssertTrue(container.options.contains(.readOnly), file: file, line: line)
        let context = container.viewContext
        let ann = try XCTUnwrap(try context.fetch(FetchRequest<Employee>()).first, file: file, line: line)
        XCTAssertEqual(ann.firstName, "Ann", file: file, line: line)
        ann.firstName = "Anne"
        let bob = Employee(context: context)
        bob.firstName = "Bob"
        expectStoreError(.readOnly, mentioning: ["read-only"], file: file, line: line) { try context.save() }
        XCTAssertTrue(context.hasChanges, "the changes stay pending", file: file, line: line)
        XCTAssertEqual(ann.firstName, "Anne", file: file, line: line)
        XCTAssertTrue(context.insertedObjects.contains(bob), file: file, line: line)
        expectStoreError(.readOnly, mentioning: ["read-only"], file: file, line: line) {
            _ = try context.execute(BatchDeleteRequest(Employee.self))
        }
        XCTAssertEqual(try context.count(for: FetchRequest<Employee>()), 2, "Ann and the unsaved Bob", file: file, line: line)
        container.persistentStoreCoordinator.close()
        XCTAssertEqual(try Data(contentsOf: url), bytes, "the store file was not written", file: file, line: line)
    }

    func testReadOnlyModeNeverMigratesAndSaysSo() throws {
        try makeStore(at: storeURL)
        let before = try SQLiteFile.dump(storeURL)
        expectStoreError(.readOnly, mentioning: ["migrat", ".readOnly"]) {
            _ = try PersistentContainer(name: "Company", entities: Models.company + Models.tickets, storeURL: storeURL, options: [.readOnly])
        }
        XCTAssertEqual(try SQLiteFile.dump(storeURL), before, "no table, column, Z_PRIMARYKEY or Z_METADATA change")
    }

    func testReadOnlyModeDoesNotCreateAMissingStore() throws {
        let url = directory.appendingPathComponent("missing/Company.sqlite")
        expectStoreError(.cannotOpen, mentioning: ["no store", ".readOnly"]) {
            _ = try PersistentContainer(name: "Company", entities: Models.company, storeURL: url, options: [.readOnly])
        }
        XCTAssertFalse(FileManager.default.fileExists(atPath: url.deletingLastPathComponent().path), "no folder was created")
    }

    func testReadOnlyModeSeesWhatAWriterCommits() throws {
        try makeStore(at: storeURL)
        let writer = try makeContainer(Models.company)
        let reader = try PersistentContainer(name: "Company", entities: Models.company, storeURL: storeURL, options: [.readOnly])
        XCTAssertEqual(try reader.viewContext.count(for: FetchRequest<Employee>()), 1)
        Employee(context: writer.viewContext).firstName = "Bob"
        try writer.viewContext.save()
        XCTAssertEqual(try reader.viewContext.count(for: FetchRequest<Employee>()), 2)
    }

    // MARK: Permission bits, which only a user other than root is subject to

    /// Runs as `nobody` (through `setpriv`) when the tests run as root.
    func testPermissionBitsAreReportedForWhatTheyAre() throws {
        let environment = ProcessInfo.processInfo.environment
        if let folder = environment[Unprivileged.folderVariable] {
            return try checkPermissionBits(in: URL(fileURLWithPath: folder, isDirectory: true))
        }
        guard geteuid() == 0 else {
            let folder = directory.appendingPathComponent("bits", isDirectory: true)
            try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
            return try checkPermissionBits(in: folder)
        }
        let output = try Unprivileged.run(test: "ObjectGraphTests.ReadOnlyStoreTests/testPermissionBitsAreReportedForWhatTheyAre", in: directory)
        XCTAssertTrue(output.contains("Executed 1 test, with 0 failures"), output)
        XCTAssertFalse(output.contains("skipped"), output)
    }

    private func checkPermissionBits(in folder: URL) throws {
        let manager = FileManager.default
        func chmod(_ url: URL, _ mode: Int) throws { try manager.setAttributes([.posixPermissions: mode], ofItemAtPath: url.path) }

        // A store file without write permission, in a writable folder.
        let fileURL = folder.appendingPathComponent("file/Company.sqlite")
        try makeStore(at: fileURL)
        try chmod(fileURL, 0o444)
        expectStoreError(.readOnlyFile, mentioning: ["read-only", "chmod", ".readOnly"]) { _ = try makeContainer(Models.company, url: fileURL) }
        XCTAssertEqual(try PersistentContainer(name: "Company", entities: Models.company, storeURL: fileURL, options: [.readOnly])
                        .viewContext.count(for: FetchRequest<Employee>()), 1)

        // A writable store file in a folder without write permission (no -wal, no -shm possible).
        let folderURL = folder.appendingPathComponent("folder/Company.sqlite")
        try makeStore(at: folderURL)
        try chmod(folderURL.deletingLastPathComponent(), 0o555)
        defer { try? chmod(folderURL.deletingLastPathComponent(), 0o755) }
        expectStoreError(.readOnlyFolder, mentioning: ["folder", ".readOnly"]) { _ = try makeContainer(Models.company, url: folderURL) }
        try chmod(folderURL, 0o444)
        try assertReadOnlyContainerReadsButNeverWrites(folderURL, bytes: try Data(contentsOf: folderURL))

        // A store file that cannot even be read.
        let hiddenURL = folder.appendingPathComponent("hidden/Company.sqlite")
        try makeStore(at: hiddenURL)
        try chmod(hiddenURL, 0o000)
        expectStoreError(.permissionDenied, mentioning: ["permission"]) { _ = try makeContainer(Models.company, url: hiddenURL) }
        expectStoreError(.permissionDenied, mentioning: ["permission"]) {
            _ = try PersistentContainer(name: "Company", entities: Models.company, storeURL: hiddenURL, options: [.readOnly])
        }
        expectStoreError(.permissionDenied, mentioning: ["permission"]) {
            _ = try PersistentStoreCoordinator.requiresMigration(model: ManagedObjectModel(entities: Models.company), storeURL: hiddenURL)
        }
    }
}
