import Foundation
import ManagedRecord
import XCTest

/// A shared row that eight threads update at once: thread k writes only `tk`.
final class Tally: ManagedObject {
    @Attribute var name: String = ""
    @Attribute var t0: Int = -1
    @Attribute var t1: Int = -1
    @Attribute var t2: Int = -1
    @Attribute var t3: Int = -1
    @Attribute var t4: Int = -1
    @Attribute var t5: Int = -1
    @Attribute var t6: Int = -1
    @Attribute var t7: Int = -1
    override class var modelName: String? { "Stress" }

    func set(thread: Int, _ value: Int) {
        switch thread {
        case 0: t0 = value
        case 1: t1 = value
        case 2: t2 = value
        case 3: t3 = value
        case 4: t4 = value
        case 5: t5 = value
        case 6: t6 = value
        default: t7 = value
        }
    }

    var all: [Int] { [t0, t1, t2, t3, t4, t5, t6, t7] }
}

final class ConcurrencyTests: XCTestCase {
    static let threads = 8
    static let iterations = 200
    static let shared = 40

    func testEightThreadsCommittingOverlappingChangesAgreeWithTheExpectedFinalState() throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("stress-\(UUID().uuidString)")
        let url = folder.appendingPathComponent("Stress.sqlite")
        defer {
            ManagedRecord.tearDown(model: "Stress")
            try? FileManager.default.removeItem(at: folder)
        }
        try ManagedRecord.setUp(model: "Stress", entities: [Tally.self], storeURL: url)
        let sharedObjects = (0..<Self.shared).map { index -> Tally in
            let tally = Tally.newEntity()
            tally.name = "shared-\(index)"
            return tally
        }
        try Tally.commit()
        let ids = sharedObjects.map(\.objectID)

        let failures = Failures()
        let group = DispatchGroup()
        for thread in 0..<Self.threads {
            group.enter()
            let worker = Thread {
                defer { group.leave() }
                Self.work(thread: thread, ids: ids, failures: failures)
            }
            worker.stackSize = 1 << 22
            worker.start()
        }
        group.wait()
        XCTAssertEqual(failures.messages, [], "no error (SQLITE_BUSY or other) escaped a commit")

        let expected = Self.expectedState()
        // 1. The main context's registered objects, after merging at this access.
        XCTAssertEqual(try Self.state(of: Tally.fetchAll()), expected)
        for (index, tally) in sharedObjects.enumerated() {
            let deleted = Self.deletedShared.contains(index)
            XCTAssertEqual(tally.isDeleted, deleted, "shared-\(index)")
            if !deleted { XCTAssertEqual(tally.all, Self.expectedShared(index), "shared-\(index) in the main context") }
        }
        // 2. A fresh fetch on a new stack, and 3. the store reopened.
        let container = try PersistentContainer(name: "Check", entities: [Tally.self], storeURL: url)
        XCTAssertEqual(try Self.state(of: container.viewContext.fetch(FetchRequest<Tally>())), expected)
        ManagedRecord.tearDown(model: "Stress")
        try ManagedRecord.setUp(model: "Stress", entities: [Tally.self], storeURL: url)
        XCTAssertEqual(try Self.state(of: Tally.fetchAll()), expected)
    }

    /// Shared objects deleted: thread k deletes shared object 5k at iteration 150.
    static let deletedShared = Set((0..<threads).map { $0 * 5 })

    static func work(thread: Int, ids: [ObjectID], failures: Failures) {
        let context = Tally.contextForCurrentThread
        var mine: [Int: Tally] = [:]
        for iteration in 0..<iterations {
            let shared = context.object(with: ids[iteration % Self.shared]) as! Tally
            if !shared.isDeleted { shared.set(thread: thread, iteration) }
            let own = Tally.newEntity()
            own.name = "t\(thread)-\(iteration)"
            own.set(thread: thread, iteration)
            mine[iteration] = own
            if iteration % 10 == 9, let old = mine.removeValue(forKey: iteration - 5) { old.delete() }
            if iteration == 150 { context.object(with: ids[thread * 5]).delete() }
            do {
                try Tally.commit()
            } catch {
                failures.add("thread \(thread) iteration \(iteration): \(error)")
                Tally.rollback()
            }
        }
    }

    /// The last value thread k wrote to shared object j: iteration 160 + j (it writes
    /// object i % 40 at iteration i).
    static func expectedShared(_ index: Int) -> [Int] {
        Array(repeating: (iterations - shared) + index, count: threads)
    }

    static func expectedState() -> [String: [Int]] {
        var state: [String: [Int]] = [:]
        for index in 0..<shared where !deletedShared.contains(index) {
            state["shared-\(index)"] = expectedShared(index)
        }
        for thread in 0..<threads {
            for iteration in 0..<iterations where !(iteration % 10 == 4) {
                var values = Array(repeating: -1, count: threads)
                values[thread] = iteration
                state["t\(thread)-\(iteration)"] = values
            }
        }
        return state
    }

    static func state(of tallies: [Tally]) -> [String: [Int]] {
        Dictionary(uniqueKeysWithValues: tallies.map { ($0.name, $0.all) })
    }
}

final class Failures: @unchecked Sendable {  // every access holds the lock
    private let lock = NSLock()
    private var list: [String] = []
    func add(_ message: String) { lock.withLock { list.append(message) } }
    var messages: [String] { lock.withLock { list } }
}
