import CObjectGraphRuntime
import Foundation
import Synchronization

/// Checks that a context is used only where it belongs: on its home thread (a confined
/// context), or inside `perform` / `performAndWait`, which serialize use from any thread.
final class ConfinementGuard: @unchecked Sendable {  // `performer` is atomic; the lock guards performs
    /// The thread a confined context belongs to, as `og_thread_token()`; 0 for a
    /// private-queue context.
    let homeThread: UInt
    /// The thread running a `perform` block now, or 0.
    private let performer = Atomic<UInt>(0)
    private let lock = NSRecursiveLock()

    /// A guard for a context confined to the calling thread (`confined`), or a private-queue one.
    init(confined: Bool) {
        homeThread = confined ? og_thread_token() : 0
    }

    /// The guard of the context bound to the running task, if any.
    @TaskLocal static var taskBound: ConfinementGuard?

    /// Whether the calling thread may use the context now.
    @inline(__always)
    func isAllowed() -> Bool {
        let me = og_thread_token()
        let current = performer.load(ordering: .relaxed)
        if current == me { return true }
        if current != 0 { return false }
        if homeThread == me { return true }
        return ConfinementGuard.taskBound === self
    }

    /// Stops with a message saying which context was misused and how to use it.
    func violation(_ name: String) -> Never {
        if performer.load(ordering: .relaxed) != 0 {
            fatalError("ManagedRecord: \(name) was used from one thread while another thread runs a perform block on it. A context is confined: use it only inside perform { } / performAndWait { }, or only on its own thread.")
        }
        if homeThread == 0 {
            fatalError("ManagedRecord: \(name) is a private-queue context; use it only inside perform { } or performAndWait { }.")
        }
        fatalError("ManagedRecord: \(name) is confined to the thread that created it and was used from another thread. Pass object IDs between threads, and use perform { } or a context of that thread. In async code an await may resume on another thread: bind a context to the task instead (withTaskBinding / ManagedRecord's perform).")
    }

    /// Runs async `body` with the context bound to the current task, so it stays usable on
    /// whatever thread the task resumes on after a suspension.
    func bindToTask<T>(_ body: sending () async throws -> T) async rethrows -> sending T {
        try await ConfinementGuard.$taskBound.withValue(self) { try await body() }
    }

    /// Runs `body` with the context bound to the calling thread, serialized with every other
    /// `perform` on the same context.
    func perform<T>(_ body: () throws -> T) rethrows -> T {
        lock.lock()
        let me = og_thread_token()
        let previous = performer.exchange(me, ordering: .acquiring)
        defer {
            performer.store(previous, ordering: .releasing)
            lock.unlock()
        }
        return try body()
    }
}
