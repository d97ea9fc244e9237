import Foundation

/// A value behind a lock: the shared caches, registries and observer tables of the library.
///
/// Used instead of `Synchronization.Mutex`, whose Linux futex ThreadSanitizer does not model
/// (every contended `Mutex` showed up as a race): an `NSLock` is a pthread mutex, which it
/// does, so TSan checks every lock of the library (docs/reliability.md, "ThreadSanitizer").
/// Each use is short and uncontended in the common case, where both cost about the same.
package final class Locked<Value>: @unchecked Sendable {  // `value` is only touched while `lock` is held
    private let lock = NSLock()
    private var value: Value

    package init(_ value: Value) {
        self.value = value
    }

    /// Runs `body` with the value, holding the lock.
    package func withLock<Result>(_ body: (inout Value) throws -> Result) rethrows -> Result {
        lock.lock()
        defer { lock.unlock() }
        return try body(&value)
    }
}
