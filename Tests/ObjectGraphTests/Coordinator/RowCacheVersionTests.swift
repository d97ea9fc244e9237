import Foundation
import ObjectGraph
import Synchronization
import XCTest

/// The coordinator's row cache keeps the newest version of a row (regression: a prefetch that
/// read a row before another context saved it stored the older row over the newer one, and
/// the next fault of that object anywhere on the coordinator read the old values).
final class RowCacheVersionTests: StoreTestCase {
    func testAPrefetchThatReadARowBeforeASaveDoesNotReplaceTheSavedRow() throws {
        let container = try makeContainer(Models.company)
        let view = container.viewContext
        // 501 departments: the prefetch of their employees takes two queries (500 owners each).
        let departments = (0...500).map { index in
            let department = Department(context: view)
            department.name = String(format: "D%03d", index)
            return department
        }
        let member = Employee(context: view)
        member.firstName = "M"
        member.age = 1
        member.department = departments[0]
        try view.save()
        let id = member.objectID
        view.reset()

        // Between the prefetch's two queries (the first read the member's row at version 1),
        // another context of the coordinator saves version 2.
        let background = container.newBackgroundContext()
        let queries = Mutex(0)
        let saved = Mutex<String?>(nil)
        container.persistentStoreCoordinator.sqlTrace = { sql in
            guard sql.contains("ZDEPARTMENT IN (") else { return }
            guard queries.withLock({ $0 += 1; return $0 }) == 2 else { return }
            let outcome: String = background.performAndWait {
                do {
                    let employee = try background.existingObject(with: id) as! Employee
                    employee.age = 2
                    try background.save()
                    return "saved"
                } catch {
                    return "\(error)"
                }
            }
            saved.withLock { $0 = outcome }
        }
        var request = FetchRequest<Department>()
        request.sortDescriptors = [SortKey("name")]
        request.relationshipKeyPathsForPrefetching = ["employees"]
        let fetched = try view.fetch(request)
        container.persistentStoreCoordinator.sqlTrace = nil
        XCTAssertEqual(fetched.count, 501)
        XCTAssertGreaterThanOrEqual(queries.withLock { $0 }, 2, "the prefetch took two queries or more")
        XCTAssertEqual(saved.withLock { $0 }, "saved")

        let fresh = container.newBackgroundContext()
        let age = try fresh.performAndWait { (try fresh.existingObject(with: id) as! Employee).age }
        XCTAssertEqual(age, 2, "a new context's fault reads the saved version")
    }
}
