import Foundation
import ObjectGraph
import XCTest

/// The throwing ways to load an object report a failed read as the store's error and leave
/// the object exactly as it was: still a registered fault, never deleted or reset.
final class FailedReadTests: FaultInjectedStoreTestCase {
    func testEveryFailedReadOfExistingObjectThrowsAndLeavesTheFaultAsItWas() throws {
        let seed = try makeContainer(Models.company)
        let ann = Employee(context: seed.viewContext)
        ann.firstName = "Ann"
        ann.age = 41
        try seed.viewContext.save()
        let uri = ann.objectID.uriRepresentation

        var thrown = 0
        for nth in 1...1_000 {
            // A new container each time: its reader has nothing cached, so the reads reach the file.
            let container = try makeContainer(Models.company)
            let context = container.viewContext
            let id = try XCTUnwrap(container.persistentStoreCoordinator.managedObjectID(forURIRepresentation: uri))
            let fault = context.object(with: id)
            FaultInjector.failNth(.read, nth)
            do {
                let object = try context.existingObject(with: id)
                let loaded = try XCTUnwrap(object as? Employee)
                XCTAssertEqual(loaded.firstName, "Ann", "read #\(nth) failed without an error, yet the values are right")
                if FaultInjector.failures == 0 { break }
                continue
            } catch let error as StoreError where error.code == .cannotOpen {
                thrown += 1          // opening the reader connection read the file
                XCTAssertTrue("\(error)".contains("disk I/O error"), "\(error)")
            } catch let error as StoreError {
                thrown += 1
                XCTAssertEqual(error.code, .ioError, "a read's SQLite error comes out as a store error: \(error)")
                XCTAssertEqual(error.sqliteError?.code, FaultInjector.Operation.read.failureCode, "\(error)")
            }
            FaultInjector.disarm()
            XCTAssertTrue(fault.isFault, "read #\(nth)")
            XCTAssertFalse(fault.isDeleted, "read #\(nth)")
            XCTAssertTrue(context.registeredObject(for: id) === fault, "read #\(nth)")
            XCTAssertFalse(context.hasChanges)
            XCTAssertEqual((fault as? Employee)?.age, 41, "read #\(nth): loads once the store reads again")
        }
        print("fault sweep: fault (existingObject) reads failed=\(thrown)")
        XCTAssertGreaterThan(thrown, 0, "the reads reached the VFS")
    }
}
