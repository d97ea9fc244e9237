/// The order a save visits and writes its objects in.
///
/// A context's change tables keep objects in the order they joined, which need not be the
/// store's. In hash order (when the change sets were `Set`s) every pass of a save jumped
/// around memory (at a million new objects, a cache miss per object and pass), and SQLite,
/// given updates and deletes in random key order, read and spilled a page per row as soon as
/// a table outgrew its page cache (72,000 `pwrite`s and 78,000 `pread`s instead of 10,000 and
/// 16,000 for 100,000 updated rows). So:
///
/// - new objects are saved in the order they were created, which is also the order their
///   primary keys are handed out in;
/// - updated and deleted rows table by table (by root entity name, the same in every
///   process), key by key: SQLite walks each B-tree once, and savers in several processes on
///   a server store take row locks in one order.
enum SaveOrder {
    /// New `objects` in the order they were created: their temporary IDs' serials count up
    /// (a temporary ID's key is its serial, negated). The insertion table is in that order
    /// already unless undo put an object back.
    static func inCreationOrder(_ objects: [ManagedObject]) -> [ManagedObject] {
        guard objects.count > 1 else { return objects }
        var serials: [Int64] = []
        serials.reserveCapacity(objects.count)
        for object in objects { serials.append(-object.objectID.key) }
        return ascending(serials).map { order in order.map { objects[$0] } } ?? objects
    }

    /// `items` table by table (by root entity name), key by key, by the ID `id` gives each.
    static func sorted<Item>(_ items: [Item], by id: (Item) -> ObjectID) -> [Item] {
        guard items.count > 1 else { return items }
        // Root entities by address (no reference counting in the loop).
        var roots: [UnsafeRawPointer] = []
        var tables: [Int] = []
        var keys: [Int64] = []
        tables.reserveCapacity(items.count)
        keys.reserveCapacity(items.count)
        for item in items {
            let objectID = id(item)
            let root = objectID.tableParts.root
            if let last = roots.last, last == root {
                tables.append(roots.count - 1)
            } else if let known = roots.firstIndex(of: root) {
                tables.append(known)
            } else {
                roots.append(root)
                tables.append(roots.count - 1)
            }
            keys.append(objectID.key)
        }
        if roots.count == 1 { return ascending(keys).map { order in order.map { items[$0] } } ?? items }
        // Tables by name: the order of first appearance differs between processes.
        // Unretained: entities live as long as the process (docs/unsafe-code.md).
        let names = roots.map { Unmanaged<EntityDescription>.fromOpaque($0).takeUnretainedValue().name }
        let byName = roots.indices.sorted { names[$0] < names[$1] }
        var rank = [Int](repeating: 0, count: roots.count)
        for (position, table) in byName.enumerated() { rank[table] = position }
        var order = items.indices.map { (table: rank[tables[$0]], key: keys[$0], position: $0) }
        order.sort { ($0.table, $0.key) < ($1.table, $1.key) }
        return order.map { items[$0.position] }
    }

    /// The positions of `keys` (distinct) in ascending key order, or nil when they are in
    /// order already. Keys of one table or one context's new objects are mostly dense, so
    /// they are placed by value in one pass when their range is at most four times their
    /// number; others are sorted. Plain integers either way: sorting the items themselves
    /// would retain and release on every move.
    private static func ascending(_ keys: [Int64]) -> [Int]? {
        var inOrder = true
        var low = keys[0], high = keys[0]
        for index in 1..<keys.count {
            let key = keys[index]
            if key < keys[index - 1] { inOrder = false }
            low = min(low, key)
            high = max(high, key)
        }
        if inOrder { return nil }
        let (span, overflow) = high.subtractingReportingOverflow(low)
        if !overflow && span < Int64(keys.count) * 4 && keys.count <= Int(Int32.max) {
            var slots = [Int32](repeating: -1, count: Int(span) + 1)
            var distinct = true
            for (position, key) in keys.enumerated() {
                let slot = Int(key - low)
                if slots[slot] != -1 { distinct = false; break }
                slots[slot] = Int32(truncatingIfNeeded: position)
            }
            if distinct {
                var positions: [Int] = []
                positions.reserveCapacity(keys.count)
                for slot in slots where slot != -1 { positions.append(Int(slot)) }
                return positions
            }
        }
        var order = keys.indices.map { (key: keys[$0], position: $0) }
        order.sort { ($0.key, $0.position) < ($1.key, $1.position) }
        return order.map(\.position)
    }
}
