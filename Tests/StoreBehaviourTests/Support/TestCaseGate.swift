import Foundation

/// How many test cases of the `.onOwnThreads` suites run at once in this process: at most
/// ``width``; the others wait (suspended, holding no thread) for a slot, first come first served.
///
/// The width bounds the PostgreSQL connections the suite holds at once. A test case holds at
/// most a few containers, each with a pool (up to eight connections, usually one or two in
/// use) and one listening connection, and its child processes the same: four cases at once
/// stay well inside the 97 connections a default server (`max_connections = 100`, three kept
/// for superusers) gives, with the XCTest process's own in the other run. Set
/// `MANAGEDRECORD_TEST_PARALLEL_CASES` to change it (1 runs the cases one at a time).
actor TestCaseGate {
    static let shared = TestCaseGate(width: TestCaseGate.configuredWidth)

    static let environmentVariable = "MANAGEDRECORD_TEST_PARALLEL_CASES"

    /// The width from the environment, else 4.
    static var configuredWidth: Int {
        let given = ProcessInfo.processInfo.environment[environmentVariable].flatMap { Int($0) }
        return max(1, given ?? 4)
    }

    let width: Int
    private var running = 0
    private var waiting: [CheckedContinuation<Void, Never>] = []

    init(width: Int) {
        precondition(width >= 1, "a gate lets at least one test case through")
        self.width = width
    }

    /// Runs `body` once a slot is free; frees the slot when `body` returns or throws.
    nonisolated func withSlot(_ body: () async throws -> Void) async throws {
        await acquire()
        do {
            try await body()
        } catch {
            await release()
            throw error
        }
        await release()
    }

    private func acquire() async {
        if running < width {
            running += 1
            return
        }
        await withCheckedContinuation { waiting.append($0) }
    }

    private func release() {
        if waiting.isEmpty {
            running -= 1
        } else {
            // The slot passes straight to the first waiter: `running` stays the same.
            waiting.removeFirst().resume()
        }
    }
}
