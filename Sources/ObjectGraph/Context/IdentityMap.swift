import CObjectGraphRuntime
import Synchronization
#if canImport(Glibc)
import Glibc
#endif

/// A context's identity map: object ID → the registered object, held without a reference.
///
/// Every fetched row, every relationship read and every object's deallocation goes through
/// it. Rows arrive (and objects are usually released) in primary-key order, so the map keeps
/// **pages of 16 consecutive keys** of one root entity and store: consecutive objects share a
/// page, and a page is found again through a one-entry cache without hashing. Pages are found
/// in an open-addressing directory keyed by (key ÷ 16, root entity, store) — root entity and
/// store compared by identity, one multiplication as the hash (Fibonacci hashing) instead of
/// SipHash over the ID's fields, linear probing, backward-shift deletion (no tombstones). An
/// empty page is freed at once.
///
/// Temporary IDs (negative keys) page the same way. A context that registers scattered keys
/// (one in every hundred rows, say) pays up to a page (128 bytes) per object.
///
/// **Threads.** The map belongs to one context and is changed on that context's thread, with
/// one exception: an object's last reference may be let go on any thread, and the object's
/// deallocation then removes its entry there. So every operation holds the map's lock (an
/// uncontended spin lock: one atomic exchange and one store), lookups hand out objects with a
/// strong reference taken by `swift_tryRetain` (which refuses an object already
/// deallocating: its entry is then as good as gone), and a context that detaches all its
/// objects waits for the deallocations under way on other threads to finish with it
/// (docs/unsafe-code.md, section 4).
final class IdentityMap {
    private static let pageBits: Int64 = 4
    private static let pageSize = 1 << pageBits
    /// Object pointers (unretained `Unmanaged`), nil where no object is registered.
    private typealias Page = UnsafeMutablePointer<UnsafeMutableRawPointer?>

    private struct Entry {
        var pageKey: Int64
        var root: UnsafeRawPointer?
        var store: UnsafeRawPointer?
        /// nil for an empty directory entry.
        var page: Page?
        var occupied: Int
    }

    /// Held by every operation (see **Threads** above).
    private let lockWord = Atomic<Bool>(false)

    // Exclusivity is not checked at run time: every access holds `lockWord`.
    @exclusivity(unchecked) private var entries: UnsafeMutablePointer<Entry>
    @exclusivity(unchecked) private var capacity: Int
    /// 64 − log2(capacity): the shift that turns a 64-bit product into an index.
    @exclusivity(unchecked) private var shift: UInt64
    @exclusivity(unchecked) private var pageCount = 0
    /// The directory entry found last (-1: none); entries move only when the directory grows
    /// or loses an entry, and both reset it.
    @exclusivity(unchecked) private var lastIndex = -1
    /// The number of registered objects.
    @exclusivity(unchecked) private var storedCount = 0

    init() {
        capacity = 16
        shift = 64 - 4
        entries = Self.allocate(capacity)
    }

    deinit {
        for index in 0..<capacity { entries[index].page?.deallocate() }
        entries.deallocate()
    }

    private static func allocate(_ capacity: Int) -> UnsafeMutablePointer<Entry> {
        let entries = UnsafeMutablePointer<Entry>.allocate(capacity: capacity)
        entries.initialize(repeating: Entry(pageKey: 0, root: nil, store: nil, page: nil, occupied: 0), count: capacity)
        return entries
    }

    /// The page key, root entity and store of `id`, and its position in its page.
    @inline(__always)
    private static func parts(_ id: ObjectID) -> (pageKey: Int64, root: UnsafeRawPointer, store: UnsafeRawPointer?, offset: Int) {
        let (root, store) = id.tableParts
        return (id.key >> pageBits, root, store, Int(truncatingIfNeeded: id.key & Int64(pageSize - 1)))
    }

    @inline(__always)
    private func home(_ pageKey: Int64, _ root: UnsafeRawPointer) -> Int { fibonacciHome(pageKey, root, shift: shift) }

    @inline(__always)
    private func matches(_ index: Int, _ pageKey: Int64, _ root: UnsafeRawPointer, _ store: UnsafeRawPointer?) -> Bool {
        let entry = entries[index]
        return entry.page != nil && entry.pageKey == pageKey && entry.root == root && entry.store == store
    }

    /// The directory entry for a page, or the empty entry where it would go.
    @inline(__always)
    private func find(_ pageKey: Int64, _ root: UnsafeRawPointer, _ store: UnsafeRawPointer?) -> (index: Int, found: Bool) {
        if lastIndex >= 0, matches(lastIndex, pageKey, root, store) { return (lastIndex, true) }
        let mask = capacity &- 1
        var index = home(pageKey, root)
        while true {
            let entry = entries[index]
            if entry.page == nil { return (index, false) }
            if entry.pageKey == pageKey && entry.root == root && entry.store == store {
                lastIndex = index
                return (index, true)
            }
            index = (index &+ 1) & mask
        }
    }

    @inline(__always)
    private func lock() {
        while lockWord.exchange(true, ordering: .acquiring) {
            // Held by a deallocation on another thread, for a few instructions.
            sched_yield()
        }
    }

    @inline(__always)
    private func unlock() { lockWord.store(false, ordering: .releasing) }

    @inline(__always)
    private func withLock<T>(_ body: () -> T) -> T {
        lock()
        defer { unlock() }
        return body()
    }

    /// The live object registered for `id` (retained), or nil — also when the registered
    /// object is deallocating on another thread at this moment.
    subscript(id: ObjectID) -> ManagedObject? {
        @inline(__always) get {
            let retained: UnsafeMutableRawPointer? = withLock {
                let (pageKey, root, store, offset) = Self.parts(id)
                let (index, found) = find(pageKey, root, store)
                guard found, let object = entries[index].page.unsafelyUnwrapped[offset], og_try_retain(object) else { return nil }
                return object
            }
            return retained.map { Unmanaged<ManagedObject>.fromOpaque($0).takeRetainedValue() }
        }
    }

    /// Registers `object` for `id`, in place of any object registered for it before.
    func set(_ object: ManagedObject, for id: ObjectID) {
        let pointer = Unmanaged.passUnretained(object).toOpaque()
        withLock {
            let (pageKey, root, store, offset) = Self.parts(id)
            var (index, found) = find(pageKey, root, store)
            if !found {
                if (pageCount + 1) * 10 > capacity * 7 {
                    grow()
                    index = find(pageKey, root, store).index
                }
                let page = Page.allocate(capacity: Self.pageSize)
                page.initialize(repeating: nil, count: Self.pageSize)
                entries[index] = Entry(pageKey: pageKey, root: root, store: store, page: page, occupied: 0)
                pageCount += 1
                lastIndex = index
            }
            let page = entries[index].page.unsafelyUnwrapped
            if page[offset] == nil {
                storedCount += 1
                entries[index].occupied += 1
            }
            page[offset] = pointer
        }
    }

    /// Removes the entry for `id`, whatever object it holds.
    func removeValue(forKey id: ObjectID) {
        remove(id) { _ in true }
    }

    /// Removes the entry for `id` only if it holds `object` (a newer object may have taken
    /// the ID since).
    func remove(_ id: ObjectID, ifItIs object: ManagedObject) {
        let pointer = Unmanaged.passUnretained(object).toOpaque()
        remove(id) { $0 == pointer }
    }

    @inline(__always)
    private func remove(_ id: ObjectID, if holds: (UnsafeMutableRawPointer) -> Bool) {
        withLock { removeLocked(id, if: holds) }
    }

    @inline(__always)
    private func removeLocked(_ id: ObjectID, if holds: (UnsafeMutableRawPointer) -> Bool) {
        let (pageKey, root, store, offset) = Self.parts(id)
        let (index, found) = find(pageKey, root, store)
        guard found else { return }
        let page = entries[index].page.unsafelyUnwrapped
        guard let current = page[offset], holds(current) else { return }
        page[offset] = nil
        storedCount -= 1
        entries[index].occupied -= 1
        if entries[index].occupied == 0 {
            page.deallocate()
            removeEntry(at: index)
        }
    }

    /// The registered objects that are alive, retained, in no particular order (a copy: the
    /// map may change while the caller goes through them).
    var objects: [ManagedObject] {
        retainedObjects().map { $0.takeRetainedValue() }
    }

    /// Every live registered object with a strong reference taken (objects deallocating on
    /// another thread are left out).
    private func retainedObjects() -> [Unmanaged<ManagedObject>] {
        withLock {
            var result: [Unmanaged<ManagedObject>] = []
            result.reserveCapacity(storedCount)
            forEachPointer { object in
                if og_try_retain(object) { result.append(Unmanaged.fromOpaque(object)) }
            }
            return result
        }
    }

    @inline(__always)
    private func forEachPointer(_ body: (UnsafeMutableRawPointer) -> Void) {
        for index in 0..<capacity {
            guard let page = entries[index].page else { continue }
            for offset in 0..<Self.pageSize {
                if let object = page[offset] { body(object) }
            }
        }
    }

    /// Detaches every registered object from its context (`detach`, called with each live
    /// object while the map is locked) and empties the map. Objects deallocating on other
    /// threads at this moment are not touched: their deallocation still finds the context
    /// and removes its own entry, and this call returns only once they all have, so the
    /// context they reach stays alive for them (docs/unsafe-code.md, section 4).
    func detachAll(_ detach: (ManagedObject) -> Void) {
        lock()
        var detached: [Unmanaged<ManagedObject>] = []
        detached.reserveCapacity(storedCount)
        forEachPointer { object in
            if og_try_retain(object) { detached.append(Unmanaged.fromOpaque(object)) }
        }
        for reference in detached { reference._withUnsafeGuaranteedRef(detach) }
        while storedCount > detached.count {
            // Only objects deallocating elsewhere are left; each removes its entry.
            unlock()
            sched_yield()
            lock()
        }
        removeAllLocked()
        unlock()
        // Released outside the lock: a last release deallocates here, finding no context.
        for reference in detached { reference.release() }
    }

    private func removeAllLocked() {
        for index in 0..<capacity {
            entries[index].page?.deallocate()
            entries[index].page = nil
        }
        storedCount = 0
        pageCount = 0
        lastIndex = -1
    }

    /// Removes the directory entry at `removed` (backward-shift deletion).
    private func removeEntry(at removed: Int) {
        let gap = shiftBackAfterRemoving(at: removed, mask: capacity &- 1,
                                         isOccupied: { entries[$0].page != nil },
                                         home: { home(entries[$0].pageKey, entries[$0].root.unsafelyUnwrapped) },
                                         move: { entries[$1] = entries[$0] })
        entries[gap].page = nil
        pageCount -= 1
        lastIndex = -1
    }

    private func grow() {
        let old = entries
        let oldCapacity = capacity
        capacity *= 2
        shift -= 1
        entries = Self.allocate(capacity)
        let mask = capacity &- 1
        for index in 0..<oldCapacity {
            let entry = old[index]
            guard entry.page != nil else { continue }
            var target = home(entry.pageKey, entry.root.unsafelyUnwrapped)
            while entries[target].page != nil { target = (target &+ 1) & mask }
            entries[target] = entry
        }
        old.deallocate()
        lastIndex = -1
    }
}
