import Foundation
import ObjectGraph
import XCTest

/// A save whose Nth write, sync or read of the store files fails (through the fault-injecting
/// VFS) throws a typed error naming what failed, writes nothing, and leaves the context's
/// changes pending, so a retry succeeds.
final class SaveFailureInjectionTests: FaultInjectedStoreTestCase {
    /// Saves a department, two employees and a playlist with an ordered many-to-many (and
    /// `filler` more employees with 4 KB names), then opens the store again and makes unsaved
    /// changes of every kind: inserts, an update, a delete, a reordered to-many. The new
    /// container's writer has read nothing yet, so the save's reads reach the file.
    private func containerWithPendingChanges(at url: URL, filler: Int = 0) throws -> PersistentContainer {
        let seed = try makeContainer(url: url).viewContext
        let sales = Department(context: seed)
        sales.name = "Sales"
        for name in ["Ann", "Bob"] {
            let employee = Employee(context: seed)
            employee.firstName = name
            employee.department = sales
        }
        let playlist = Playlist(context: seed)
        playlist.title = "Mix"
        playlist.featured = ["a", "b", "c"].map { label in
            let tag = Tag(context: seed)
            tag.label = label
            return tag
        }
        try seed.save()

        let container = try makeContainer(url: url)
        let context = container.viewContext
        let employees = try fetchAll(Employee.self, in: context, sortedBy: "firstName")
        employees[0].age = 41
        context.delete(employees[1])
        let cy = Employee(context: context)
        cy.firstName = "Cy"
        cy.department = employees[0].department
        let mix = try XCTUnwrap(fetchAll(Playlist.self, in: context).first)
        let d = Tag(context: context)
        d.label = "d"
        mix.featured = [d] + mix.featured.reversed()
        let long = String(repeating: "x", count: 4_000)
        for index in 0..<filler {
            let employee = Employee(context: context)
            employee.firstName = "Filler \(index)"
            employee.lastName = long
        }
        return container
    }

    private struct Pending: Equatable {
        var inserted: Set<ObjectIdentifier>
        var updated: Set<ObjectIdentifier>
        var deleted: Set<ObjectIdentifier>
        var featured: [String]
    }

    private func pending(_ context: ManagedObjectContext) throws -> Pending {
        let playlist = try XCTUnwrap(context.registeredObjects.compactMap { $0 as? Playlist }.first)
        return Pending(inserted: Set(context.insertedObjects.map(ObjectIdentifier.init)),
                       updated: Set(context.updatedObjects.map(ObjectIdentifier.init)),
                       deleted: Set(context.deletedObjects.map(ObjectIdentifier.init)),
                       featured: playlist.featured.map(\.label))
    }

    /// Saves with the `nth` `operation` failing. A failed save must throw the injected error,
    /// leave the store and the pending changes as they were, and succeed when retried; a save
    /// that gets through (SQLite ignores a failed sync of the checkpoint after a commit) must
    /// have written everything. Returns whether an injected failure happened.
    private func save(_ container: PersistentContainer, failing operation: FaultInjector.Operation, _ nth: Int,
                      url: URL, file: StaticString = #filePath, line: UInt = #line) throws -> Bool {
        let context = container.viewContext
        let before = try SQLiteFile(url).dump()
        let expected = try pending(context)
        FaultInjector.failNth(operation, nth)
        do {
            try context.save()
            FaultInjector.disarm()
        } catch let error as StoreError {
            FaultInjector.disarm()
            XCTAssertEqual(FaultInjector.failures, 1, "\(operation) #\(nth) failed the save: \(error)", file: file, line: line)
            XCTAssertEqual(error.code, .ioError, "a save's SQLite error comes out as a store error: \(error)", file: file, line: line)
            XCTAssertEqual(error.sqliteError?.code, operation.failureCode, "\(error)", file: file, line: line)
            XCTAssertTrue("\(error)".contains("disk I/O error"), "\(error)", file: file, line: line)
            XCTAssertNotNil(error.sqliteError?.sql, "the error names the statement that failed: \(error)", file: file, line: line)
            XCTAssertEqual(try SQLiteFile(url).dump(), before, "\(operation) #\(nth): the store is as before the save", file: file, line: line)
            XCTAssertTrue(context.hasChanges, "\(operation) #\(nth)", file: file, line: line)
            XCTAssertEqual(try pending(context), expected, "\(operation) #\(nth): the changes are still pending", file: file, line: line)
            return true
        }
        XCTAssertFalse(context.hasChanges, file: file, line: line)
        try assertSaved(url, file: file, line: line)
        return FaultInjector.failures > 0
    }

    private func assertSaved(_ url: URL, file: StaticString = #filePath, line: UInt = #line) throws {
        let reopened = try makeContainer(url: url)
        var request = FetchRequest<Employee>()
        request.predicate = try FetchPredicate("NOT firstName BEGINSWITH 'Filler'")
        request.sortDescriptors = [SortKey("firstName")]
        let names = try reopened.viewContext.fetch(request).map { "\($0.firstName) \($0.age)" }
        XCTAssertEqual(names, ["Ann 41", "Cy 0"], file: file, line: line)
        let playlist = try XCTUnwrap(fetchAll(Playlist.self, in: reopened.viewContext).first)
        XCTAssertEqual(playlist.featured.map(\.label), ["d", "c", "b", "a"], file: file, line: line)
    }

    /// Fails the 1st, 2nd, ... `operation` of one save, retrying after each failure, until a
    /// save gets through. Returns how many saves failed.
    private func sweep(_ operation: FaultInjector.Operation, file: StaticString = #filePath, line: UInt = #line) throws -> Int {
        let container = try containerWithPendingChanges(at: storeURL)
        var failed = 0
        for nth in 1...10_000 {
            guard try save(container, failing: operation, nth, url: storeURL, file: file, line: line) else { break }
            failed += 1
            if !container.viewContext.hasChanges { break }
        }
        XCTAssertFalse(container.viewContext.hasChanges, "the retry went through", file: file, line: line)
        return failed
    }

    func testEveryFailedWriteOfASaveLeavesStoreAndContextAsTheyWere() throws {
        let failed = try sweep(.write)
        print("fault sweep: save writes failed=\(failed)")
        XCTAssertGreaterThan(failed, 5, "the save's writes reached the VFS")
    }

    func testEveryFailedReadOfASaveLeavesStoreAndContextAsTheyWere() throws {
        let failed = try sweep(.read)
        print("fault sweep: save reads failed=\(failed)")
        XCTAssertGreaterThan(failed, 0, "the save's reads reached the VFS")
    }

    /// In WAL mode with `synchronous = NORMAL` a commit does not sync; the checkpoint that a
    /// large commit starts in the background after it returns does (and so may closing the
    /// store). A failed sync there must not fail or lose the committed save.
    func testAFailedSyncOfASavesCheckpointLosesNothing() throws {
        let counted = try containerWithPendingChanges(at: directory.appendingPathComponent("Counted.sqlite"), filler: 1_100)
        let syncs = try FaultInjector.counts {
            try counted.viewContext.save()
            counted.persistentStoreCoordinator.close()  // waits for the checkpoint
        }[.sync] ?? 0
        XCTAssertGreaterThan(syncs, 0, "the large save's checkpoint reached the VFS")
        for nth in 1...max(1, syncs) {
            let url = directory.appendingPathComponent("Sync\(nth).sqlite")
            let container = try containerWithPendingChanges(at: url, filler: 1_100)
            FaultInjector.failNth(.sync, nth)
            XCTAssertNoThrow(try container.viewContext.save(), "sync #\(nth) of \(syncs): the commit itself does not sync")
            container.persistentStoreCoordinator.close()
            FaultInjector.disarm()
            XCTAssertEqual(FaultInjector.failures, 1, "sync #\(nth) of \(syncs) failed")
            XCTAssertFalse(container.viewContext.hasChanges)
            try assertSaved(url)
        }
    }
}
