import Foundation
import ObjectGraph
import XCTest

/// `backup(to:)` while another thread commits, and `restore(storeAt:from:)` (docs/security.md,
/// "Online backup").
final class OnlineBackupTests: StoreTestCase {
    static let batchSize = 10

    /// Employees in batches: batch k holds `batchSize` employees of age k.
    private static func commitBatch(_ batch: Int, in context: ManagedObjectContext) throws {
        for index in 0..<Self.batchSize {
            let employee = Employee(context: context)
            employee.firstName = "batch \(batch) #\(index)"
            employee.age = batch
        }
        try context.save()
    }

    /// Checks that the copy at `url` passes the integrity check and holds exactly batches
    /// 1...k (with `padding` rows of age 0) for some k in `range`; returns k.
    private func committedBatches(in url: URL, padding: Int, within range: ClosedRange<Int>,
                                  file: StaticString = #filePath, line: UInt = #line) throws -> Int {
        let copy = try SQLiteFile(url)
        XCTAssertEqual(try copy.rows("PRAGMA integrity_check"), [[.text("ok")]], file: file, line: line)
        let groups = try copy.rows("SELECT ZAGE, count(*) FROM ZEMPLOYEE GROUP BY ZAGE ORDER BY ZAGE")
        let batches = groups.dropFirst(padding > 0 ? 1 : 0)
        let k = batches.count
        XCTAssertEqual(Array(batches), (0..<k).map { [.integer(Int64($0 + 1)), .integer(Int64(Self.batchSize))] },
                       "the copy holds whole batches 1...k, nothing else", file: file, line: line)
        XCTAssertTrue(range.contains(k), "batch \(k) is not one committed while the backup ran (\(range))", file: file, line: line)
        let rows = Int64(padding + k * Self.batchSize)
        XCTAssertEqual(try copy.rows("SELECT count(*), max(Z_PK) FROM ZEMPLOYEE"), [[.integer(rows), .integer(rows)]], file: file, line: line)
        XCTAssertEqual(try copy.rows("SELECT Z_MAX FROM Z_PRIMARYKEY WHERE Z_NAME = 'Employee'"), [[.integer(rows)]],
                       "Z_PRIMARYKEY is of the same snapshot", file: file, line: line)
        XCTAssertEqual(try copy.rows("SELECT count(*) FROM Z_METADATA"), [[.integer(1)]], file: file, line: line)
        return k
    }

    func testBackupUnderAConcurrentWriterHoldsACommittedState() throws {
        let padding = 20_000
        do {
            let container = try makeContainer()
            for index in 0..<padding {
                let employee = Employee(context: container.viewContext)
                employee.lastName = String(repeating: "p", count: 200) + "\(index)"
            }
            try container.viewContext.save()
            container.persistentStoreCoordinator.close()
        }
        let container = try makeContainer()
        // `begun` counts batches whose save has started, `committed` those whose save returned:
        // a snapshot holds at least the batches committed when the backup began, and at most
        // those begun when it returned.
        let begun = SharedValue(0)
        let committed = SharedValue(0)
        let stop = SharedValue(false)
        let writerError = SharedValue<String?>(nil)
        let writerDone = DispatchSemaphore(value: 0)
        let writer = container.newBackgroundContext()
        Thread {
            var batch = 0
            while !stop.withLock({ $0 }) {
                batch += 1
                begun.withLock { $0 = batch }
                do {
                    try writer.performAndWait { try Self.commitBatch(batch, in: writer) }
                } catch {
                    writerError.withLock { $0 = "batch \(batch): \(error)" }
                    break
                }
                committed.withLock { $0 = batch }
            }
            writerDone.signal()
        }.start()

        @Sendable func waitForCommit(after count: Int, timeout: TimeInterval = 120) {
            let deadline = Date().addingTimeInterval(timeout)
            while committed.withLock({ $0 }) <= count, Date() < deadline { usleep(1_000) }
        }
        waitForCommit(after: 2)
        var snapshots: [Int] = []
        var writtenDuringBackups = 0
        for round in 0..<3 {
            let copy = directory.appendingPathComponent("copies/Copy-\(round).sqlite")
            let before = committed.withLock { $0 }
            let steps = SharedValue<[BackupProgress]>([])
            try container.backup(to: copy) { progress in
                let first = steps.withLock { steps in
                    steps.append(progress)
                    return steps.count == 1
                }
                // Half-way through the first step's pages, let the writer commit again.
                if first { waitForCommit(after: committed.withLock { $0 }, timeout: 120) }
            }
            let after = begun.withLock { $0 }
            writtenDuringBackups += committed.withLock { $0 } - before
            let reports = steps.withLock { $0 }
            XCTAssertGreaterThan(reports.count, 1, "the copy went in steps")
            XCTAssertEqual(reports.last?.completedPages, reports.last?.totalPages)
            XCTAssertEqual(reports.map(\.completedPages), reports.map(\.completedPages).sorted())
            XCTAssertEqual(FilePermissions.octal(FilePermissions.mode(copy.path)), "0600")
            snapshots.append(try committedBatches(in: copy, padding: padding, within: before...after))
            // The copy opens as a store of the model.
            let opened = try makeContainer(url: copy)
            XCTAssertEqual(try opened.viewContext.count(for: FetchRequest<Employee>()), padding + snapshots.last! * Self.batchSize)
            opened.persistentStoreCoordinator.close()
        }
        stop.withLock { $0 = true }
        writerDone.wait()
        XCTAssertNil(writerError.withLock { $0 })
        XCTAssertGreaterThan(writtenDuringBackups, 0, "the writer committed while backups ran")
        XCTAssertEqual(snapshots, snapshots.sorted())
        container.persistentStoreCoordinator.close()
    }

    /// Saves that take the log past its checkpoint threshold (4 MB) while this process backs
    /// the store up do not wait for the backup's read: the checkpoint waits until the
    /// backup is done.
    func testSavesDuringABackupInThisProcessDoNotWaitForIt() throws {
        do {
            let container = try makeContainer()
            for index in 0..<20_000 {
                let employee = Employee(context: container.viewContext)
                employee.lastName = String(repeating: "p", count: 200) + "\(index)"
            }
            try container.viewContext.save()
            container.persistentStoreCoordinator.close()
        }
        let container = try makeContainer()
        let writer = container.newBackgroundContext()
        let written = DispatchSemaphore(value: 0)
        let started = SharedValue(false)
        let savedWhileHeld = SharedValue(false)
        try container.backup(to: directory.appendingPathComponent("Copy.sqlite")) { _ in
            guard !started.withLock({ let was = $0; $0 = true; return was }) else { return }
            // While the backup holds its snapshot: 30 saves of about 250 KB each (7.5 MB of log).
            Thread {
                for _ in 0..<30 {
                    try? writer.performAndWait {
                        for _ in 0..<1000 {
                            let employee = Employee(context: writer)
                            employee.lastName = String(repeating: "w", count: 200)
                        }
                        try writer.save()
                    }
                }
                written.signal()
            }.start()
            // The backup stays in this callback, holding its snapshot, until the saves are
            // done: had a save waited for the backup's read, none would finish (the limit is
            // only there for a broken build to fail by; it measures nothing).
            let finished = written.wait(timeout: .now() + 300) == .success
            savedWhileHeld.withLock { $0 = finished }
        }
        XCTAssertTrue(savedWhileHeld.withLock { $0 }, "the 30 saves finished while the backup held its snapshot")
        XCTAssertEqual(try writer.performAndWait { try writer.count(for: FetchRequest<Employee>()) }, 20_000 + 30_000)
        container.persistentStoreCoordinator.close()
    }

    func testBackupOfAStoreFileFromAnotherContainerAndOfMemory() throws {
        let container = try makeContainer()
        try Self.commitBatch(1, in: container.viewContext)
        let copy = directory.appendingPathComponent("FileCopy.sqlite")
        try PersistentContainer.backup(storeAt: storeURL, to: copy)
        XCTAssertEqual(try committedBatches(in: copy, padding: 0, within: 1...1), 1)

        let memory = try PersistentContainer(name: "Memory", entities: Models.everything, location: .inMemory)
        try Self.commitBatch(1, in: memory.viewContext)
        try Self.commitBatch(2, in: memory.viewContext)
        let memoryCopy = directory.appendingPathComponent("MemoryCopy.sqlite")
        try memory.backup(to: memoryCopy)
        XCTAssertEqual(try committedBatches(in: memoryCopy, padding: 0, within: 2...2), 2)
        container.persistentStoreCoordinator.close()
    }

    func testBackupNeverReplacesAFileAndLeavesNoTemporary() throws {
        let container = try makeContainer()
        try Self.commitBatch(1, in: container.viewContext)
        let copy = directory.appendingPathComponent("Copy.sqlite")
        try Data("precious".utf8).write(to: copy)
        XCTAssertThrowsError(try container.backup(to: copy)) { error in
            XCTAssertEqual((error as? StoreError)?.code, .cannotOpen)
            XCTAssertTrue((error as? StoreError)?.message.contains("never replaces a file") == true, "\(error)")
        }
        XCTAssertEqual(try Data(contentsOf: copy), Data("precious".utf8))
        XCTAssertThrowsError(try container.backup(to: storeURL))
        let names = try FileManager.default.contentsOfDirectory(atPath: directory.path)
        XCTAssertEqual(names.filter { $0.contains(".backup-") }, [])
        container.persistentStoreCoordinator.close()
    }

    func testBackupKeepsTheProcessUmaskWhenAsked() throws {
        try FilePermissions.withUmask(0o022) {
            let container = try PersistentContainer(name: "Test", entities: Models.everything, storeURL: storeURL, options: [.keepsProcessUmask])
            try Self.commitBatch(1, in: container.viewContext)
            let copy = directory.appendingPathComponent("new/Copy.sqlite")
            try container.backup(to: copy)
            XCTAssertEqual(FilePermissions.octal(FilePermissions.mode(copy.path)), "0644")
            XCTAssertEqual(FilePermissions.octal(FilePermissions.mode(copy.deletingLastPathComponent().path)), "0755")
            let owned = directory.appendingPathComponent("owned/Copy.sqlite")
            try PersistentContainer.backup(storeAt: storeURL, to: owned)
            XCTAssertEqual(FilePermissions.octal(FilePermissions.mode(owned.path)), "0600")
            XCTAssertEqual(FilePermissions.octal(FilePermissions.mode(owned.deletingLastPathComponent().path)), "0700")
            container.persistentStoreCoordinator.close()
        }
    }

    func testRestoreIsRefusedWhileTheStoreIsOpen() throws {
        let container = try makeContainer()
        try Self.commitBatch(1, in: container.viewContext)
        let copy = directory.appendingPathComponent("Copy.sqlite")
        try container.backup(to: copy)
        try Self.commitBatch(2, in: container.viewContext)
        // Open and idle, in this process (another container) or through any connection.
        XCTAssertThrowsError(try PersistentContainer.restore(storeAt: storeURL, from: copy)) { error in
            XCTAssertEqual((error as? StoreError)?.code, .locked, "\(error)")
            XCTAssertTrue((error as? StoreError)?.message.contains("open in another process") == true, "\(error)")
        }
        XCTAssertEqual(try container.viewContext.count(for: FetchRequest<Employee>()), 2 * Self.batchSize)
        container.persistentStoreCoordinator.close()
        let reopened = try makeContainer()
        XCTAssertEqual(try reopened.viewContext.count(for: FetchRequest<Employee>()), 2 * Self.batchSize, "nothing was restored")
        reopened.persistentStoreCoordinator.close()
    }

    func testRestorePutsTheCopyBackAndTheStoreKeepsItsMode() throws {
        let container = try makeContainer()
        try Self.commitBatch(1, in: container.viewContext)
        let uuid = container.persistentStoreCoordinator.storeIdentifier
        let copy = directory.appendingPathComponent("Copy.sqlite")
        try container.backup(to: copy)
        try Self.commitBatch(2, in: container.viewContext)
        container.persistentStoreCoordinator.close()
        chmod(storeURL.path, 0o640)

        let reports = SharedValue<[BackupProgress]>([])
        try PersistentContainer.restore(storeAt: storeURL, from: copy) { progress in reports.withLock { $0.append(progress) } }
        XCTAssertEqual(reports.withLock { $0.last.map { $0.completedPages == $0.totalPages } }, true)
        XCTAssertEqual(FilePermissions.octal(FilePermissions.mode(storeURL.path)), "0640")
        XCTAssertEqual(try committedBatches(in: storeURL, padding: 0, within: 1...1), 1)
        let restored = try makeContainer()
        XCTAssertEqual(restored.persistentStoreCoordinator.storeIdentifier, uuid)
        XCTAssertEqual(try restored.viewContext.count(for: FetchRequest<Employee>()), Self.batchSize)
        try Self.commitBatch(2, in: restored.viewContext)
        restored.persistentStoreCoordinator.close()

        // Restoring where there is no store writes an owner-only file.
        let fresh = directory.appendingPathComponent("elsewhere/Fresh.sqlite")
        try FilePermissions.withUmask(0o022) { try PersistentContainer.restore(storeAt: fresh, from: copy) }
        XCTAssertEqual(FilePermissions.octal(FilePermissions.mode(fresh.path)), "0600")
        XCTAssertEqual(try committedBatches(in: fresh, padding: 0, within: 1...1), 1)
    }

    func testRestoreRefusesACopyThatIsNotASoundStore() throws {
        let container = try makeContainer()
        for batch in 1...30 { try Self.commitBatch(batch, in: container.viewContext) }
        let copy = directory.appendingPathComponent("Copy.sqlite")
        try container.backup(to: copy)
        container.persistentStoreCoordinator.close()
        // Damage the header (its page type) of every page after the schema's.
        var bytes = try Data(contentsOf: copy)
        XCTAssertGreaterThan(bytes.count, 4 * 4096)
        for page in 1..<(bytes.count / 4096) { bytes[page * 4096] = 0x07 }
        try bytes.write(to: copy)
        let before = try Data(contentsOf: storeURL)
        XCTAssertThrowsError(try PersistentContainer.restore(storeAt: storeURL, from: copy)) { error in
            XCTAssertEqual((error as? StoreError)?.code, .notADatabase, "\(error)")
        }
        XCTAssertEqual(try Data(contentsOf: storeURL), before, "the store was not touched")

        let notAStore = directory.appendingPathComponent("Other.sqlite")
        let other = try SQLiteFile(notAStore, readOnly: false)
        _ = try other.rows("CREATE TABLE t (x)")
        XCTAssertThrowsError(try PersistentContainer.restore(storeAt: storeURL, from: notAStore)) { error in
            XCTAssertEqual((error as? StoreError)?.code, .notACoreDataStore, "\(error)")
        }
    }
}
