import Foundation
import Synchronization

/// Where other contexts' saves wait for one context to merge them at its next entry point.
///
/// The coordinator keeps each live context's inbox (strongly) and posts into it; it never
/// touches the context itself. So a broadcast on one thread cannot end up holding the last
/// reference to a context another thread is releasing (its `deinit` would then run on the
/// broadcasting thread, inside the coordinator's lock, and wait for that lock forever).
///
/// Thread-safe: posts come from any thread; the owning context takes the sets on its own.
final class MergeInbox: @unchecked Sendable {  // every mutable field is guarded by `lock` or atomic
    private let lock = NSLock()
    private var sets: [ChangeSet] = []
    private var objectCount = 0
    private var overflowed = false
    private var capacityStorage = 100_000
    /// Whether anything waits (read without the lock on every entry point).
    private let waiting = Atomic<Bool>(false)
    private let mergesStorage = Atomic<Bool>(true)

    /// Whether saves of other contexts are posted here (the context's
    /// `automaticallyMergesChanges`).
    var mergesChanges: Bool {
        get { mergesStorage.load(ordering: .relaxed) }
        set { mergesStorage.store(newValue, ordering: .relaxed) }
    }

    /// The most saved objects that may wait; past it the sets are dropped and the owner
    /// refreshes everything at its next access.
    var capacity: Int {
        get { lock.withLock { capacityStorage } }
        set { lock.withLock { capacityStorage = newValue } }
    }

    /// Whether a change set (or an overflow) waits to be merged.
    @inline(__always)
    var hasWaiting: Bool { waiting.load(ordering: .relaxed) }

    /// Posts a saved change set.
    func post(_ changes: ChangeSet) {
        lock.withLock {
            guard !overflowed else { return }
            sets.append(changes)
            // An entity deletion names no rows: it holds no more memory than one ID.
            objectCount += changes.updated.count + changes.deleted.count + changes.inserted.count + changes.deletedEntities.count
            if objectCount > capacityStorage {
                // A context nobody uses for a long time must not hoard every save's rows:
                // past the capacity, forget them and refresh everything at the next access.
                sets.removeAll()
                overflowed = true
            }
            waiting.store(true, ordering: .releasing)
        }
    }

    /// Takes everything waiting: the change sets in posting order, and whether some were
    /// dropped because the inbox overflowed.
    func take() -> (sets: [ChangeSet], overflowed: Bool) {
        lock.withLock {
            let taken = (sets, overflowed)
            sets.removeAll()
            objectCount = 0
            overflowed = false
            waiting.store(false, ordering: .relaxed)
            return taken
        }
    }
}
