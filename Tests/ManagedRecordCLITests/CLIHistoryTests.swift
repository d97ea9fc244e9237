import Foundation
import ObjectGraph
import XCTest

/// `managedrecord history` and `managedrecord watch` on a store with persistent history.
final class CLIHistoryTests: XCTestCase {
    var store: URL!

    override func setUpWithError() throws {
        store = try CLITestStores.company(in: CLITestStores.folder())
    }

    func testHistoryListsTransactionsAndChangesAfterATransaction() throws {
        let refused = try CommandLineRun.tool("history", store.path)
        XCTAssertEqual(refused.status, 1)
        XCTAssertTrue(refused.stderr.contains("history \(store.path) --enable"), refused.stderr)
        XCTAssertTrue(try CommandLineRun.tool("history", store.path, "--enable").succeeded().contains("records persistent history"))

        let container = try PersistentContainer(name: "Company", entities: companyEntities, storeURL: store)
        let context = container.viewContext
        context.transactionAuthor = "tester"
        let bob = try XCTUnwrap(context.fetch(FetchRequest<Employee>(predicate: FetchPredicate("firstName == 'Bob'"))).first)
        bob.age = 30
        try context.save()
        context.delete(bob)
        try context.save()
        container.persistentStoreCoordinator.close()
        let bobKey = try XCTUnwrap(bob.objectID.primaryKey)

        let all = try CommandLineRun.tool("history", store.path).succeeded()
        XCTAssertTrue(all.contains("transaction 1  "), all)
        XCTAssertTrue(all.contains("author tester  context Company.viewContext  process "), all)
        XCTAssertTrue(all.contains("\n  update Employee p\(bobKey) [age]\n"), all)
        XCTAssertTrue(all.contains("\n  delete Employee p\(bobKey)\n"), all)
        XCTAssertTrue(all.hasSuffix("(2 transactions)\n"), all)
        let later = try CommandLineRun.tool("history", store.path, "--after", "1").succeeded()
        XCTAssertFalse(later.contains("transaction 1  "), later)
        XCTAssertTrue(later.contains("transaction 2  "), later)
        XCTAssertTrue(later.hasSuffix("(1 transaction)\n"), later)
    }

    func testWatchPrintsTheMatchesThenEachCommitOfAnotherProcess() throws {
        XCTAssertEqual(try CommandLineRun.tool("history", store.path, "--enable").status, 0)
        let folder = URL(fileURLWithPath: CommandLine.arguments[0]).resolvingSymlinksInPath().deletingLastPathComponent()
        let process = Process()
        process.executableURL = folder.appendingPathComponent("managedrecord")
        process.arguments = ["watch", store.path, "Employee", "age > 40"]
        let output = Pipe()
        process.standardOutput = output
        process.standardError = output
        let text = Locked("")
        output.fileHandleForReading.readabilityHandler = { handle in
            let data = handle.availableData
            text.withLock { $0 += String(decoding: data, as: UTF8.self) }
        }
        try process.run()
        defer {
            process.terminate()
            process.waitUntilExit()
            output.fileHandleForReading.readabilityHandler = nil
        }
        func waitFor(_ part: String) -> Bool {
            let deadline = Date().addingTimeInterval(30)
            while Date() < deadline {
                if text.withLock({ $0.contains(part) }) { return true }
                usleep(5_000)
            }
            return false
        }
        XCTAssertTrue(waitFor("(3 rows)"), text.withLock { $0 })

        let container = try PersistentContainer(name: "Company", entities: companyEntities, storeURL: store)
        let context = container.viewContext
        let dee = Employee(context: context)
        dee.firstName = "Dee"
        dee.age = 61
        try context.save()
        XCTAssertTrue(waitFor("+ Employee p\(try XCTUnwrap(dee.objectID.primaryKey)) firstName=Dee"), text.withLock { $0 })
        let john = try XCTUnwrap(context.fetch(FetchRequest<Employee>(predicate: FetchPredicate("firstName == 'John'"))).first)
        john.age = 43
        try context.save()
        XCTAssertTrue(waitFor("~ Employee p\(try XCTUnwrap(john.objectID.primaryKey)) firstName=John lastName=Smith age=43"), text.withLock { $0 })
        context.delete(dee)
        try context.save()
        XCTAssertTrue(waitFor("- Employee p\(try XCTUnwrap(dee.objectID.primaryKey)) firstName=Dee"), text.withLock { $0 })
    }
}
