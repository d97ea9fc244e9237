import Foundation
import ManagedRecord
import XCTest

/// `setUp` again and `tearDown` close the old stack's store: a server or a test runner that
/// sets up over and over stays flat in file descriptors and memory.
final class SetUpLifecycleTests: RecordTestCase {
    private var entities: [ManagedObject.Type] { [Company.self, Person.self, Boss.self] }

    private func openFiles() -> [String] {
        let names = (try? FileManager.default.contentsOfDirectory(atPath: "/proc/self/fd")) ?? []
        return names.compactMap { try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/fd/\($0)") }.sorted()
    }

    /// One use of the model: a commit and a fetch on this thread and on another thread.
    private func use() throws {
        Person.newEntity().firstName = "Ann"
        try Person.commit()
        XCTAssertGreaterThan(try Person.count(), 0)
        onNewThread { _ = try? Person.fetchAll() }
    }

    func testSetUpAndTearDownCyclesKeepFileDescriptorsFlat() throws {
        try use()
        let before = openFiles()
        for _ in 0..<200 {
            ManagedRecord.tearDown(model: "Staff")
            try ManagedRecord.setUp(model: "Staff", entities: entities, storeURL: storeURL)
            try use()
        }
        XCTAssertLessThanOrEqual(openFiles().count, before.count + 2, "after 200 tearDown/setUp cycles: \(openFiles())")
    }

    func testSettingUpAgainClosesTheOldStore() throws {
        try use()
        let before = openFiles()
        for _ in 0..<200 {
            try ManagedRecord.setUp(model: "Staff", entities: entities, storeURL: storeURL)
            try use()
        }
        XCTAssertLessThanOrEqual(openFiles().count, before.count + 2, "after setting up 200 times: \(openFiles())")
    }

    /// Contexts that outlive their stack (held here, or alive on another thread) get a typed
    /// `.closed` error at their next store access.
    func testContextsOfATornDownStackThrowClosed() throws {
        try use()
        let context = Person.contextForCurrentThread
        let fromThread = ContextBox()
        let ready = DispatchSemaphore(value: 0)
        let proceed = DispatchSemaphore(value: 0)
        let done = DispatchSemaphore(value: 0)
        Thread {
            let threadContext = Person.contextForCurrentThread
            _ = try? threadContext.fetch(FetchRequest<Person>())
            ready.signal()
            proceed.wait()
            fromThread.set(Result { try threadContext.fetch(FetchRequest<Person>()).count })
            done.signal()
        }.start()
        ready.wait()
        ManagedRecord.tearDown(model: "Staff")
        proceed.signal()
        done.wait()
        for result in [Result { try context.fetch(FetchRequest<Person>()).count }, fromThread.get()] {
            XCTAssertThrowsError(try result.get()) { error in
                XCTAssertEqual((error as? StoreError)?.code, .closed, "\(error)")
            }
        }
        try ManagedRecord.setUp(model: "Staff", entities: entities, storeURL: storeURL)
        XCTAssertEqual(try Person.count(), 1, "the new stack reads the store")
    }

    /// The stacks of one model share its entities and the store's identity, so an ID kept
    /// across a tearDown names the same object in the next stack.
    func testAnIDKeptAcrossATearDownNamesTheSameObjectAfterSetUpAgain() throws {
        let person = Person.newEntity()
        person.firstName = "Ann"
        try Person.commit()
        let id = person.objectID
        ManagedRecord.tearDown(model: "Staff")
        try ManagedRecord.setUp(model: "Staff", entities: entities, storeURL: storeURL)
        XCTAssertEqual(id.entityName, "Person")
        XCTAssertEqual((try Person.contextForCurrentThread.existingObject(with: id) as? Person)?.firstName, "Ann")
    }

    /// A thread that outlives the stacks (a server's worker) gives back its context of each
    /// stack torn down, at the latest when it next makes a context.
    func testALongLivedThreadKeepsMemoryFlatAcrossSetUps() throws {
        let worker = Worker()
        defer { worker.stop() }
        for _ in 0..<20 { Person.newEntity().firstName = "Ann" }
        try Person.commit()
        func cycles(_ count: Int) throws {
            for _ in 0..<count {
                ManagedRecord.tearDown(model: "Staff")
                try ManagedRecord.setUp(model: "Staff", entities: entities, storeURL: storeURL)
                worker.run { XCTAssertEqual(try? Person.fetchAll().count, 20) }
            }
        }
        try cycles(50)
        let before = try residentBytes()
        try cycles(400)
        let growth = try residentBytes() - before
        XCTAssertLessThan(growth, 1 << 20, "resident memory grew by \(growth) bytes over 400 set-ups used on one worker thread")
    }

    /// Resident memory (`VmRSS` in /proc/self/status), in bytes.
    private func residentBytes() throws -> Int {
        let status = try String(contentsOfFile: "/proc/self/status", encoding: .utf8)
        let line = try XCTUnwrap(status.split(separator: "\n").first { $0.hasPrefix("VmRSS:") })
        return try XCTUnwrap(Int(line.split(separator: " ").dropFirst().first ?? "")) * 1024
    }

    /// Memory measured as resident bytes, not by time.
    func testRepeatedSetUpKeepsMemoryFlat() throws {
        func cycles(_ count: Int) throws {
            for _ in 0..<count {
                ManagedRecord.tearDown(model: "Staff")
                try ManagedRecord.setUp(model: "Staff", entities: entities, storeURL: storeURL)
                _ = try Person.fetchAll()
            }
        }
        try cycles(50)
        let before = try residentBytes()
        try cycles(400)
        let growth = try residentBytes() - before
        XCTAssertLessThan(growth, 1 << 20, "resident memory grew by \(growth) bytes over 400 set-ups")
    }
}

/// A result handed from a thread to the test.
private final class ContextBox: @unchecked Sendable {  // guarded by `lock`
    private let lock = NSLock()
    private var result: Result<Int, Error> = .success(-1)
    func set(_ value: Result<Int, Error>) { lock.withLock { result = value } }
    func get() -> Result<Int, Error> { lock.withLock { result } }
}

/// One long-lived thread that runs jobs, as a server's worker does.
private final class Worker: @unchecked Sendable {  // `jobs` and `stopped` guarded by `condition`
    private let condition = NSCondition()
    private var jobs: [@Sendable () -> Void] = []
    private var stopped = false

    init() {
        Thread { [self] in
            while let job = next() { job() }
        }.start()
    }

    private func next() -> (@Sendable () -> Void)? {
        condition.lock()
        defer { condition.unlock() }
        while jobs.isEmpty && !stopped { condition.wait() }
        return jobs.isEmpty ? nil : jobs.removeFirst()
    }

    /// Runs `job` on the worker thread and waits for it.
    func run(_ job: @escaping @Sendable () -> Void) {
        let done = DispatchSemaphore(value: 0)
        condition.lock()
        jobs.append { job(); done.signal() }
        condition.signal()
        condition.unlock()
        done.wait()
    }

    func stop() {
        condition.lock()
        stopped = true
        condition.signal()
        condition.unlock()
    }
}
