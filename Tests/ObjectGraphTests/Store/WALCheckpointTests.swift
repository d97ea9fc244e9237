import Foundation
import ObjectGraph
import XCTest

/// The write-ahead log stays bounded: once checkpointed (in the background) the log starts
/// again and its file is cut back to 4 MB. A reader holding an old snapshot keeps it from
/// starting again, never fails a save, and once the reader is done a later commit starts it
/// again.
final class WALCheckpointTests: StoreTestCase {
    private var walSize: Int {
        (try? FileManager.default.attributesOfItem(atPath: storeURL.path + "-wal")[.size] as? Int) ?? 0
    }

    /// Saves `count` employees with 4 KB names (50: about 250 KB of log).
    private func saveBatch(_ context: ManagedObjectContext, count: Int = 50) throws {
        for _ in 0..<count { Employee(context: context).lastName = String(repeating: "x", count: 4_000) }
        try context.save()
    }

    func testALongReaderDelaysTheTruncationOnlyUntilItEnds() throws {
        let container = try makeContainer(Models.company)
        let context = container.viewContext
        try saveBatch(context)

        // Another connection keeps a read transaction on this snapshot.
        let reader = try SQLiteFile(storeURL)
        _ = try reader.rows("BEGIN")
        _ = try reader.rows("SELECT count(*) FROM ZEMPLOYEE")
        for _ in 0..<20 { try saveBatch(context) }
        XCTAssertGreaterThan(walSize, 4 << 20, "with the old snapshot in use, the log could not be emptied")

        _ = try reader.rows("COMMIT")
        var saves = 0
        while walSize > 4 << 20 && saves < 150 {
            try saveBatch(context, count: 1)
            saves += 1
        }
        XCTAssertLessThanOrEqual(walSize, 4 << 20, "a commit after the reader ended started the log again (\(saves) saves later)")
        XCTAssertEqual(try context.count(for: FetchRequest<Employee>()), 21 * 50 + saves)
        XCTAssertEqual(try SQLiteFile(storeURL).rows("PRAGMA integrity_check").first?.first, .text("ok"))
    }
}
