import Foundation
import ObjectGraph
import XCTest

final class SecurityNoteV1: ManagedObject {
    override class var entityName: String { "Note" }
    @Attribute var number: Int = 0
    @Attribute var body: String = ""
}

final class SecurityNoteV2: ManagedObject {
    override class var entityName: String { "Note" }
    @Attribute var number: Int = 0
    @Attribute var body: String = ""
    @Attribute var pinned: Bool = false
}

/// Stores, their companions, migration copies and folders the library creates are
/// owner-only whatever the umask; `.keepsProcessUmask` keeps the umask; another user
/// cannot read them (docs/security.md, "Owner-only files").
final class OwnerOnlyFileTests: StoreTestCase {
    /// Saves a few employees so that the store has its -wal and -shm.
    private func fill(_ container: PersistentContainer, count: Int = 5) throws {
        for number in 0..<count {
            let employee = Employee(context: container.viewContext)
            employee.firstName = "Person \(number)"
        }
        try container.viewContext.save()
    }

    func testNewStoreItsCompanionsAndItsFoldersAreOwnerOnlyUnderAPermissiveUmask() throws {
        let url = directory.appendingPathComponent("a/b/Store.sqlite")
        try FilePermissions.withUmask(0o022) {
            let container = try makeContainer(url: url)
            try fill(container)
            for suffix in ["", "-wal", "-shm"] {
                XCTAssertEqual(FilePermissions.octal(FilePermissions.mode(url.path + suffix)), "0600", "Store.sqlite\(suffix)")
            }
            for folder in ["a", "a/b"] {
                XCTAssertEqual(FilePermissions.octal(FilePermissions.mode(directory.appendingPathComponent(folder).path)), "0700", folder)
            }
            container.persistentStoreCoordinator.close()
        }
    }

    /// A rollback-journal store (as Apple's Core Data or the sqlite3 shell may leave one) gets
    /// an owner-only -journal from the store's own mode.
    func testJournalOfAnOwnerOnlyStoreIsOwnerOnly() throws {
        try FilePermissions.withUmask(0o022) {
            let container = try makeContainer()
            try fill(container)
            container.persistentStoreCoordinator.close()
            let file = try SQLiteFile(storeURL, readOnly: false)
            _ = try file.rows("PRAGMA journal_mode = DELETE")
            _ = try file.rows("PRAGMA locking_mode = EXCLUSIVE")
            _ = try file.rows("BEGIN IMMEDIATE")
            _ = try file.rows("UPDATE ZEMPLOYEE SET ZAGE = ZAGE + 1")
            XCTAssertEqual(FilePermissions.octal(FilePermissions.mode(storeURL.path + "-journal")), "0600")
            _ = try file.rows("COMMIT")
        }
    }

    func testContainerDefaultFolderIsOwnerOnly() throws {
        let data = directory.appendingPathComponent("xdg/data")
        let old = ProcessInfo.processInfo.environment["XDG_DATA_HOME"]
        setenv("XDG_DATA_HOME", data.path, 1)
        defer { if let old { setenv("XDG_DATA_HOME", old, 1) } else { unsetenv("XDG_DATA_HOME") } }
        try FilePermissions.withUmask(0o022) {
            let container = try PersistentContainer(name: "Owned", entities: Models.company)
            try fill(container)
            let url = try XCTUnwrap(container.storeURL)
            XCTAssertEqual(url.path, data.path + "/Owned/Owned.sqlite")
            for path in [directory.appendingPathComponent("xdg").path, data.path, data.path + "/Owned"] {
                XCTAssertEqual(FilePermissions.octal(FilePermissions.mode(path)), "0700", path)
            }
            for suffix in ["", "-wal", "-shm"] {
                XCTAssertEqual(FilePermissions.octal(FilePermissions.mode(url.path + suffix)), "0600", "Owned.sqlite\(suffix)")
            }
            container.persistentStoreCoordinator.close()
        }
    }

    func testKeepsProcessUmaskCreatesWithTheUmask() throws {
        let open = directory.appendingPathComponent("open/Store.sqlite")
        let closed = directory.appendingPathComponent("closed/Store.sqlite")
        for (url, mask, file, folder) in [(open, mode_t(0o022), "0644", "0755"), (closed, mode_t(0o077), "0600", "0700")] {
            try FilePermissions.withUmask(mask) {
                let container = try PersistentContainer(name: "Test", entities: Models.company, storeURL: url, options: [.keepsProcessUmask])
                try fill(container)
                for suffix in ["", "-wal", "-shm"] {
                    XCTAssertEqual(FilePermissions.octal(FilePermissions.mode(url.path + suffix)), file, "umask \(FilePermissions.octal(mask)): Store.sqlite\(suffix)")
                }
                XCTAssertEqual(FilePermissions.octal(FilePermissions.mode(url.deletingLastPathComponent().path)), folder)
                container.persistentStoreCoordinator.close()
            }
        }
    }

    func testExistingFilesAreNeverChanged() throws {
        try FilePermissions.withUmask(0o022) {
            let container = try PersistentContainer(name: "Test", entities: Models.company, storeURL: storeURL, options: [.keepsProcessUmask])
            try fill(container)
            container.persistentStoreCoordinator.close()
            chmod(storeURL.path, 0o640)
            chmod(directory.path, 0o750)
            let reopened = try makeContainer()
            try fill(reopened)
            XCTAssertEqual(FilePermissions.octal(FilePermissions.mode(storeURL.path)), "0640")
            XCTAssertEqual(FilePermissions.octal(FilePermissions.mode(directory.path)), "0750")
            reopened.persistentStoreCoordinator.close()
        }
    }

    func testMigrationCopyIsOwnerOnlyAndTheStoreKeepsItsMode() throws {
        try FilePermissions.withUmask(0o022) {
            let first = try PersistentContainer(name: "Notes", entities: [SecurityNoteV1.self], storeURL: storeURL)
            for number in 0..<50 {
                let note = SecurityNoteV1(context: first.viewContext)
                note.number = number
                note.body = "note \(number)"
            }
            try first.viewContext.save()
            first.persistentStoreCoordinator.close()
            chmod(storeURL.path, 0o640)   // the owner let the group read it: a migration keeps that

            let folder = directory
            let copies = SharedValue<[String: String]>([:])
            let model = try ManagedObjectModel(entities: [SecurityNoteV2.self])
            let second = try PersistentContainer(name: "Notes", model: model, location: .file(storeURL), migrationProgress: { _ in
                let names = (try? FileManager.default.contentsOfDirectory(atPath: folder.path)) ?? []
                for name in names where name.contains(".migrating-") {
                    let mode = FilePermissions.octal(FilePermissions.mode(folder.appendingPathComponent(name).path))
                    copies.withLock { $0[name] = mode }
                }
            })
            let seen = copies.withLock { $0 }
            XCTAssertFalse(seen.isEmpty, "the migration ran and its copy was seen")
            for (name, mode) in seen {
                XCTAssertEqual(mode, "0600", name)
            }
            XCTAssertEqual(try second.viewContext.count(for: FetchRequest<SecurityNoteV2>()), 50)
            XCTAssertEqual(FilePermissions.octal(FilePermissions.mode(storeURL.path)), "0640", "the migrated store keeps the store's mode")
            second.persistentStoreCoordinator.close()
        }
    }

    /// Another user (nobody) cannot read the store or its -wal; a file that is readable by
    /// others, in the same folder, shows that the check would see a readable file.
    func testAnotherUserCannotReadTheStore() throws {
        try FilePermissions.withUmask(0o022) {
            chmod(directory.path, 0o755)
            let container = try makeContainer()
            try fill(container)
            for suffix in ["", "-wal", "-shm"] {
                XCTAssertEqual(FilePermissions.octal(FilePermissions.mode(storeURL.path + suffix)), "0600", "Store.sqlite\(suffix)")
            }
            let control = directory.appendingPathComponent("readable.txt")
            try Data("x".utf8).write(to: control)
            chmod(control.path, 0o644)
            guard let controlRead = try FilePermissions.nobodyCanRead(control.path) else {
                container.persistentStoreCoordinator.close()
                throw XCTSkip("this process (uid \(geteuid())) cannot run a command as another user (it needs root and setpriv); the modes above were checked, the read as another user was not")
            }
            XCTAssertTrue(controlRead.readable, "nobody reads a 0644 file in the same folder: \(controlRead.output)")
            for suffix in ["", "-wal"] {
                let attempt = try XCTUnwrap(try FilePermissions.nobodyCanRead(storeURL.path + suffix))
                XCTAssertFalse(attempt.readable, "user nobody read Store.sqlite\(suffix)")
                XCTAssertTrue(attempt.output.contains("Permission denied"), attempt.output)
            }
            container.persistentStoreCoordinator.close()
        }
    }

    func testOpeningAStoreOthersCanReadWarnsOncePerPath() throws {
        try FilePermissions.withUmask(0o022) {
            let container = try PersistentContainer(name: "Test", entities: Models.company, storeURL: storeURL, options: [.keepsProcessUmask])
            try fill(container)
            container.persistentStoreCoordinator.close()
            XCTAssertEqual(StoreFileExposure.files(ofStoreAt: storeURL).map(\.octalMode), ["0644"])
            let output = try FilePermissions.capturingStandardError {
                for _ in 0..<2 {
                    let opened = try makeContainer()
                    opened.persistentStoreCoordinator.close()
                }
                let readOnly = try PersistentContainer(name: "Test", entities: Models.everything, storeURL: storeURL, options: [.readOnly])
                readOnly.persistentStoreCoordinator.close()
            }
            let warnings = output.split(separator: "\n").filter { $0.contains("other users of this machine may read the store") }
            XCTAssertEqual(warnings.count, 1, output)
            XCTAssertTrue(warnings.first?.contains(storeURL.path) == true, output)
            XCTAssertTrue(warnings.first?.contains("warning") == true, output)

            // An owner-only store is opened without a word.
            let other = directory.appendingPathComponent("Private.sqlite")
            let quiet = try FilePermissions.capturingStandardError {
                for _ in 0..<2 {
                    let opened = try makeContainer(url: other)
                    try fill(opened)
                    opened.persistentStoreCoordinator.close()
                }
            }
            XCTAssertFalse(quiet.contains("other users of this machine"), quiet)
            XCTAssertEqual(StoreFileExposure.files(ofStoreAt: other), [])
        }
    }
}
