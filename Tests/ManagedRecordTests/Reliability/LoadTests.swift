import Foundation
import ManagedRecord
import ObjectGraph
import XCTest

/// An account of the load test: transfers move amounts between accounts, so the sum of the
/// balances never changes (the invariant every read checks).
final class LoadAccount: ManagedObject {
    @Attribute var number: Int = 0
    @Attribute var balance: Int = 0
    override class var modelName: String? { "Load" }
}

/// Load: 8 threads x 1,000 commits on overlapping accounts, half through the
/// per-thread helpers, half through explicit background contexts of a second container on
/// the same file, with readers fetching every account meanwhile. Every read sees the same
/// total, no SQLITE_BUSY reaches the caller (conflicts are merge conflicts, retried), the
/// WAL stays bounded, and memory stays flat. The figures are printed for docs/reliability.md.
final class LoadTests: XCTestCase {
    static let accounts = 1_000
    static let initialBalance = 1_000
    static let total = accounts * initialBalance
    static let writers = 8
    /// 1,000; `LOAD_COMMITS_PER_WRITER` sets another count for a longer run.
    static let commitsPerWriter = Int(ProcessInfo.processInfo.environment["LOAD_COMMITS_PER_WRITER"] ?? "") ?? 1_000

    private var folder = URL(fileURLWithPath: "/nonexistent")
    private var storeURL: URL { folder.appendingPathComponent("Load.sqlite") }

    override func setUpWithError() throws {
        folder = FileManager.default.temporaryDirectory.appendingPathComponent("LoadTests-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
    }

    override func tearDownWithError() throws {
        ManagedRecord.tearDown(model: "Load")
        try? FileManager.default.removeItem(at: folder)
    }

    func testEightWritersKeepEveryInvariantWithTheWALBoundedAndMemoryFlat() throws {
        let (run, _) = try load(secondProcessCommits: 0)
        let figures = run.figures
        print("load figures: commits=\(figures.commits) conflictsRetried=\(figures.conflicts) reads=\(figures.reads) maxWALBytes=\(figures.maxWAL) rssAtQuarterMB=\(figures.rssAtQuarter / 1_048_576) rssAtEndMB=\(figures.rssAtEnd / 1_048_576)")
        XCTAssertEqual(run.failures, [], "no error escaped (no SQLITE_BUSY, no broken invariant)")
        XCTAssertEqual(figures.commits, Self.writers * Self.commitsPerWriter)
        XCTAssertGreaterThan(figures.reads, 0)
        XCTAssertEqual(try LoadAccount.aggregate(.sum, of: "balance"), Double(Self.total))
        // Near 4 MB when the background checkpoint runs promptly; the bound that holds however
        // late its thread runs is the commit that finds 4,000 frames and checkpoints itself.
        XCTAssertLessThan(figures.maxWAL, 20 << 20, "the WAL is checkpointed: it stays under 20 MB (its limit is 4 MB, its hard bound 4,000 frames)")
        XCTAssertLessThan(figures.rssAtEnd - figures.rssAtQuarter, 64 << 20, "memory stays flat after the first quarter")
    }

    func testASecondProcessWritingTheSameStoreKeepsEveryInvariant() throws {
        let (run, writer) = try load(secondProcessCommits: 2_000)
        let figures = run.figures
        print("load figures (with a second process): commits=\(figures.commits) conflictsRetried=\(figures.conflicts) reads=\(figures.reads) maxWALBytes=\(figures.maxWAL); \(writer.output.trimmingCharacters(in: .whitespacesAndNewlines))")
        XCTAssertEqual(writer.status, 0, writer.output)
        XCTAssertTrue(writer.output.contains("load writer ok: commits=2000"), writer.output)
        XCTAssertEqual(run.failures, [], "no error escaped (no SQLITE_BUSY, no broken invariant)")
        XCTAssertEqual(figures.commits, Self.writers * Self.commitsPerWriter)
        XCTAssertEqual(try LoadAccount.aggregate(.sum, of: "balance"), Double(Self.total))
        // Near 4 MB when the background checkpoint runs promptly; the bound that holds however
        // late its thread runs is the commit that finds 4,000 frames and checkpoints itself.
        XCTAssertLessThan(figures.maxWAL, 20 << 20, "the WAL is checkpointed: it stays under 20 MB (its limit is 4 MB, its hard bound 4,000 frames)")
    }

    /// Sets up the store, runs the writers, readers and sampler (and, with a count, the
    /// LoadWriter process making that many commits) until every writer is done.
    private func load(secondProcessCommits: Int) throws -> (LoadRun, (status: Int32, output: String)) {
        try ManagedRecord.setUp(model: "Load", entities: [LoadAccount.self], storeURL: storeURL, mergePolicy: .error)
        for number in 0..<Self.accounts {
            let account = LoadAccount.newEntity()
            account.number = number
            account.balance = Self.initialBalance
        }
        try LoadAccount.commit()
        let explicit = try PersistentContainer(name: "Load", entities: [LoadAccount.self], storeURL: storeURL)

        let second = Process()
        let secondOutput = Pipe()
        if secondProcessCommits > 0 {
            second.executableURL = try BuiltExecutable("LoadWriter").url
            second.arguments = [storeURL.path, String(secondProcessCommits)]
            second.standardOutput = secondOutput
            second.standardError = secondOutput
            try second.run()
        }
        let run = LoadRun(walURL: URL(fileURLWithPath: storeURL.path + "-wal"))
        let group = DispatchGroup()
        for writer in 0..<Self.writers {
            group.enter()
            let thread = Thread {
                defer { group.leave() }
                if writer % 2 == 0 {
                    run.record { try Self.helperWriter(run: run) }
                } else {
                    run.record { try Self.explicitWriter(explicit.newBackgroundContext(), run: run) }
                }
            }
            thread.stackSize = 4 << 20
            thread.start()
        }
        let readers = [Thread { run.record { try Self.fetchingReader(explicit.newBackgroundContext(), run: run) } },
                       Thread { run.record { try Self.aggregatingReader(run: run) } }]
        readers.forEach { $0.start() }
        let sampler = Thread { run.sample() }
        sampler.start()
        group.wait()
        var writer: (status: Int32, output: String) = (0, "")
        if secondProcessCommits > 0 {
            let data = secondOutput.fileHandleForReading.readDataToEndOfFile()
            second.waitUntilExit()
            writer = (second.terminationStatus, String(decoding: data, as: UTF8.self))
        }
        run.finish()
        while readers.contains(where: \.isExecuting) || sampler.isExecuting { usleep(10_000) }
        return (run, writer)
    }

    // MARK: Roles

    /// Transfers through the class-level helpers on this thread's context.
    private static func helperWriter(run: LoadRun) throws {
        let accounts = try LoadAccount.fetchAll(sortedBy: [SortKey("number")])
        try transfer(accounts, in: LoadAccount.contextForCurrentThread, run: run) { try LoadAccount.commit() }
    }

    /// The same transfers through an explicit background context of another container.
    private static func explicitWriter(_ context: ManagedObjectContext, run: LoadRun) throws {
        try context.performAndWait {
            var request = FetchRequest<LoadAccount>()
            request.sortDescriptors = [SortKey("number")]
            try transfer(try context.fetch(request), in: context, run: run) { try context.save() }
        }
    }

    /// `commitsPerWriter` transfers between two random accounts of `accounts`, each saved by
    /// `save`; a merge conflict (another writer saved one of the two first) is rolled back,
    /// the two accounts are refreshed, and the transfer is tried again.
    private static func transfer(_ accounts: [LoadAccount], in context: ManagedObjectContext, run: LoadRun,
                                 save: () throws -> Void) throws {
        var random = SystemRandomNumberGenerator()
        var done = 0
        while done < commitsPerWriter {
            let (a, b) = pair(accounts, &random)
            let amount = Int.random(in: 1...10, using: &random)
            a.balance -= amount
            b.balance += amount
            do {
                try save()
                done += 1
                run.committed()
            } catch is MergeConflictError {
                context.rollback()
                context.refresh(a, mergeChanges: false)
                context.refresh(b, mergeChanges: false)
                run.conflicted()
            }
        }
    }

    /// Two different accounts among the first 50 (so that writers overlap).
    private static func pair(_ accounts: [LoadAccount], _ random: inout SystemRandomNumberGenerator) -> (LoadAccount, LoadAccount) {
        let first = Int.random(in: 0..<50, using: &random)
        var second = Int.random(in: 0..<49, using: &random)
        if second >= first { second += 1 }
        return (accounts[first], accounts[second])
    }

    /// Fetches every account into objects, in a context reset before each read. The context
    /// does not merge other contexts' saves: a merge at a property access in the middle of
    /// the sum would mix two states (merges land at any entry point, see docs/threading.md).
    private static func fetchingReader(_ context: ManagedObjectContext, run: LoadRun) throws {
        context.automaticallyMergesChanges = false
        try context.performAndWait {
            while !run.isFinished {
                context.reset()
                let accounts = try context.fetch(FetchRequest<LoadAccount>())
                let sum = accounts.reduce(0) { $0 + $1.balance }
                guard accounts.count == LoadTests.accounts, sum == total else {
                    throw LoadRun.Broken("a fetch of \(accounts.count) accounts summed to \(sum), not \(total)")
                }
                run.read()
            }
        }
    }

    /// Sums the balances in SQL through the helpers.
    private static func aggregatingReader(run: LoadRun) throws {
        while !run.isFinished {
            let sum = try LoadAccount.aggregate(.sum, of: "balance")
            guard sum == Double(total) else { throw LoadRun.Broken("the sum of the balances read \(sum ?? -1), not \(total)") }
            run.read()
        }
    }
}
