import Foundation

/// Committed row snapshots with their version (`Z_OPT`), shared by every context of a
/// coordinator, so a fault whose row another context just saved or loaded fires without SQL.
///
/// Thread-safe. Bounded: past `capacity` entries it starts over, so it never grows with the
/// size of the store.
final class RowCache: @unchecked Sendable {  // every access holds `lock`
    struct Entry {
        var values: ContiguousArray<SlotValue>
        var version: Int64
    }

    private let lock = NSLock()
    private var rows: [ObjectID: Entry] = [:]
    let capacity: Int

    init(capacity: Int = 50_000) { self.capacity = capacity }

    func row(for id: ObjectID) -> Entry? { lock.withLock { rows[id] } }

    func store(_ entries: [(ObjectID, Entry)]) {
        lock.withLock {
            if rows.count + entries.count > capacity { rows.removeAll(keepingCapacity: true) }
            for (id, entry) in entries.suffix(capacity) { rows[id] = entry }
        }
    }

    func remove(_ ids: [ObjectID]) {
        lock.withLock { for id in ids { rows.removeValue(forKey: id) } }
    }

    /// Removes the rows of every object `deletion` names (one pass over the cache).
    func remove(_ deletion: EntityDeletion) {
        lock.withLock {
            for id in rows.keys.filter(deletion.contains) { rows.removeValue(forKey: id) }
        }
    }

    func removeAll() { lock.withLock { rows.removeAll() } }
}
