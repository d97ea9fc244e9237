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
/// Not thread-safe: it belongs to one context and is used on that context's thread.
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

    // Exclusivity is not checked at run time: the map is used on one thread, one call at a time.
    @exclusivity(unchecked) private var entries: UnsafeMutablePointer<Entry>
    @exclusivity(unchecked) private var capacity: Int
    /// 64 − log2(capacity): the shift that turns a 64-bit product into an index.
    @exclusivity(unchecked) private var shift: UInt64
    @exclusivity(unchecked) private var pageCount = 0
    /// The directory entry found last (-1: none); entries move only when the directory grows
    /// or loses an entry, and both reset it.
    @exclusivity(unchecked) private var lastIndex = -1
    /// The number of registered objects.
    @exclusivity(unchecked) private(set) var count = 0

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

    /// The object registered for `id`; setting nil removes it.
    subscript(id: ObjectID) -> Unmanaged<ManagedObject>? {
        @inline(__always) get {
            let (pageKey, root, store, offset) = Self.parts(id)
            let (index, found) = find(pageKey, root, store)
            guard found, let object = entries[index].page.unsafelyUnwrapped[offset] else { return nil }
            return Unmanaged.fromOpaque(object)
        }
        set {
            guard let newValue else {
                removeValue(forKey: id)
                return
            }
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
                count += 1
                entries[index].occupied += 1
            }
            page[offset] = newValue.toOpaque()
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
        let (pageKey, root, store, offset) = Self.parts(id)
        let (index, found) = find(pageKey, root, store)
        guard found else { return }
        let page = entries[index].page.unsafelyUnwrapped
        guard let current = page[offset], holds(current) else { return }
        page[offset] = nil
        count -= 1
        entries[index].occupied -= 1
        if entries[index].occupied == 0 {
            page.deallocate()
            removeEntry(at: index)
        }
    }

    func removeAll() {
        for index in 0..<capacity {
            entries[index].page?.deallocate()
            entries[index].page = nil
        }
        count = 0
        pageCount = 0
        lastIndex = -1
    }

    /// The registered objects, unretained, in no particular order (a copy: the map may
    /// change while the caller goes through them).
    var objects: [Unmanaged<ManagedObject>] {
        var result: [Unmanaged<ManagedObject>] = []
        result.reserveCapacity(count)
        for index in 0..<capacity {
            guard let page = entries[index].page else { continue }
            for offset in 0..<Self.pageSize {
                if let object = page[offset] { result.append(Unmanaged.fromOpaque(object)) }
            }
        }
        return result
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
