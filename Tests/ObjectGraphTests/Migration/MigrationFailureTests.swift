import CSQLite
import Foundation
@testable import ObjectGraph
import XCTest

/// A migration that fails, wherever it fails, leaves the store byte for byte as it was,
/// leaves no work files behind, and says what went wrong with a typed error.
final class MigrationFailureTests: StoreTestCase {
    private let v1 = LightweightMigrationTests.v1
    private let v2 = LightweightMigrationTests.v2

    override func tearDownWithError() throws {
        FaultInjector.disarm()
        FaultInjector.stopTracking()
        try super.tearDownWithError()
    }

    /// A shelf with 3 + `extraItems` items, in this test's store, written with version 1.
    private func writeVersion1(code: String = "42", count: Int = 7, extraItems: Int = 0) throws {
        let container = try makeContainer(v1)
        let context = container.viewContext
        let shelf = ShelfV1(context: context)
        shelf.label = "A"
        for index in 0..<(3 + extraItems) {
            let item = ShelfItemV1(context: context)
            item.title = String(repeating: "title \(index) ", count: 20)
            item.count = count + index
            item.code = index == 0 ? code : String(index)
            item.location = shelf
        }
        try context.save()
    }

    /// Asserts that opening with `entities` throws a MigrationError of `code` about
    /// `property`, and that the store and its folder are exactly as before.
    private func assertMigrationFails(_ entities: [ManagedObject.Type], code: MigrationError.Code, property: String?,
                                      file: StaticString = #filePath, line: UInt = #line,
                                      open: (() throws -> Void)? = nil) throws -> MigrationError? {
        let before = storeBytes(storeURL)
        var caught: MigrationError?
        XCTAssertThrowsError(try (open ?? { _ = try self.makeDroppingContainer(entities) })(), file: file, line: line) { error in
            caught = error as? MigrationError
            XCTAssertEqual(caught?.code, code, "\(error)", file: file, line: line)
        }
        if let property { XCTAssertEqual(caught?.property, property, file: file, line: line) }
        XCTAssertEqual(storeBytes(storeURL), before, "the store's bytes are unchanged", file: file, line: line)
        XCTAssertEqual(try migrationLeftovers(storeURL), [], "no work files are left", file: file, line: line)
        let reopened = try makeContainer(v1)
        XCTAssertEqual(try reopened.viewContext.count(for: FetchRequest<ShelfItemV1>()), try SQLiteFile(storeURL).scalar("SELECT count(*) FROM ZSHELFITEM")?.int.map(Int.init),
                       "the old model still reads every row", file: file, line: line)
        return caught
    }

    func testTextThatIsNotANumberStopsTheMigrationNamingTheRowAndLosesNothing() throws {
        try writeVersion1(code: "abc")
        let error = try assertMigrationFails(v2, code: .unconvertibleValue, property: "code")
        XCTAssertEqual(error?.entity, "ShelfItem")
        XCTAssertTrue(error?.message.contains("\"abc\"") == true, "\(String(describing: error))")
    }

    func testANumberOutsideANarrowerIntegersRangeStopsTheMigration() throws {
        try writeVersion1(count: 100_000)
        _ = try assertMigrationFails(v2, code: .unconvertibleValue, property: "count")
    }

    func testAChangeThatCannotBeInferredIsNamedBeforeAnythingIsWritten() throws {
        try writeVersion1()
        let error = try assertMigrationFails([ShelfItemDateAsNumber.self], code: .notInferable, property: "shipped")
        XCTAssertTrue(error?.message.contains("TIMESTAMP") == true, "\(String(describing: error))")
    }

    func testAFullDiskMidMigrationLeavesTheStoreByteEqual() throws {
        try writeVersion1(extraItems: 3_000)
        let model = try ManagedObjectModel(entities: v2)
        let error = try assertMigrationFails(v2, code: .writeFailed, property: nil) {
            _ = try self.openCoordinator(model, migrator: StoreMigrator(chunkSize: 500, allowsDroppingData: true, maximumPageCount: 40))
        }
        XCTAssertEqual(error?.underlying?.primaryCode, SQLITE_FULL, "\(String(describing: error))")
        XCTAssertTrue(error?.message.contains("full") == true)
        XCTAssertNotNil(try makeDroppingContainer(v2), "with room, the same migration succeeds")
        XCTAssertEqual(try makeContainer(v2).viewContext.count(for: FetchRequest<ShelfItemV2>()), 3_003)
    }

    func testAWriteThatFailsMidMigrationLeavesTheStoreByteEqual() throws {
        try writeVersion1(extraItems: 2_000)
        let model = try ManagedObjectModel(entities: v2)
        FaultInjector.track(directory)
        FaultInjector.failNth(.write, 25, persistent: true)
        let log = ProgressLog()
        let error = try assertMigrationFails(v2, code: .writeFailed, property: nil) {
            _ = try self.openCoordinator(model, migrator: StoreMigrator(chunkSize: 200, progress: { log.append($0) }, allowsDroppingData: true))
        }
        FaultInjector.disarm()
        XCTAssertGreaterThan(FaultInjector.failures, 0, "the injected failure happened")
        XCTAssertEqual(error?.underlying?.primaryCode, SQLITE_IOERR, "\(String(describing: error))")
        XCTAssertNil(log.all.last.map { $0.entity == nil }.flatMap { $0 ? true : nil }, "the migration never finished")
        XCTAssertEqual(try makeDroppingContainer(v2).viewContext.count(for: FetchRequest<ShelfItemV2>()), 2_003)
    }

    func testWithoutMigrationAStoreOfAnotherVersionIsRefusedUntouched() throws {
        try writeVersion1()
        let before = storeBytes(storeURL)
        XCTAssertThrowsError(try PersistentStoreCoordinator(model: ManagedObjectModel(entities: v2), storeURL: storeURL, migrate: false)) { error in
            XCTAssertEqual((error as? StoreError)?.code, .incompatibleModel, "\(error)")
        }
        XCTAssertEqual(storeBytes(storeURL), before)
    }
}

/// A store whose latest rows are only in its `-wal` (an app still held it when it was
/// copied) migrates with those rows, and no stale `-wal` is left to be replayed onto the
/// migrated file; a failure leaves the store and its `-wal` byte for byte as they were.
final class WriteAheadLogMigrationTests: StoreTestCase {
    /// A v1 shelf store in `folder` whose last item is only in the `-wal`.
    private func storeWithRowsInTheLog(_ folder: String, code: String) throws -> URL {
        let original = directory.appendingPathComponent("original.sqlite")
        do {
            let context = try makeContainer(LightweightMigrationTests.v1, url: original).viewContext
            let item = ShelfItemV1(context: context)
            item.title = "in the file"
            try context.save()
        }
        let copied = directory.appendingPathComponent(folder)
        try FileManager.default.createDirectory(at: copied, withIntermediateDirectories: true)
        let app = try SQLiteFile(original, readOnly: false)
        _ = try app.rows("PRAGMA wal_autocheckpoint = 0")
        _ = try app.rows("INSERT INTO ZSHELFITEM (Z_PK, Z_ENT, Z_OPT, ZTITLE, ZCOUNT, ZPRICE, ZCODE, ZOBSOLETE, ZSURNAME) SELECT 2, Z_ENT, 1, 'only in the log', 1, 2.5, '\(code)', '', 'Log' FROM ZSHELFITEM WHERE Z_PK = 1")
        _ = try app.rows("UPDATE Z_PRIMARYKEY SET Z_MAX = 2 WHERE Z_NAME = 'ShelfItem'")
        let url = copied.appendingPathComponent("Store.sqlite")
        for suffix in ["", "-wal"] { try FileManager.default.copyItem(atPath: original.path + suffix, toPath: url.path + suffix) }
        XCTAssertGreaterThan(try FileManager.default.attributesOfItem(atPath: url.path + "-wal")[.size] as? Int ?? 0, 0)
        return url
    }

    func testRowsOnlyInTheLogAreMigratedAndTheOldLogIsGone() throws {
        let url = try storeWithRowsInTheLog("ok", code: "7")
        let container = try makeDroppingContainer(LightweightMigrationTests.v2, url: url)
        let items = try fetchAll(ShelfItemV2.self, in: container.viewContext, sortedBy: "title")
        XCTAssertEqual(items.map(\.title), ["in the file", "only in the log"])
        XCTAssertEqual(items.last?.code, 7)
        XCTAssertEqual(items.last?.familyName, "Log")
        let again = try makeContainer(LightweightMigrationTests.v2, url: url)
        XCTAssertEqual(try again.viewContext.count(for: FetchRequest<ShelfItemV2>()), 2, "no stale -wal replayed onto the new file")
        try assertStoreIntegrity(url)
    }

    func testAFailedMigrationLeavesTheStoreAndItsLogByteEqual() throws {
        let url = try storeWithRowsInTheLog("failing", code: "not a number")
        let before = storeBytes(url)
        XCTAssertThrowsError(try makeDroppingContainer(LightweightMigrationTests.v2, url: url)) { error in
            XCTAssertEqual((error as? MigrationError)?.code, .unconvertibleValue, "\(error)")
        }
        XCTAssertEqual(storeBytes(url), before)
        XCTAssertEqual(try migrationLeftovers(url), [])
    }
}

/// A rollback-journal store left with a hot `-journal` by a crash: the half-written
/// transaction is rolled back before the migration reads the store, so it never migrates
/// uncommitted rows.
final class HotJournalMigrationTests: StoreTestCase {
    func testAHotJournalIsRolledBackBeforeTheStoreIsMigrated() throws {
        let original = directory.appendingPathComponent("original.sqlite")
        do {
            let context = try makeContainer(LightweightMigrationTests.v1, url: original).viewContext
            for index in 0..<2_000 {
                let item = ShelfItemV1(context: context)
                item.title = "committed \(index)"
                item.code = String(index)
            }
            try context.save()
        }
        let url = directory.appendingPathComponent("crashed").appendingPathComponent("Store.sqlite")
        try FileManager.default.createDirectory(at: url.deletingLastPathComponent(), withIntermediateDirectories: true)
        do {
            // A writer in rollback-journal mode with a tiny cache spills uncommitted pages into
            // the file; copying the file and its journal then is what a crash leaves.
            let app = try SQLiteFile(original, readOnly: false)
            _ = try app.rows("PRAGMA journal_mode = DELETE")
            _ = try app.rows("PRAGMA cache_size = 1")
            _ = try app.rows("BEGIN")
            _ = try app.rows("UPDATE ZSHELFITEM SET ZTITLE = 'uncommitted ' || hex(randomblob(100)), ZCODE = 'x' || Z_PK")
            for suffix in ["", "-journal"] { try FileManager.default.copyItem(atPath: original.path + suffix, toPath: url.path + suffix) }
            _ = try app.rows("ROLLBACK")
        }
        XCTAssertGreaterThan(try FileManager.default.attributesOfItem(atPath: url.path + "-journal")[.size] as? Int ?? 0, 0, "a hot journal")
        let bytes = try XCTUnwrap(FileManager.default.contents(atPath: url.path))
        XCTAssertNotNil(bytes.range(of: Data("uncommitted".utf8)), "the file holds uncommitted pages the journal must undo")
        let container = try makeDroppingContainer(LightweightMigrationTests.v2, url: url)
        let items = try fetchAll(ShelfItemV2.self, in: container.viewContext)
        XCTAssertEqual(items.count, 2_000)
        XCTAssertTrue(items.allSatisfy { $0.title.hasPrefix("committed") }, "\(items.prefix(3).map(\.title))")
        XCTAssertEqual(items.map(\.code).sorted(), Array(0..<2_000))
        XCTAssertFalse(try SQLiteFile(url).columns(of: "ZSHELFITEM").contains("ZOBSOLETE"), "migrated, not only extended")
        try assertStoreIntegrity(url)
    }
}
