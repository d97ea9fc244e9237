import Foundation
@testable import ObjectGraph
import XCTest

/// A long-running process stays flat: prepared statements, file descriptors and memory do
/// not grow with the number of distinct pages fetched or containers opened.
final class ResourceBoundsTests: StoreTestCase {
    private func fillEmployees(_ count: Int, in context: ManagedObjectContext) throws {
        for index in 0..<count {
            let employee = Employee(context: context)
            employee.lastName = "Name\(index % 50)"
            employee.age = index
        }
        try context.save()
    }


    func testPagingBindsLimitAndOffsetAndTheStatementCacheStaysBounded() throws {
        let container = try makeContainer(Models.company)
        try fillEmployees(20, in: container.viewContext)
        let recorder = SQLRecorder(container.persistentStoreCoordinator)
        var request = FetchRequest<Employee>()
        request.sortDescriptors = [SortKey("age")]
        request.fetchLimit = 2
        for offset in 0..<10_000 {
            request.fetchOffset = offset
            let page = try container.viewContext.fetch(request)
            if offset < 20 { XCTAssertEqual(page.map(\.age), Array(offset..<min(offset + 2, 20))) }
            else { XCTAssertEqual(page.count, 0) }
        }
        let fetches = Set(recorder.selects)
        XCTAssertEqual(fetches.count, 1, "one SQL text for every page: \(fetches.prefix(3))")
        let counts = (container.persistentStoreCoordinator.store as! SQLiteStore).preparedStatementCounts()
        XCTAssertLessThanOrEqual(counts.max() ?? 0, SQLiteConnection.statementCacheCapacity,
                                 "prepared statements per connection: \(counts)")
    }

    func testDistinctSQLTextsBeyondTheCacheCapacityAreFinalized() throws {
        let container = try makeContainer(Models.company)
        try fillEmployees(5, in: container.viewContext)
        for terms in 1...300 {   // a new SQL text each time: 1 to 300 terms
            let predicate = try FetchPredicate((0..<terms).map { _ in "age >= 0" }.joined(separator: " OR "))
            var request = FetchRequest<Employee>()
            request.predicate = predicate
            XCTAssertEqual(try container.viewContext.count(for: request), 5)
        }
        let counts = (container.persistentStoreCoordinator.store as! SQLiteStore).preparedStatementCounts()
        XCTAssertLessThanOrEqual(counts.max() ?? 0, SQLiteConnection.statementCacheCapacity, "\(counts)")
    }

    func testInListsOfEveryLengthShareAFewSQLTexts() throws {
        let container = try makeContainer(Models.company)
        try fillEmployees(50, in: container.viewContext)
        let recorder = SQLRecorder(container.persistentStoreCoordinator)
        for length in 1...100 {
            let names = (0..<length).map { "Name\($0)" }
            var request = FetchRequest<Employee>()
            request.predicate = try FetchPredicate("lastName IN %@", names)
            XCTAssertEqual(try container.viewContext.count(for: request), min(length, 50), "length \(length)")
            XCTAssertEqual(try container.viewContext.fetch(request).count, min(length, 50), "length \(length)")
        }
        let counts = Set(recorder.selects.filter { $0.hasPrefix("SELECT COUNT") })
        XCTAssertLessThanOrEqual(counts.count, 8, "lists of 1 to 100 values: \(counts.count) texts")
    }

    func testACountWithManyPendingChangesDoesNotMakeATextPerChangeCount() throws {
        let container = try makeContainer(Models.company)
        let context = container.viewContext
        try fillEmployees(64, in: context)
        let recorder = SQLRecorder(container.persistentStoreCoordinator)
        let everyone = try context.fetch(FetchRequest<Employee>())
        for (index, employee) in everyone.enumerated() {
            employee.age += 1000
            XCTAssertEqual(try context.count(for: FetchRequest<Employee>()), 64, "after \(index + 1) changes")
        }
        let counts = Set(recorder.selects.filter { $0.hasPrefix("SELECT COUNT") })
        XCTAssertLessThanOrEqual(counts.count, 8, "\(counts.count) texts for 64 change counts")
    }

    // MARK: File descriptors

    func testOpeningAndClosingContainersKeepsFileDescriptorsFlat() throws {
        func cycle(close: Bool) throws {
            let container = try makeContainer(Models.company)
            Employee(context: container.viewContext).firstName = "Ann"
            try container.viewContext.save()
            _ = try container.viewContext.fetch(FetchRequest<Employee>())
            try container.performBackgroundTask { context in
                XCTAssertGreaterThan(try context.count(for: FetchRequest<Employee>()), 0)
            }
            if close { container.persistentStoreCoordinator.close() }
        }
        try cycle(close: false)
        let before = OpenFiles.count()
        for index in 0..<200 { try cycle(close: index.isMultiple(of: 2)) }
        XCTAssertLessThanOrEqual(OpenFiles.count(), before + 2, "open descriptors after 200 containers: \(OpenFiles.list())")
    }

    /// A context alive after its store is closed gets a typed error, never a crash.
    func testAContextOfAClosedStoreThrowsClosed() throws {
        let container = try makeContainer(Models.company)
        let context = container.viewContext
        try fillEmployees(3, in: context)
        container.persistentStoreCoordinator.close()
        XCTAssertThrowsError(try context.fetch(FetchRequest<Employee>())) { error in
            XCTAssertEqual((error as? StoreError)?.code, .closed, "\(error)")
        }
    }
}

/// The process's open file descriptors (`/proc/self/fd`).
enum OpenFiles {
    static func list() -> [String] {
        let names = (try? FileManager.default.contentsOfDirectory(atPath: "/proc/self/fd")) ?? []
        return names.compactMap { try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/fd/\($0)") }.sorted()
    }

    static func count() -> Int { list().count }
}
