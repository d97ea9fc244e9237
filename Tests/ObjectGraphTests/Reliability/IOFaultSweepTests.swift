import Foundation
import ObjectGraph
import XCTest

/// I/O fault sweeps over a fetch and a lightweight migration (the save and the
/// fault are swept by SaveFailureInjectionTests and FailedReadTests): the 1st, 2nd, ...
/// read or write of the operation fails until one gets through. Every failure is a typed
/// error, the store is as it was, the context keeps its pending changes, and a retry
/// succeeds. The counts are printed for docs/reliability.md.
final class IOFaultSweepTests: FaultInjectedStoreTestCase {
    func testEveryFailedReadOfAFetchThrowsKeepsThePendingChangesAndARetrySucceeds() throws {
        do {
            let seed = try makeContainer(Models.company)
            for index in 0..<200 {
                let employee = Employee(context: seed.viewContext)
                employee.firstName = String(format: "E%03d", index)
                employee.lastName = String(repeating: "x", count: 2_000)
            }
            try seed.viewContext.save()
            seed.persistentStoreCoordinator.close()
        }
        var request = FetchRequest<Employee>()
        request.sortDescriptors = [SortKey("firstName")]
        let stored = try SQLiteFile.dump(storeURL)
        var failed = 0
        for nth in 1...10_000 {
            // A new container each time: its reader has nothing cached, so the reads reach the file.
            let container = try makeContainer(Models.company)
            let context = container.viewContext
            let pending = Employee(context: context)
            pending.firstName = "Pending"
            FaultInjector.failNth(.read, nth)
            do {
                let fetched = try context.fetch(request)
                FaultInjector.disarm()
                XCTAssertEqual(fetched.count, 201, "read #\(nth) did not fail the fetch, whose result is complete")
                if FaultInjector.failures == 0 { break }
                continue
            } catch let error as StoreError where error.code == .cannotOpen {
                // Opening the reader connection read the file.
                XCTAssertNotNil(error.sqliteError, "\(error)")
            } catch let error as StoreError {
                XCTAssertEqual(error.code, .ioError, "a read's SQLite error comes out as a store error: \(error)")
                XCTAssertEqual(error.sqliteError?.code, FaultInjector.Operation.read.failureCode, "\(error)")
                XCTAssertNotNil(error.sqliteError?.remedy, "the error says what to do: \(error)")
                XCTAssertTrue(error.message.contains("check the disk"), "\(error)")
            }
            FaultInjector.disarm()
            failed += 1
            XCTAssertEqual(context.insertedObjects, [pending], "read #\(nth): the pending insert is kept")
            XCTAssertEqual(pending.firstName, "Pending")
            XCTAssertEqual(try context.fetch(request).count, 201, "read #\(nth): the retry succeeds")
            XCTAssertEqual(try SQLiteFile.dump(storeURL), stored, "read #\(nth): the store is unchanged")
            container.persistentStoreCoordinator.close()
        }
        print("fault sweep: fetch reads failed=\(failed)")
        XCTAssertGreaterThan(failed, 50, "the fetch's reads reached the VFS")
    }

    func testEveryFailedWriteOfAMigrationLeavesTheOldStoreAndARetryMigrates() throws {
        do {
            let old = try makeContainer(Models.tickets)
            let ticket = Ticket(context: old.viewContext)
            ticket.title = "Old"
            try old.viewContext.save()
            old.persistentStoreCoordinator.close()
        }
        let model = try ManagedObjectModel(entities: [TicketV2.self, TicketLabel.self])
        let version1 = try SQLiteFile.dump(storeURL)
        var failed = 0
        for nth in 1...1_000 {
            FaultInjector.failNth(.write, nth)
            do {
                let container = try PersistentContainer(name: "Test", model: model, storeURL: storeURL)
                FaultInjector.disarm()
                XCTAssertEqual(try fetchAll(TicketV2.self, in: container.viewContext).map(\.rank), [7], "migrated, with the default")
                container.persistentStoreCoordinator.close()
                break
            } catch {
                FaultInjector.disarm()
                // Opening the store fails with a StoreError; the migration's own writes with a MigrationError.
                guard let underlying = (error as? MigrationError)?.underlying ?? (error as? StoreError)?.sqliteError else {
                    XCTFail("write #\(nth): expected a StoreError or MigrationError with the SQLite error, got \(error)")
                    break
                }
                failed += 1
                XCTAssertEqual(underlying.code, FaultInjector.Operation.write.failureCode, "\(error)")
                // All or nothing: the store is still version 1, or (a write after the migrated
                // file replaced it failed) it is wholly version 2.
                if try SQLiteFile.dump(storeURL) != version1 {
                    XCTAssertFalse(try PersistentStoreCoordinator.requiresMigration(model: model, storeURL: storeURL),
                                   "write #\(nth): the store changed, so it must be wholly migrated: \(error)")
                    print("fault sweep: write #\(nth) failed after the migrated store was in place: \(error)")
                }
            }
        }
        print("fault sweep: migration writes failed=\(failed)")
        XCTAssertGreaterThan(failed, 0, "the migration's writes reached the VFS")
        XCTAssertFalse(try PersistentStoreCoordinator.requiresMigration(model: model, storeURL: storeURL), "the retry migrated")
    }
}
