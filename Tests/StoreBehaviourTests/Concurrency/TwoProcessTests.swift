import Foundation
import ObjectGraph
import Testing

/// Two processes (`StoreWriter`, built with the tests) commit concurrently to the same
/// counters of one store: no increment is lost, conflicts are retried or resolved by the
/// merge policy, and each process sees the other's changes. This process watches.
@Suite("Two processes on one store", .onOwnThreads)
struct TwoProcessTests {
    static let increments = 60

    @Test("Two processes incrementing overlapping counters lose no update and see each other's changes", arguments: StoreKind.allCases)
    func twoProcessesCommitConcurrently(_ kind: StoreKind) throws {
        let store = try kind.newStore()
        let watcher = try store.container([Counter.self], name: "Counters")
        for index in 0..<3 {
            let counter = Counter(context: watcher.viewContext)
            counter.name = "c\(index)"
        }
        try watcher.viewContext.save()
        let watched = try watcher.viewContext.fetch(FetchRequest<Counter>(sortDescriptors: [SortKey("name")]))

        let left = try WriterProcess(kind: kind, store: store, role: "left", other: "right", increments: Self.increments)
        let right = try WriterProcess(kind: kind, store: store, role: "right", other: "left", increments: Self.increments)
        let leftOutcome = left.finish(within: .seconds(600))
        let rightOutcome = right.finish(within: .seconds(600))
        #expect(leftOutcome.status == 0, "\(leftOutcome.output)")
        #expect(rightOutcome.status == 0, "\(rightOutcome.output)")
        #expect(leftOutcome.output.contains("store writer left ok"), "\(leftOutcome.output)")
        #expect(rightOutcome.output.contains("store writer right ok"), "\(rightOutcome.output)")

        let reader = try store.container([Counter.self], name: "Counters").viewContext
        let counters = try reader.fetch(FetchRequest<Counter>(predicate: FetchPredicate("name BEGINSWITH 'c'"), sortDescriptors: [SortKey("name")]))
        #expect(counters.map(\.value) == [40, 40, 40], "every increment of both processes is there")
        #expect(counters.map(\.left) == ["left", "left", "left"])
        #expect(counters.map(\.right) == ["right", "right", "right"], "each policy-resolved save kept the other's change")
        #expect(try reader.count(for: FetchRequest<Counter>()) == 7, "three counters and four markers")

        if kind.notifiesOtherContainers {
            #expect(eventually { watched.map(\.value) == [40, 40, 40] }, "the watcher's registered objects received the processes' commits")
            #expect(watched.map(\.right) == ["right", "right", "right"])
        } else {
            #expect(watched.map(\.value) == [0, 0, 0], "not notified: the watcher's objects keep what it read")
            watched.forEach { watcher.viewContext.refresh($0, mergeChanges: false) }
            #expect(watched.map(\.value) == [40, 40, 40])
        }
    }
}

/// A `StoreWriter` process, started at once.
struct WriterProcess {
    struct Outcome {
        let status: Int32
        let output: String
    }

    let process = Process()
    let pipe = Pipe()

    init(kind: StoreKind, store: TestStore, role: String, other: String, increments: Int) throws {
        try self.init(kind: kind, arguments: [kind.rawValue, store.processArgument, role, other, "\(increments)"])
    }

    init(kind: StoreKind, arguments: [String]) throws {
        try self.init(executable: "StoreWriter", arguments: arguments)
    }

    /// Another executable built with the tests (`CrashWorkload`), with `arguments`.
    init(executable name: String, arguments: [String]) throws {
        let folder = URL(fileURLWithPath: CommandLine.arguments[0]).resolvingSymlinksInPath().deletingLastPathComponent()
        let executable = folder.appendingPathComponent(name)
        guard FileManager.default.isExecutableFile(atPath: executable.path) else {
            throw NotBuilt(path: executable.path)
        }
        process.executableURL = executable
        process.arguments = arguments
        var environment = ProcessInfo.processInfo.environment
        environment["SWIFT_BACKTRACE"] = "enable=no"
        process.environment = environment
        process.standardOutput = pipe
        process.standardError = pipe
        try process.run()
    }

    /// Waits for the process to end (stopping it past `timeout`), and returns its status and output.
    func finish(within timeout: Duration) -> Outcome {
        let ended = eventually(timeout: timeout) { !process.isRunning }
        if !ended { process.terminate() }
        let data = pipe.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        let output = String(decoding: data, as: UTF8.self)
        return Outcome(status: ended ? process.terminationStatus : -1, output: ended ? output : "timed out after \(timeout): \(output)")
    }

    struct NotBuilt: Error, CustomStringConvertible {
        let path: String
        var description: String { "\(path) was not built; `swift build --build-tests` builds it with the tests" }
    }
}

/// Async code opens stores from tasks on Swift's cooperative pool, where a caller that waits
/// holds a pool thread. `StoreWriter tasks` opens the store from as many child tasks as the
/// pool has threads (at least 4), in a process of its own so that a starved pool cannot hold
/// up the other tests.
@Suite("Stores opened from async code", .onOwnThreads)
struct AsyncOpenTests {
    @Test("A store opens from as many concurrent tasks as the cooperative pool has threads", arguments: StoreKind.allCases)
    func openFromConcurrentTasks(_ kind: StoreKind) throws {
        let store = try kind.newStore()
        _ = try store.container([Counter.self], name: "Counters")     // the store exists: opening is all the tasks do
        let tasks = max(4, ProcessInfo.processInfo.activeProcessorCount)
        let opener = try WriterProcess(kind: kind, arguments: [kind.rawValue, store.processArgument, "tasks", "\(tasks)"])
        let outcome = opener.finish(within: .seconds(600))
        #expect(outcome.status == 0, "\(outcome.output)")
        #expect(outcome.output.contains("store writer tasks ok: tasks=\(tasks) counts=\(Array(repeating: 0, count: tasks))"), "\(outcome.output)")
    }
}

/// Several containers (as several processes would) create a new store at the same moment.
@Suite("A new store opened by several containers at once", .onOwnThreads)
struct ConcurrentCreationTests {
    @Test("Four containers opening one new store at the same moment all open it", arguments: StoreKind.allCases)
    func concurrentFirstOpen(_ kind: StoreKind) throws {
        let store = try kind.newStore()
        let failures = Locked<[String]>([])
        let counts = Locked<[Int]>([])
        let start = DispatchSemaphore(value: 0)
        let group = DispatchGroup()
        for _ in 0..<4 {
            group.enter()
            Thread.detachNewThread {
                defer { group.leave() }
                start.wait()
                do {
                    let count = try store.container().viewContext.count(for: FetchRequest<Employee>())
                    counts.withLock { $0.append(count) }
                } catch {
                    failures.withLock { $0.append("\(error)") }
                }
            }
        }
        for _ in 0..<4 { start.signal() }
        #expect(group.wait(timeout: .now() + 600) == .success)
        // On SQLite the losers of the race to create the tables failed with "table ZACCOUNT
        // already exists" until the creation checked again under the write lock.
        #expect(failures.value == [])
        #expect(counts.value == [0, 0, 0, 0])
        let context = try store.container().viewContext
        Employee(context: context).firstName = "After"
        try context.save()
        #expect(try store.container().viewContext.employeeNames("TRUEPREDICATE") == ["After"])
    }
}
