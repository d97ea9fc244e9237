import Foundation
import Testing

/// Runs each test case of a suite on threads of its own instead of Swift's cooperative pool,
/// at most ``TestCaseGate/width`` test cases at once.
///
/// The stores block their caller while they wait (for SQLite's lock, for the PostgreSQL
/// server); a test body is synchronous code that waits like an application's. On the
/// cooperative pool (as wide as the machine has cores) a few such tests in parallel would
/// hold every pool thread, and whatever the store itself runs on the pool — the PostgreSQL
/// store's LISTEN task — could not run until they time out. Here each job of the test's task
/// runs on a new thread; task-locals stay, so expectations are still attributed to the test.
/// `StoreWriter tasks` checks the pool case on its own, in a process of its own.
///
/// The gate keeps the suite within a PostgreSQL server's default `max_connections` (100):
/// unbounded, every test case of every suite ran at once, each with its containers' pools
/// and listeners, and the server refused connections ("too many clients already").
struct OwnThreadTrait: TestTrait, SuiteTrait, TestScoping {
    var isRecursive: Bool { true }

    func scopeProvider(for test: Test, testCase: Test.Case?) -> Self? {
        testCase == nil ? nil : self
    }

    func provideScope(for test: Test, testCase: Test.Case?, performing function: @Sendable () async throws -> Void) async throws {
        try await TestCaseGate.shared.withSlot {
            try await withTaskExecutorPreference(ThreadPerJobExecutor.shared) {
                try await function()
            }
        }
    }
}

extension TestTrait where Self == OwnThreadTrait {
    /// Runs the test's cases on threads of their own (see ``OwnThreadTrait``).
    static var onOwnThreads: Self { Self() }
}

extension SuiteTrait where Self == OwnThreadTrait {
    /// Runs the suite's test cases on threads of their own (see ``OwnThreadTrait``).
    static var onOwnThreads: Self { Self() }
}

/// A task executor that runs every job on a new thread.
final class ThreadPerJobExecutor: TaskExecutor {
    static let shared = ThreadPerJobExecutor()

    func enqueue(_ job: consuming ExecutorJob) {
        let job = UnownedJob(job)
        let executor = asUnownedTaskExecutor()
        Thread.detachNewThread {
            job.runSynchronously(on: executor)
        }
    }
}
