import Foundation
import ObjectGraph
import XCTest

/// The copy of the write-ahead log back into the store happens after a commit returns, on
/// another thread, never inside the commit a caller waits for; the log stays bounded over many
/// commits, what was committed survives closing and opening again, and closing waits for a
/// checkpoint under way.
final class BackgroundCheckpointTests: StoreTestCase {
    private func size(_ suffix: String = "") -> Int {
        (try? FileManager.default.attributesOfItem(atPath: storeURL.path + suffix)[.size] as? Int) ?? 0
    }

    /// Inserts `count` employees with 4 KB last names (about one log page each) and saves.
    private func saveBatch(_ context: ManagedObjectContext, count: Int, from first: Int = 0) throws {
        let long = String(repeating: "x", count: 4_000)
        for index in first..<(first + count) {
            let employee = Employee(context: context)
            employee.firstName = "E\(index)"
            employee.lastName = long
        }
        try context.save()
    }

    /// Holds the store's first checkpoint statement at its start until released, and says
    /// whether any ran on the thread that saved.
    private final class CheckpointGate: Sendable {
        let reached = DispatchSemaphore(value: 0)
        let release = DispatchSemaphore(value: 0)
        let ranOnMainThread = SharedValue(false)
        private let held = SharedValue(false)

        func install(on container: PersistentContainer) {
            container.persistentStoreCoordinator.sqlTrace = { [self] sql in
                guard sql.contains("wal_checkpoint") else { return }
                if Thread.isMainThread { ranOnMainThread.withLock { $0 = true } }
                guard !held.withLock({ let was = $0; $0 = true; return was }) else { return }
                reached.signal()
                release.wait()
            }
        }
    }

    func testALargeCommitLeavesItsCheckpointToAnotherThread() throws {
        let container = try makeContainer(Models.company)
        let context = container.viewContext
        let gate = CheckpointGate()
        gate.install(on: container)
        let emptyStore = size()

        try saveBatch(context, count: 1_500)  // about 1,500 log pages: past SQLite's automatic checkpoint (1,000)
        XCTAssertEqual(gate.reached.wait(timeout: .now() + 120), .success, "a checkpoint started after the commit")
        XCTAssertFalse(gate.ranOnMainThread.withLock { $0 }, "the checkpoint runs off the saving thread")
        XCTAssertLessThan(size(), emptyStore + (1 << 20),
                          "the commit copied nothing back into the store (\(emptyStore) bytes before, \(size()) after): the log holds the 6 MB")
        XCTAssertGreaterThan(size("-wal"), 5 << 20)
        XCTAssertEqual(try context.count(for: FetchRequest<Employee>()), 1_500, "readers see the commit in the log")

        gate.release.signal()
        let deadline = Date().addingTimeInterval(120)
        while size() < 5 << 20 && Date() < deadline { usleep(10_000) }
        XCTAssertGreaterThan(size(), 5 << 20, "the background checkpoint copied the log into the store")
        container.persistentStoreCoordinator.close()

        let reopened = try makeContainer(Models.company)
        XCTAssertEqual(try reopened.viewContext.count(for: FetchRequest<Employee>()), 1_500)
        reopened.persistentStoreCoordinator.close()
        XCTAssertEqual(try SQLiteFile(storeURL).rows("PRAGMA integrity_check").first?.first, .text("ok"))
    }

    func testTheLogStaysBoundedOverManyCommitsAndEverythingSurvivesReopening() throws {
        let container = try makeContainer(Models.company)
        let context = container.viewContext
        var largest = 0
        for batch in 0..<150 {  // 150 commits of about 50 pages: 30 MB through the log
            try saveBatch(context, count: 50, from: batch * 50)
            largest = max(largest, size("-wal"))
        }
        // The background checkpoint usually keeps the log near 4 MB; how near depends on how
        // soon its thread runs, so the test holds what does not: the commit that finds 4,000
        // frames in the log checkpoints it itself, so the log never grows much past 16 MB,
        // though 30 MB went through it.
        XCTAssertLessThan(largest, 20 << 20, "the log was checkpointed and started again (largest -wal: \(largest) bytes)")
        XCTAssertGreaterThan(size(), 25 << 20, "the checkpoints copied the commits into the store")
        container.persistentStoreCoordinator.close()

        let reopened = try makeContainer(Models.company)
        let request = FetchRequest<Employee>()
        XCTAssertEqual(try reopened.viewContext.count(for: request), 7_500)
        XCTAssertEqual(try reopened.viewContext.fetch(request).filter { $0.lastName.count == 4_000 }.count, 7_500)
        reopened.persistentStoreCoordinator.close()
        XCTAssertEqual(try SQLiteFile(storeURL).rows("PRAGMA integrity_check").first?.first, .text("ok"))
    }

    func testClosingWaitsForTheCheckpointUnderWay() throws {
        let container = try makeContainer(Models.company)
        let gate = CheckpointGate()
        gate.install(on: container)
        try saveBatch(container.viewContext, count: 1_200)
        XCTAssertEqual(gate.reached.wait(timeout: .now() + 120), .success, "a checkpoint started after the commit")

        let closed = DispatchSemaphore(value: 0)
        let coordinator = container.persistentStoreCoordinator
        Thread {
            coordinator.close()
            closed.signal()
        }.start()
        XCTAssertEqual(closed.wait(timeout: .now() + 0.3), .timedOut, "close waits while the checkpoint runs")
        gate.release.signal()
        XCTAssertEqual(closed.wait(timeout: .now() + 10), .success, "close returns once the checkpoint stopped")
        XCTAssertThrowsError(try container.viewContext.count(for: FetchRequest<Employee>()))

        let reopened = try makeContainer(Models.company)
        XCTAssertEqual(try reopened.viewContext.count(for: FetchRequest<Employee>()), 1_200)
        reopened.persistentStoreCoordinator.close()
        XCTAssertEqual(try SQLiteFile(storeURL).rows("PRAGMA integrity_check").first?.first, .text("ok"))
    }
}
