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

    /// Issue 38, item 3: with the history pruned past `--after`, the tool listed what was
    /// left and exited 0.
    func testHistoryAfterAPrunedTransactionSaysSoAndWhatToDo() throws {
        try CommandLineRun.tool("history", store.path, "--enable").succeeded()
        let container = try PersistentContainer(name: "Company", entities: companyEntities, storeURL: store)
        let context = container.viewContext
        for age in 50...54 {
            try XCTUnwrap(context.fetch(FetchRequest<Employee>(predicate: FetchPredicate("firstName == 'Bob'"))).first).age = age
            try context.save()
        }
        let all = try container.history(after: nil)
        XCTAssertEqual(all.count, 5)
        try container.deleteHistory(before: all[3].token)
        container.persistentStoreCoordinator.close()

        let expired = try CommandLineRun.tool("history", store.path, "--after", "2")
        XCTAssertEqual(expired.status, 1, expired.stdout)
        XCTAssertEqual(expired.stdout, "", "no partial list")
        XCTAssertTrue(expired.stderr.contains("the history after transaction 2 is incomplete"), expired.stderr)
        XCTAssertTrue(expired.stderr.contains("2 of the 3 transactions after transaction 2 are gone (the oldest transaction left is 5)"), expired.stderr)
        XCTAssertTrue(expired.stderr.contains("run `managedrecord history \(store.path)` without --after"), expired.stderr)
        let edge = try CommandLineRun.tool("history", store.path, "--after", "4").succeeded()
        XCTAssertTrue(edge.hasSuffix("(1 transaction)\n"), edge)
        let left = try CommandLineRun.tool("history", store.path).succeeded()
        XCTAssertTrue(left.contains("transaction 5  ") && left.hasSuffix("(1 transaction)\n"), left)
    }

    func testWatchPrintsTheMatchesThenEachCommitOfAnotherProcess() throws {
        XCTAssertEqual(try CommandLineRun.tool("history", store.path, "--enable").status, 0)
        let watch = try WatchProcess(store: store.path, arguments: ["Employee", "age > 40"])
        defer { watch.stop() }
        XCTAssertTrue(watch.waitFor("(3 rows)"), watch.text)

        let container = try PersistentContainer(name: "Company", entities: companyEntities, storeURL: store)
        let context = container.viewContext
        let dee = Employee(context: context)
        dee.firstName = "Dee"
        dee.age = 61
        try context.save()
        XCTAssertTrue(watch.waitFor("+ Employee p\(try XCTUnwrap(dee.objectID.primaryKey)) firstName=Dee"), watch.text)
        let john = try XCTUnwrap(context.fetch(FetchRequest<Employee>(predicate: FetchPredicate("firstName == 'John'"))).first)
        john.age = 43
        try context.save()
        XCTAssertTrue(watch.waitFor("~ Employee p\(try XCTUnwrap(john.objectID.primaryKey)) firstName=John lastName=Smith age=43"), watch.text)
        context.delete(dee)
        try context.save()
        XCTAssertTrue(watch.waitFor("- Employee p\(try XCTUnwrap(dee.objectID.primaryKey)) firstName=Dee"), watch.text)
    }
}

/// A `managedrecord watch STORE ...` process and what it has printed so far.
final class WatchProcess {
    private let process = Process()
    private let output = Pipe()
    private let printed = Locked("")

    init(store: String, arguments: [String]) throws {
        let folder = URL(fileURLWithPath: CommandLine.arguments[0]).resolvingSymlinksInPath().deletingLastPathComponent()
        process.executableURL = folder.appendingPathComponent("managedrecord")
        process.arguments = ["watch", store] + arguments
        process.standardOutput = output
        process.standardError = output
        let printed = self.printed
        output.fileHandleForReading.readabilityHandler = { handle in
            let data = handle.availableData
            printed.withLock { $0 += String(decoding: data, as: UTF8.self) }
        }
        try process.run()
    }

    /// Everything the process printed so far.
    var text: String { printed.withLock { $0 } }

    /// Waits until the output holds `part` (30 s at most, a bound on a slow machine's start).
    func waitFor(_ part: String) -> Bool {
        let deadline = Date().addingTimeInterval(30)
        while Date() < deadline {
            if text.contains(part) { return true }
            usleep(5_000)
        }
        return false
    }

    /// Ends the process (once), and stops reading its output.
    func stop() {
        if process.isRunning {
            process.terminate()
            process.waitUntilExit()
        }
        output.fileHandleForReading.readabilityHandler = nil
    }
}
