import Foundation

/// Committed row snapshots with their version (`Z_OPT`), shared by every context of a
/// coordinator, so a fault whose row another context just saved or loaded fires without SQL.
///
/// Thread-safe. Bounded: past `capacity` entries it starts over, so it never grows with the
/// size of the store. An entry only moves forward: a row older than the cached version of
/// it (read before a save, stored after) is ignored.
///
/// An open-addressing table keyed like the identity map (primary key, root entity and store
/// compared by identity, one multiplication per hash, linear probing, backward-shift removal):
/// every save stores a row per saved object.
final class RowCache: @unchecked Sendable {  // every access holds `lock`
    struct Entry {
        var values: ContiguousArray<SlotValue>
        var version: Int64
    }

    private struct Slot {
        var key: Int64
        /// The concrete entity of the ID (unretained: the model outlives the cache); nil: empty.
        var entity: UnsafeRawPointer?
        var root: UnsafeRawPointer?
        var store: UnsafeRawPointer?
        var version: Int64
        var values: ContiguousArray<SlotValue>

        static var empty: Slot { Slot(key: 0, entity: nil, root: nil, store: nil, version: 0, values: []) }
    }

    private let lock = NSLock()
    @exclusivity(unchecked) private var slots: UnsafeMutablePointer<Slot>
    @exclusivity(unchecked) private var size: Int
    /// 64 − log2(size).
    @exclusivity(unchecked) private var shift: UInt64
    @exclusivity(unchecked) private(set) var count = 0
    let capacity: Int

    init(capacity: Int = 50_000) {
        self.capacity = capacity
        size = 16
        shift = 64 - 4
        slots = Self.allocate(size)
    }

    deinit {
        slots.deinitialize(count: size)
        slots.deallocate()
    }

    private static func allocate(_ size: Int) -> UnsafeMutablePointer<Slot> {
        let slots = UnsafeMutablePointer<Slot>.allocate(capacity: size)
        slots.initialize(repeating: .empty, count: size)
        return slots
    }

    @inline(__always)
    private static func parts(_ id: ObjectID) -> (key: Int64, entity: UnsafeRawPointer, root: UnsafeRawPointer, store: UnsafeRawPointer?) {
        let (root, store) = id.tableParts
        return (id.key, UnsafeRawPointer(Unmanaged.passUnretained(id.entity).toOpaque()), root, store)
    }

    @inline(__always)
    private func home(_ key: Int64, _ root: UnsafeRawPointer) -> Int { fibonacciHome(key, root, shift: shift) }

    /// The slot holding the ID, or the empty slot where it would go.
    @inline(__always)
    private func find(_ key: Int64, _ root: UnsafeRawPointer, _ store: UnsafeRawPointer?) -> (index: Int, found: Bool) {
        let mask = size &- 1
        var index = home(key, root)
        while true {
            if slots[index].entity == nil { return (index, false) }
            if slots[index].key == key && slots[index].root == root && slots[index].store == store { return (index, true) }
            index = (index &+ 1) & mask
        }
    }

    func row(for id: ObjectID) -> Entry? {
        let parts = Self.parts(id)
        return lock.withLock {
            let (index, found) = find(parts.key, parts.root, parts.store)
            return found ? Entry(values: slots[index].values, version: slots[index].version) : nil
        }
    }

    func store(_ entries: [(ObjectID, Entry)]) {
        store(count: entries.count) { add in
            for (id, entry) in entries { add(id, entry.values, entry.version) }
        }
    }

    /// Stores `count` rows, which `body` passes to the function it gets (under the lock:
    /// `body` must not use the cache). Of more rows than `capacity`, the last ones stay.
    /// Without `addingNew`, a row replaces the cached row of its object and is not kept
    /// otherwise.
    func store(count: Int, addingNew: Bool = true,
               _ body: (_ add: (ObjectID, ContiguousArray<SlotValue>, Int64) -> Void) -> Void) {
        lock.withLock {
            guard addingNew else {
                body { id, values, version in
                    if self.count > 0 { set(id, values: values, version: version, addingNew: false) }
                }
                return
            }
            if self.count + count > capacity { removeAllEntries() }
            var skipped = max(0, count - capacity)
            reserve(self.count + count - skipped)
            body { id, values, version in
                if skipped > 0 {
                    skipped -= 1
                    return
                }
                set(id, values: values, version: version)
            }
        }
    }

    @inline(__always)
    /// Replaces the row of `id` (unless the cached one is newer), or adds it when `addingNew`.
    private func set(_ id: ObjectID, values: ContiguousArray<SlotValue>, version: Int64, addingNew: Bool = true) {
        let (key, entity, root, store) = Self.parts(id)
        let (index, found) = find(key, root, store)
        if found {
            // Rows read before a save can arrive after it (a prefetch, another thread's fetch):
            // an older version never replaces a newer one.
            if version < slots[index].version { return }
            slots[index].entity = entity
            slots[index].values = values
            slots[index].version = version
            return
        }
        guard addingNew else { return }
        slots[index] = Slot(key: key, entity: entity, root: root, store: store, version: version, values: values)
        count += 1
        if count * 4 > size * 3 { grow() }
    }

    func remove(_ ids: [ObjectID]) {
        guard !ids.isEmpty else { return }
        lock.withLock {
            for id in ids {
                let (key, _, root, store) = Self.parts(id)
                let (index, found) = find(key, root, store)
                if found { remove(at: index) }
            }
        }
    }

    /// Removes the rows of every object `deletion` names (one pass over the cache).
    func remove(_ deletion: EntityDeletion) {
        lock.withLock {
            var index = 0
            while index < size {
                if let entity = slots[index].entity,
                   deletion.contains(key: slots[index].key, entity: Unmanaged<EntityDescription>.fromOpaque(entity).takeUnretainedValue()) {
                    // Backward shift may move an unvisited entry into this slot: look at it again.
                    remove(at: index)
                    continue
                }
                index += 1
            }
        }
    }

    func removeAll() { lock.withLock { removeAllEntries() } }

    private func removeAllEntries() {
        guard count > 0 else { return }
        for index in 0..<size where slots[index].entity != nil { slots[index] = .empty }
        count = 0
    }

    /// Removes the entry at `removed` (backward-shift deletion).
    private func remove(at removed: Int) {
        let gap = shiftBackAfterRemoving(at: removed, mask: size &- 1,
                                         isOccupied: { slots[$0].entity != nil },
                                         home: { home(slots[$0].key, slots[$0].root.unsafelyUnwrapped) },
                                         move: { slots[$1] = slots[$0] })
        slots[gap] = .empty
        count -= 1
    }

    /// Grows the table (at most 3/4 full) for `count` entries at once.
    private func reserve(_ count: Int) {
        var newSize = size
        var newShift = shift
        while count * 4 > newSize * 3 {
            newSize *= 2
            newShift -= 1
        }
        if newSize != size { rehash(newSize, newShift) }
    }

    private func grow() { rehash(size * 2, shift - 1) }

    private func rehash(_ newSize: Int, _ newShift: UInt64) {
        let old = slots
        let oldSize = size
        size = newSize
        shift = newShift
        slots = Self.allocate(size)
        let mask = size &- 1
        for index in 0..<oldSize {
            guard old[index].entity != nil else { continue }
            var target = home(old[index].key, old[index].root.unsafelyUnwrapped)
            while slots[target].entity != nil { target = (target &+ 1) & mask }
            (slots + target).moveUpdate(from: old + index, count: 1)
            (old + index).initialize(to: .empty)
        }
        old.deinitialize(count: oldSize)
        old.deallocate()
    }
}
