import Foundation
@testable import ObjectGraph
import Synchronization
import XCTest

/// The suite's counter as the `StoreWriter` harness declares it (entity `Counter`).
final class HistoryCounter: ManagedObject {
    override class var entityName: String { "Counter" }
    @Attribute(.unique) var name: String = ""
    @Attribute var value: Int = 0
    @Attribute var left: String = ""
    @Attribute var right: String = ""
}

/// Commits of other processes (and of other containers, which are the same to a coordinator)
/// on a SQLite file with persistent history: noticed within a bounded delay, read from the
/// history, and merged into this container's contexts like a local save, on the main queue
/// for the view context.
final class OtherProcessCommitTests: StoreTestCase {
    /// Runs the main queue until `condition` holds, `timeout` at most.
    private func runMainQueue(until condition: () -> Bool, timeout: TimeInterval = 120) -> Bool {
        let deadline = Date().addingTimeInterval(timeout)
        while !condition() {
            if Date() > deadline { return false }
            RunLoop.main.run(until: Date().addingTimeInterval(0.002))
        }
        return true
    }

    func testAnotherContainersCommitReachesTheViewContextResultsAndChangeStream() throws {
        let mine = try PersistentContainer(name: "Mine", entities: Models.company, storeURL: storeURL, options: [.persistentHistory])
        let view = mine.viewContext
        XCTAssertEqual(view.concurrencyType, .mainQueue)
        let ann = Employee(context: view)
        ann.firstName = "Ann"
        let bob = Employee(context: view)
        bob.firstName = "Bob"
        try view.save()
        let results = try FetchedResults(FetchRequest<Employee>(sortDescriptors: [SortKey("firstName")]), context: view)
        let heard = Mutex<[CommittedChanges]>([])
        let observation = mine.addChangeObserver { change in heard.withLock { $0.append(change) } }
        defer { observation.cancel() }
        nonisolated(unsafe) var mergedOnMain = false
        view.addObserver(for: .objectsDidChange) { _ in mergedOnMain = Thread.isMainThread }

        let theirs = try PersistentContainer(name: "Theirs", entities: Models.company, storeURL: storeURL)
        XCTAssertTrue(theirs.recordsHistory, "the store has the tables: the other container records history too")
        let background = theirs.newBackgroundContext()
        let (annID, bobID) = (try translate(ann.objectID, to: theirs), try translate(bob.objectID, to: theirs))
        let cyID = try background.performAndWait {
            try self.object(Employee.self, annID, in: background).salary = 5555
            background.delete(try self.object(Employee.self, bobID, in: background))
            let cy = Employee(context: background)
            cy.firstName = "Cy"
            try background.save()
            return cy.objectID
        }
        // The view context is not touched: only the main queue runs.
        XCTAssertTrue(runMainQueue { results.objects.map(\.firstName) == ["Ann", "Cy"] && ann.salary == 5555 },
                      "results: \(results.objects.map(\.firstName)), Ann's salary \(ann.salary)")
        XCTAssertTrue(bob.isDeleted || bob.managedObjectContext == nil, "Bob was deleted elsewhere")
        XCTAssertTrue(mergedOnMain, "merged on the main queue")
        XCTAssertFalse(view.hasChanges)
        // The change observers hear the commit right after its merge is scheduled on the main queue.
        func remoteCommits() -> [CommittedChanges] { heard.withLock { $0 }.filter { $0.contextName == "(another process)" } }
        XCTAssertTrue(runMainQueue { !remoteCommits().isEmpty })
        let remote = remoteCommits()
        XCTAssertEqual(remote.count, 1, "\(heard.withLock { $0 })")
        XCTAssertEqual(remote.first?.inserted.map(\.uriRepresentation), [cyID.uriRepresentation])
        XCTAssertEqual(remote.first?.updated, [ann.objectID])
        XCTAssertEqual(remote.first?.changedKeys[ann.objectID], ["salary"])
        XCTAssertEqual(remote.first?.deleted, [bob.objectID])

        // This container's own saves are not heard again as another process's.
        ann.age = 30
        try view.save()
        Thread.sleep(forTimeInterval: 0.4)
        _ = runMainQueue(until: { false }, timeout: 0.1)
        XCTAssertEqual(heard.withLock { $0 }.filter { $0.contextName == "(another process)" }.count, 1,
                       "\(heard.withLock { $0 }.map(\.contextName))")
    }

    func testACommitWithoutHistoryRefreshesWhatTheContextHolds() throws {
        let mine = try PersistentContainer(name: "Mine", entities: Models.company, storeURL: storeURL, options: [.persistentHistory])
        let view = mine.viewContext
        let sales = Department(context: view)
        sales.name = "Sales"
        sales.budget = 10
        try view.save()
        // Another program writes the row without recording history.
        try SQLiteFile(storeURL, readOnly: false).execute("UPDATE ZDEPARTMENT SET ZBUDGET = 99, Z_OPT = Z_OPT + 1")
        XCTAssertTrue(runMainQueue { sales.budget == 99 }, "budget \(sales.budget)")
    }

    func testAnotherProcessesInsertUpdateAndDeleteReachTheViewContextWithinABound() throws {
        let mine = try PersistentContainer(name: "Counters", entities: [HistoryCounter.self], storeURL: storeURL, options: [.persistentHistory])
        let remoteCommits = Mutex<[CommittedChanges]>([])
        let observation = mine.addChangeObserver { change in remoteCommits.withLock { $0.append(change) } }
        defer { observation.cancel() }
        let rounds = 10
        _ = try measureOtherProcessCommits(to: mine, history: true, rounds: rounds)
        // The observers hear a commit right after its merge is scheduled on the main queue.
        func commits() -> [CommittedChanges] { remoteCommits.withLock { $0 }.filter { $0.contextName == "(another process)" } }
        _ = runMainQueue(until: { Set(commits().flatMap(\.deleted)).count == rounds }, timeout: 120)
        let commits = commits()
        XCTAssertEqual(Set(commits.flatMap(\.inserted)).count, rounds, "container.changes heard every insert")
        XCTAssertEqual(Set(commits.flatMap(\.updated)).count, rounds, "and every update")
        XCTAssertEqual(Set(commits.flatMap(\.deleted)).count, rounds, "and every delete")
    }

    /// Without persistent history on either side, another process's commits cannot be
    /// listed: the container notices them all the same (`PRAGMA data_version`) and refreshes
    /// what its contexts hold, as after a lost PostgreSQL notification, so registered objects
    /// take the new values, deleted ones go, and fetched results follow.
    func testWithoutHistoryAnotherProcessesCommitsRefreshTheViewContextWithinABound() throws {
        let mine = try PersistentContainer(name: "Counters", entities: [HistoryCounter.self], storeURL: storeURL)
        XCTAssertFalse(mine.recordsHistory)
        _ = try measureOtherProcessCommits(to: mine, history: false, rounds: 10)
    }

    /// A `StoreWriter` process on the store of `mine` (with persistent history or without)
    /// inserts, updates and deletes `rounds` counters, one commit at a time at random moments;
    /// returns for each commit the delay until `mine`'s main-queue results (and, for the
    /// update, the registered object) showed it, after printing the median and the worst.
    private func measureOtherProcessCommits(to mine: PersistentContainer, history: Bool, rounds: Int) throws -> [Double] {
        let view = mine.viewContext
        let results = try FetchedResults(FetchRequest<HistoryCounter>(sortDescriptors: [SortKey("name")]), context: view)
        nonisolated(unsafe) var pending: (() -> Bool)?
        nonisolated(unsafe) var arrived: Date?
        results.onChange { _ in
            if arrived == nil, let condition = pending, condition() { arrived = Date() }
        }
        let writer = try ScriptedWriter(store: storeURL, history: history)
        defer { writer.stop() }
        XCTAssertTrue(writer.waitFor("ready", timeout: 60), writer.output)
        var delays: [Double] = []
        /// Sends `command`, waits for the harness to commit it and for `condition` to hold on
        /// the main queue; records the delay from the commit to the results' change.
        func step(_ command: String, _ condition: @escaping () -> Bool) throws {
            // At a random moment, as another process would: not in step with the looks.
            _ = runMainQueue(until: { false }, timeout: Double.random(in: 0...0.15))
            arrived = nil
            pending = condition
            let committed = try XCTUnwrap(writer.send(command), "\(command): \(writer.output)")
            XCTAssertTrue(runMainQueue(until: { arrived != nil }, timeout: 120), "\(command) never reached the results")
            if let arrived { delays.append(arrived.timeIntervalSince1970 - committed) }
        }
        for round in 0..<rounds {
            let name = "c\(round)"
            try step("insert \(name) 1") { results.objects.contains { $0.name == name } }
            let counter = try XCTUnwrap(results.objects.first { $0.name == name })
            try step("update \(name) 2") { counter.value == 2 }
            try step("delete \(name)") { !results.objects.contains { $0.name == name } }
        }
        writer.send(quit: ())
        XCTAssertEqual(delays.count, 3 * rounds)
        let sorted = delays.sorted()
        let median = sorted.isEmpty ? 0 : sorted[sorted.count / 2], worst = sorted.last ?? 0
        print("other process's commits (\(history ? "with" : "without") history) reached the view context's results: median \(Int(median * 1000)) ms, worst \(Int(worst * 1000)) ms over \(delays.count) commits (insert, update, delete)")
        return delays
    }
}

/// A `StoreWriter ... script` process, fed commands one at a time.
final class ScriptedWriter: @unchecked Sendable {  // `lines` is behind its mutex
    private let process = Process()
    private let input = Pipe()
    private let outputPipe = Pipe()
    private let lines = Locked<[String]>([])

    /// Starts the writer on `store`, recording persistent history unless `history` is false.
    init(store: URL, history: Bool = true) throws {
        let folder = URL(fileURLWithPath: CommandLine.arguments[0]).resolvingSymlinksInPath().deletingLastPathComponent()
        var executable = folder.appendingPathComponent("StoreWriter")
        // An .xctest bundle runs from inside the build folder's bundle directory.
        if !FileManager.default.isExecutableFile(atPath: executable.path) {
            executable = Bundle(for: ScriptedWriter.self).bundleURL.deletingLastPathComponent().appendingPathComponent("StoreWriter")
        }
        guard FileManager.default.isExecutableFile(atPath: executable.path) else {
            throw SQLiteFileError(description: "\(executable.path) was not built; `swift build --build-tests` builds it with the tests")
        }
        process.executableURL = executable
        process.arguments = ["sqlite", store.path, "script"] + (history ? [] : ["plain"])
        process.standardInput = input
        process.standardOutput = outputPipe
        process.standardError = outputPipe
        let lines = self.lines
        let partial = Locked("")
        outputPipe.fileHandleForReading.readabilityHandler = { handle in
            let data = handle.availableData
            guard !data.isEmpty else { return }
            let complete = partial.withLock { partial -> [String] in
                partial += String(decoding: data, as: UTF8.self)
                var complete: [String] = []
                while let newline = partial.firstIndex(of: "\n") {
                    complete.append(String(partial[..<newline]))
                    partial = String(partial[partial.index(after: newline)...])
                }
                return complete
            }
            lines.withLock { $0 += complete }
        }
        try process.run()
    }

    var output: String { lines.withLock { $0.joined(separator: "\n") } }

    /// Waits for a line starting with `prefix`.
    func waitFor(_ prefix: String, timeout: TimeInterval) -> Bool {
        let deadline = Date().addingTimeInterval(timeout)
        while Date() < deadline {
            if lines.withLock({ $0.contains { $0.hasPrefix(prefix) } }) { return true }
            if !process.isRunning { return false }
            usleep(1_000)
        }
        return false
    }

    private var sent = 0

    /// Sends one command and waits for its commit; returns the commit's wall-clock time
    /// (seconds since 1970), or nil when it failed.
    func send(_ command: String) -> Double? {
        sent += 1
        input.fileHandleForWriting.write(Data("\(command)\n".utf8))
        let prefix = "committed \(sent) "
        let deadline = Date().addingTimeInterval(30)
        while Date() < deadline {
            if let line = lines.withLock({ $0.first { $0.hasPrefix(prefix) || $0.hasPrefix("failed \(sent) ") } }) {
                return line.hasPrefix(prefix) ? Double(line.dropFirst(prefix.count)) : nil
            }
            usleep(500)
        }
        return nil
    }

    func send(quit: Void) {
        input.fileHandleForWriting.write(Data("quit\n".utf8))
    }

    func stop() {
        if process.isRunning { process.terminate() }
        process.waitUntilExit()
        outputPipe.fileHandleForReading.readabilityHandler = nil
    }
}

/// Transactions another process pruned before this container read them.
final class PrunedHistoryMergeTests: StoreTestCase {
    func testTransactionsPrunedBeforeTheyWereReadRefreshWhatTheContextHolds() throws {
        let mine = try PersistentContainer(name: "Mine", entities: Models.company, storeURL: storeURL, options: [.persistentHistory])
        let view = mine.viewContext
        let sales = Department(context: view)
        sales.name = "Sales"
        try view.save()
        let theirs = try PersistentContainer(name: "Theirs", entities: Models.company, storeURL: storeURL)
        let background = theirs.newBackgroundContext()
        let salesID = try translate(sales.objectID, to: theirs)
        // While this container's watcher cannot look (its writer is held), the other one
        // changes Sales, saves once more, and prunes the first of its transactions.
        try holdingWriter(of: mine) {
            try background.performAndWait {
                try self.object(Department.self, salesID, in: background).budget = 77
                try background.save()
                let pruned = try XCTUnwrap(theirs.currentHistoryToken())
                Department(context: background).name = "Marketing"
                try background.save()
                try theirs.deleteHistory(before: pruned)
            }
        }
        let deadline = Date().addingTimeInterval(5)
        while sales.budget != 77 && Date() < deadline { RunLoop.main.run(until: Date().addingTimeInterval(0.005)) }
        XCTAssertEqual(sales.budget, 77, "a change whose transaction was pruned unread is not lost: the context refreshed")
    }

    /// Runs `body` while `container`'s store writer is held, so that its watcher skips its looks.
    private func holdingWriter(of container: PersistentContainer, _ body: () throws -> Void) throws {
        let store = try XCTUnwrap(container.persistentStoreCoordinator.store as? SQLiteStore)
        let ran: Void? = try store.withIdleWriter { _ in try body() }
        XCTAssertNotNil(ran)
    }
}

/// What the watcher keeps about this store's own transactions.
final class OwnTransactionTests: StoreTestCase {
    func testOwnTransactionsAreForgottenWhenNobodyElseCommits() throws {
        let container = try PersistentContainer(name: "Mine", entities: Models.company, storeURL: storeURL, options: [.persistentHistory])
        let context = container.viewContext
        for index in 0..<50 {
            Department(context: context).name = "D\(index)"
            try context.save()
        }
        let store = try XCTUnwrap(container.persistentStoreCoordinator.store as? SQLiteStore)
        let deadline = Date().addingTimeInterval(3)
        while store.history.state.withLock({ $0.own.count }) > 0 && Date() < deadline { usleep(10_000) }
        XCTAssertEqual(store.history.state.withLock { $0.own.count }, 0,
                       "a process that commits alone keeps no list of its transactions that grows with every save")
        XCTAssertEqual(store.history.state.withLock { $0.lastRead }, 50)
    }
}
