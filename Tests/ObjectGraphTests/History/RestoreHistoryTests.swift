import Foundation
@testable import ObjectGraph
import XCTest

/// A restore and the persistent history, the page size and the stores open elsewhere
/// (`PersistentContainer.restore(storeAt:from:)`, docs/history.md, docs/security.md).
final class RestoreHistoryTests: StoreTestCase {
    /// Saves a department named `name` with `author` as the transaction's author.
    private func save(_ name: String, in container: PersistentContainer) throws {
        let context = container.viewContext
        context.transactionAuthor = name
        Department(context: context).name = name
        try context.save()
    }

    private func historyContainer() throws -> PersistentContainer {
        try PersistentContainer(name: "History", entities: Models.company, storeURL: storeURL, options: [.persistentHistory])
    }

    /// The store with departments `saved`, backed up, then one more department `then`,
    /// closed; returns the backup.
    private func backedUpStore(saved: [String], then later: String) throws -> URL {
        let container = try makeContainer(Models.company)
        for name in saved { Department(context: container.viewContext).name = name }
        try container.viewContext.save()
        let copy = directory.appendingPathComponent("Copy.sqlite")
        try container.backup(to: copy)
        Department(context: container.viewContext).name = later
        try container.viewContext.save()
        container.persistentStoreCoordinator.close()
        return copy
    }

    private func assertExpired(_ token: HistoryToken, in container: PersistentContainer, file: StaticString = #filePath, line: UInt = #line) {
        XCTAssertThrowsError(try container.history(after: token), "token \(token)", file: file, line: line) { error in
            XCTAssertEqual((error as? HistoryError)?.code, .expiredToken, "\(error)", file: file, line: line)
        }
    }

    func testEveryTokenTakenBeforeARestoreIsExpiredNoneSkipsWhatCameAfter() throws {
        let container = try historyContainer()
        for name in ["A", "B", "C"] { try save(name, in: container) }
        let copy = directory.appendingPathComponent("Copy.sqlite")
        try container.backup(to: copy)
        for name in ["D", "E"] { try save(name, in: container) }
        let before = try container.history(after: nil)
        XCTAssertEqual(before.map(\.author), ["A", "B", "C", "D", "E"])
        let tokens = before.map(\.token)
        container.persistentStoreCoordinator.close()

        try PersistentContainer.restore(storeAt: storeURL, from: copy)
        let restored = try historyContainer()
        let back = try restored.history(after: nil)
        XCTAssertEqual(back.map(\.author), ["A", "B", "C"], "the copy's history is back")
        // Read after the restore, the restored transactions' tokens read on (with the gap left
        // below the copy's numbers, C's token, read again after the restore, was expired and a
        // reader starting over never got past it: the history oracle, seed 500000).
        XCTAssertEqual(try restored.history(after: try XCTUnwrap(back.last).token).map(\.author), [])
        XCTAssertGreaterThan(back[0].token.transactionNumber, tokens[4].transactionNumber + 1, "restored transactions are renumbered past the old ones")
        for name in ["F", "G"] { try save(name, in: restored) }
        // Before the restore numbered on past the store's numbers, F and G took 4 and 5: a
        // reader at E's token (5) read nothing after it, with no error, and missed both.
        for token in tokens { assertExpired(token, in: restored) }
        let after = try restored.history(after: nil)
        XCTAssertEqual(after.map(\.author), ["A", "B", "C", "F", "G"])
        XCTAssertGreaterThan(after[3].token.transactionNumber, tokens[4].transactionNumber + 1,
                             "new transactions are numbered past every number the replaced store handed out, and one more")
        XCTAssertEqual(try restored.history(after: after[3].token).map(\.author), ["G"], "a token taken after the restore works")
        restored.persistentStoreCoordinator.close()
    }

    func testARestoreExpiresTokensEvenWhenTheCopyRecordsNoHistory() throws {
        let plain = try makeContainer(Models.company)
        Department(context: plain.viewContext).name = "A"
        try plain.viewContext.save()
        let copy = directory.appendingPathComponent("Copy.sqlite")
        try plain.backup(to: copy)
        plain.persistentStoreCoordinator.close()
        let container = try historyContainer()
        for name in ["B", "C"] { try save(name, in: container) }
        let last = try XCTUnwrap(container.currentHistoryToken())
        container.persistentStoreCoordinator.close()

        try PersistentContainer.restore(storeAt: storeURL, from: copy)
        let restored = try historyContainer()   // creates the tables again
        for name in ["D", "E", "F"] { try save(name, in: restored) }
        assertExpired(last, in: restored)
        XCTAssertEqual(try restored.history(after: nil).map(\.author), ["D", "E", "F"])
        XCTAssertGreaterThan(try XCTUnwrap(restored.history(after: nil).first).token.transactionNumber, last.transactionNumber)
        restored.persistentStoreCoordinator.close()
    }

    /// Issue 38, item 9: an 8 KB copy into a 4 KB WAL store failed with `.readOnlyFile`
    /// ("attempt to write a readonly database"): SQLite's backup API refuses pages of another
    /// size into a WAL database.
    func testACopyOfAnotherPageSizeIsRestored() throws {
        let copy = try backedUpStore(saved: ["A", "B"], then: "C")
        let file = try SQLiteFile(copy, readOnly: false)
        _ = try file.rows("PRAGMA journal_mode = DELETE")
        _ = try file.rows("PRAGMA page_size = 8192")
        try file.execute("VACUUM")
        XCTAssertEqual(try file.scalar("PRAGMA page_size"), .integer(8192))
        XCTAssertEqual(try SQLiteFile(storeURL).scalar("PRAGMA page_size"), .integer(4096))

        try PersistentContainer.restore(storeAt: storeURL, from: copy)
        let restored = try makeContainer(Models.company)
        let names = try restored.viewContext.fetch(FetchRequest<Department>(sortDescriptors: [SortKey("name")])).map(\.name)
        XCTAssertEqual(names, ["A", "B"])
        Department(context: restored.viewContext).name = "D"
        try restored.viewContext.save()
        restored.persistentStoreCoordinator.close()
        XCTAssertEqual(try SQLiteFile(storeURL).scalar("PRAGMA page_size"), .integer(4096), "the store keeps its page size")
        XCTAssertEqual(try SQLiteFile(storeURL).scalar("PRAGMA integrity_check"), .text("ok"))
    }

    /// Issue 38, item 10: a container on a rollback-journal store (read-only, so it stays in
    /// `journal_mode = DELETE`) holds no SQLite lock while idle, and the restore went through
    /// under it.
    ///
    /// Run beneath the tests' fault-injection VFS (installed once for the whole process, so a
    /// test run sees it or not depending on the order of tests): the mark must reach the unix
    /// VFS's file beneath a wrapping VFS (`StoreInUseLock.wrappedFileControl`); before it did,
    /// this test failed whenever a fault-injection test had run first. Separate processes on
    /// the plain unix VFS: `CLIBackupTests.testRestoreIsRefusedWhileWatchHasARollbackJournalStoreOpen`.
    func testRestoreIsRefusedWhileARollbackJournalStoreIsOpen() throws {
        FaultInjector.stopTracking()   // installs the wrapping VFS, counting nothing
        let copy = try backedUpStore(saved: ["A"], then: "B")
        _ = try SQLiteFile(storeURL, readOnly: false).rows("PRAGMA journal_mode = DELETE")

        let reader = try PersistentContainer(name: "Reader", entities: Models.company, storeURL: storeURL, options: [.readOnly])
        XCTAssertEqual(try SQLiteFile(storeURL).scalar("PRAGMA journal_mode"), .text("delete"))
        XCTAssertEqual(try reader.viewContext.count(for: FetchRequest<Department>()), 2)
        XCTAssertThrowsError(try PersistentContainer.restore(storeAt: storeURL, from: copy)) { error in
            XCTAssertEqual((error as? StoreError)?.code, .locked, "\(error)")
            XCTAssertTrue((error as? StoreError)?.message.contains("open in another process") == true, "\(error)")
        }
        reader.viewContext.reset()
        XCTAssertEqual(try reader.viewContext.count(for: FetchRequest<Department>()), 2, "nothing was restored under the reader")
        reader.persistentStoreCoordinator.close()
        try PersistentContainer.restore(storeAt: storeURL, from: copy)
        let restored = try makeContainer(Models.company)
        XCTAssertEqual(try restored.viewContext.count(for: FetchRequest<Department>()), 1, "once closed, the restore goes through")
        restored.persistentStoreCoordinator.close()
    }
}
