/// The order a save writes updated and deleted rows in: table by table (by root entity name,
/// the same in every process), key by key.
///
/// A context keeps its changed objects in sets, whose order is their addresses' hashes. In
/// that order SQLite read and spilled a page per row as soon as a table outgrew its page cache
/// (72,000 `pwrite`s and 78,000 `pread`s instead of 10,000 and 16,000 for 100,000 updated
/// rows); in key order it walks each B-tree once. Savers in several processes on a server
/// store also take row locks in one order.
enum SaveOrder {
    /// `items` in store order, by the ID `id` gives each.
    static func sorted<Item>(_ items: [Item], by id: (Item) -> ObjectID) -> [Item] {
        guard items.count > 1 else { return items }
        // Sorting plain (table, key, position) triples and moving each item once is several
        // times cheaper than sorting the items, whose copies retain and release.
        var roots: [EntityDescription] = []
        var order: [(table: Int, key: Int64, position: Int)] = []
        order.reserveCapacity(items.count)
        var inOrder = true
        for (position, item) in items.enumerated() {
            let objectID = id(item)
            let root = objectID.entity.root
            let table: Int
            if let last = roots.last, last === root {
                table = roots.count - 1
            } else if let known = roots.firstIndex(where: { $0 === root }) {
                table = known
            } else {
                roots.append(root)
                table = roots.count - 1
            }
            let entry = (table: table, key: objectID.key, position: position)
            if let previous = order.last, (previous.table, previous.key) > (entry.table, entry.key) { inOrder = false }
            order.append(entry)
        }
        if inOrder && roots.count == 1 { return items }
        // Tables by name: the order of first appearance differs between processes.
        let rank = roots.indices.sorted { roots[$0].name < roots[$1].name }
        var rankOfTable = [Int](repeating: 0, count: roots.count)
        for (position, table) in rank.enumerated() { rankOfTable[table] = position }
        for index in order.indices { order[index].table = rankOfTable[order[index].table] }
        order.sort { ($0.table, $0.key) < ($1.table, $1.key) }
        return order.map { items[$0.position] }
    }
}
