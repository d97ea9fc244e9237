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

    /// What to call when a change set arrives and the owner should merge it without waiting
    /// for its next access (a main-queue context with observers schedules its merge on the
    /// main queue); nil: merges wait for the owner's next access.
    var wakeUp: (@Sendable () -> Void)? {
        get { lock.withLock { wakeUpStorage } }
        set { lock.withLock { wakeUpStorage = newValue } }
    }
    private var wakeUpStorage: (@Sendable () -> Void)?
    /// Whether a wake-up was handed out and the owner has not taken the sets since.
    private var wakeUpPending = false

    /// Posts a saved change set. Returns the ``wakeUp`` to call (outside any lock) when this
    /// post is the first since the owner last took the sets, or nil.
    func post(_ changes: ChangeSet) -> (@Sendable () -> Void)? {
        lock.withLock {
            if !overflowed {
                sets.append(changes)
                // An entity deletion names no rows: it holds no more memory than one ID.
                objectCount += changes.updated.count + changes.deleted.count + changes.inserted.count + changes.deletedEntities.count
                if objectCount > capacityStorage {
                    // A context nobody uses for a long time must not hoard every save's rows:
                    // past the capacity, forget them and refresh everything at the next access.
                    sets.removeAll()
                    overflowed = true
                }
            }
            waiting.store(true, ordering: .releasing)
            guard let wakeUpStorage, !wakeUpPending else { return nil }
            wakeUpPending = true
            return wakeUpStorage
        }
    }

    /// Asks the owner to refresh everything at its next access (changes were made elsewhere
    /// that cannot be listed, such as while a server store's listener was reconnecting): the
    /// waiting sets are dropped, as when the inbox overflows. Returns the wake-up to call, as
    /// ``post(_:)`` does.
    func postRefreshAll() -> (@Sendable () -> Void)? {
        lock.withLock {
            sets.removeAll()
            objectCount = 0
            overflowed = true
            waiting.store(true, ordering: .releasing)
            guard let wakeUpStorage, !wakeUpPending else { return nil }
            wakeUpPending = true
            return wakeUpStorage
        }
    }

    /// The owner could not merge when woken (it was busy elsewhere): the next post wakes it again.
    func wakeUpMissed() {
        lock.withLock { wakeUpPending = false }
    }

    /// Takes everything waiting: the change sets in posting order, and whether some were
    /// dropped because the inbox overflowed.
    func take() -> (sets: [ChangeSet], overflowed: Bool) {
        lock.withLock {
            let taken = (sets, overflowed)
            sets.removeAll()
            objectCount = 0
            overflowed = false
            wakeUpPending = false
            waiting.store(false, ordering: .relaxed)
            return taken
        }
    }
}
