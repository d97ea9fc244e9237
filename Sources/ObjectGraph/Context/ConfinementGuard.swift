import CObjectGraphRuntime
import Foundation
import Synchronization

/// Checks that a context is used only by its owner, and by one user at a time.
///
/// The owner is, by concurrency type: the thread that created the context (`.confined`); the
/// main queue — the main thread, main-actor code, and code after a top-level `await`, on
/// whichever thread drains the main queue (`.mainQueue`); nobody outside `perform`
/// (`.privateQueue`). On top of that, any context can be bound to one task
/// (``bind(toTask:)``): while bound, that task — and no other, not even its children, which
/// inherit task-local values — is the owner, on whatever thread it resumes.
///
/// A `perform` / `performAndWait` block makes its calling thread the user for the duration of
/// the block, serialized with other blocks by a lock.
final class ConfinementGuard: @unchecked Sendable {  // `performer` and `boundTask` are atomic; the lock serializes performs
    /// The thread a confined or main-queue context belongs to, as `og_thread_token()`; 0 for
    /// a private-queue context.
    let homeThread: UInt
    /// Whether the main queue owns the context, wherever it runs.
    let followsMainQueue: Bool
    /// The thread running a `perform` block now, or 0.
    private let performer = Atomic<UInt>(0)
    /// The token of the task the context is bound to (``TaskIdentity``), or 0.
    private let boundTask = Atomic<UInt>(0)
    private let lock = NSRecursiveLock()

    init(_ type: ManagedObjectContext.ConcurrencyType) {
        switch type {
        case .confined:
            homeThread = og_thread_token()
            followsMainQueue = false
        case .mainQueue:
            homeThread = MainQueue.mainThreadToken
            followsMainQueue = true
        case .privateQueue:
            homeThread = 0
            followsMainQueue = false
        }
    }

    /// Whether the caller may use the context now.
    @inline(__always)
    func isAllowed() -> Bool {
        let me = og_thread_token()
        let current = performer.load(ordering: .relaxed)
        if current == me { return true }
        if current != 0 { return false }
        let bound = boundTask.load(ordering: .relaxed)
        if bound == 0 && homeThread == me { return true }
        return isAllowedAwayFromHome(bound)
    }

    /// Whether the context is bound to a task now.
    var isBoundToTask: Bool { boundTask.load(ordering: .relaxed) != 0 }

    @inline(never)
    private func isAllowedAwayFromHome(_ bound: UInt) -> Bool {
        if bound != 0 { return TaskIdentity.currentToken == bound }
        return followsMainQueue && MainQueue.isCurrent
    }

    /// Stops with a message saying how the context named `name` was misused and what to do.
    func violation(_ name: String) -> Never {
        fatalError("ManagedRecord: \(name) " + misuse())
    }

    private func misuse() -> String {
        if performer.load(ordering: .relaxed) != 0 {
            return "was used from one thread while another thread runs a perform block on it. A context serves one user at a time: use it only inside perform { } / performAndWait { }, or only from its owner."
        }
        if boundTask.load(ordering: .relaxed) != 0 {
            if TaskIdentity.currentToken == 0 {
                return "is bound to a task and was used from a thread outside any task. Use it only from that task, or pass object IDs and use a context of your own."
            }
            return "is bound to one task and was used from another — a child task (async let, a task group, Task { }) is a task of its own, even though it inherits task-local values. Give each task its own context: pass object IDs to the child and use a background context there (with ManagedRecord, class-level helpers inside a child task already use a context of the child's own)."
        }
        if followsMainQueue {
            return "belongs to the main queue (the main thread, main-actor code, and top-level code after an await) and was used from elsewhere. Hop to the main actor (await MainActor.run { }), or pass object IDs and use a background context inside perform { }."
        }
        if homeThread == 0 {
            return "is a private-queue context; use it only inside perform { } or performAndWait { } (or bind it to a task with withTaskBinding { })."
        }
        return "is confined to the thread that created it and was used from another thread. Pass object IDs between threads, and use perform { } or a context of that thread. In async code an await may resume on another thread: bind a context to the task instead (withTaskBinding / ManagedRecord's perform), or use the main queue's context from main-actor code."
    }

    /// Runs `body` with the context bound to the current task, so it stays usable on whatever
    /// thread the task resumes on after a suspension — by this task only.
    ///
    /// The caller must be allowed to use the context now, or the context must be an idle
    /// private-queue one; binding a context another task holds stops.
    func bindToTask<T>(_ name: String, _ body: sending () async throws -> T) async rethrows -> sending T {
        let task = TaskIdentity.currentToken
        precondition(task != 0, "ManagedRecord: withTaskBinding runs only inside a task")
        if boundTask.load(ordering: .relaxed) == task { return try await body() }  // already bound to this task
        if !bind(to: task) { violation(name) }
        defer { boundTask.store(0, ordering: .releasing) }
        return try await body()
    }

    /// Binds the context to the task `task` if the caller may: under the lock, so no perform
    /// block starts between the check and the binding.
    private func bind(to task: UInt) -> Bool {
        lock.withLock {
            let idlePrivate = homeThread == 0 && !followsMainQueue && performer.load(ordering: .relaxed) == 0
            return (idlePrivate || isAllowed())
                && boundTask.compareExchange(expected: 0, desired: task, ordering: .acquiringAndReleasing).exchanged
        }
    }

    /// Binds the context to `task` for the rest of its life (a context made for that task).
    func bindForever(to task: TaskIdentity) {
        let bound = boundTask.compareExchange(expected: 0, desired: task.token, ordering: .acquiringAndReleasing).exchanged
        precondition(bound, "ManagedRecord: a context can be bound to one task only")
    }

    /// Runs `body` with the context usable from the calling thread, serialized with every
    /// other `perform` on the same context. A context bound to a task takes blocks from that
    /// task only: anyone else's block could overlap the task's own direct use.
    func perform<T>(_ name: String, _ body: () throws -> T) rethrows -> T {
        lock.lock()
        let bound = boundTask.load(ordering: .acquiring)
        if bound != 0 && TaskIdentity.currentToken != bound {
            lock.unlock()
            violation(name)
        }
        let me = og_thread_token()
        let previous = performer.exchange(me, ordering: .acquiring)
        defer {
            performer.store(previous, ordering: .releasing)
            lock.unlock()
        }
        return try body()
    }
}
