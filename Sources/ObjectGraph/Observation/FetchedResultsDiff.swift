/// How ``FetchedResults`` changed in one save or merge, in index form: what a table or a
/// list applies to move from the old results to the new ones.
///
/// Positions of deletions and of the sources of moves are in the **old** results; positions
/// of insertions, destinations of moves and updates are in the **new** ones. Applied in this
/// order, the old sections become exactly the new:
///
/// 1. remove the items at ``deletedItems`` and at every move's `from`, highest position first;
/// 2. remove the (now empty) sections at ``deletedSections``, highest first;
/// 3. insert empty sections at ``insertedSections``, lowest first;
/// 4. insert the items at ``insertedItems`` and at every move's `to`, lowest position first.
///
/// An object that stayed in place but changed is listed in ``updatedItems``; an object that
/// moved and changed is listed once, as a move. A section whose order among the others
/// changed is deleted and inserted, its objects moved. An immutable value: `Sendable`.
public struct FetchedResultsDiff: Sendable, Equatable, CustomStringConvertible {
    /// One object's move, from its old position to its new one.
    public struct Move: Hashable, Sendable {
        public var from: ResultPosition
        public var to: ResultPosition
    }

    public var deletedSections: [Int] = []
    public var insertedSections: [Int] = []
    public var deletedItems: [ResultPosition] = []
    public var insertedItems: [ResultPosition] = []
    public var movedItems: [Move] = []
    public var updatedItems: [ResultPosition] = []

    /// Whether nothing changed.
    public var isEmpty: Bool {
        deletedSections.isEmpty && insertedSections.isEmpty && deletedItems.isEmpty && insertedItems.isEmpty
            && movedItems.isEmpty && updatedItems.isEmpty
    }

    public var description: String {
        var parts: [String] = []
        if !deletedSections.isEmpty { parts.append("sections deleted \(deletedSections)") }
        if !insertedSections.isEmpty { parts.append("sections inserted \(insertedSections)") }
        if !deletedItems.isEmpty { parts.append("deleted \(deletedItems)") }
        if !insertedItems.isEmpty { parts.append("inserted \(insertedItems)") }
        if !movedItems.isEmpty { parts.append("moved " + movedItems.map { "\($0.from)→\($0.to)" }.joined(separator: ", ")) }
        if !updatedItems.isEmpty { parts.append("updated \(updatedItems)") }
        return parts.isEmpty ? "no change" : parts.joined(separator: "; ")
    }
}

extension FetchedResultsDiff {
    /// A section as the diff sees it: its name and its objects' identities in order.
    struct Section {
        var name: String
        var items: [ObjectIdentifier]
    }

    /// The diff from `old` to `new`; objects in `updated` that stay in place are listed as updates.
    ///
    /// - Complexity: O(n log n) in the number of objects (a longest increasing subsequence
    ///   picks the objects that stay, so the moves are as few as possible).
    init(from old: [Section], to new: [Section], updated: Set<ObjectIdentifier>) {
        var oldSectionIndex: [String: Int] = [:]
        for (index, section) in old.enumerated() { oldSectionIndex[section.name] = index }
        // Sections present on both sides keep their place when their order is unchanged.
        let common = new.indices.compactMap { newIndex in oldSectionIndex[new[newIndex].name].map { (old: $0, new: newIndex) } }
        let keptCommon = Self.longestIncreasingSubsequence(common.map(\.old)).map { common[$0] }
        var sectionKeptFromOld = [Int?](repeating: nil, count: new.count)   // new index -> old index
        var oldSectionKept = [Bool](repeating: false, count: old.count)
        for pair in keptCommon {
            sectionKeptFromOld[pair.new] = pair.old
            oldSectionKept[pair.old] = true
        }
        deletedSections = old.indices.filter { !oldSectionKept[$0] }
        insertedSections = new.indices.filter { sectionKeptFromOld[$0] == nil }

        var oldPosition: [ObjectIdentifier: ResultPosition] = [:]
        for (s, section) in old.enumerated() {
            for (i, item) in section.items.enumerated() { oldPosition[item] = ResultPosition(section: s, item: i) }
        }
        var present = Set<ObjectIdentifier>()
        for (s, section) in new.enumerated() {
            // Objects that were in the same (kept) section: the longest run in old order stays.
            var candidates: [(item: Int, old: ResultPosition)] = []
            if let oldSection = sectionKeptFromOld[s] {
                for (i, item) in section.items.enumerated() {
                    if let position = oldPosition[item], position.section == oldSection { candidates.append((i, position)) }
                }
            }
            var stays = Set<Int>()
            for index in Self.longestIncreasingSubsequence(candidates.map(\.old.item)) { stays.insert(candidates[index].item) }
            for (i, item) in section.items.enumerated() {
                present.insert(item)
                let position = ResultPosition(section: s, item: i)
                if stays.contains(i) {
                    if updated.contains(item) { updatedItems.append(position) }
                } else if let from = oldPosition[item] {
                    movedItems.append(Move(from: from, to: position))
                } else {
                    insertedItems.append(position)
                }
            }
        }
        for (s, section) in old.enumerated() {
            for (i, item) in section.items.enumerated() where !present.contains(item) {
                deletedItems.append(ResultPosition(section: s, item: i))
            }
        }
    }

    /// The indices (into `values`) of a longest strictly increasing subsequence.
    static func longestIncreasingSubsequence(_ values: [Int]) -> [Int] {
        guard !values.isEmpty else { return [] }
        var tails: [Int] = []          // indices into values: the smallest tail of each length
        var previous = [Int](repeating: -1, count: values.count)
        for (index, value) in values.enumerated() {
            var low = 0, high = tails.count
            while low < high {
                let middle = (low + high) / 2
                if values[tails[middle]] < value { low = middle + 1 } else { high = middle }
            }
            if low > 0 { previous[index] = tails[low - 1] }
            if low == tails.count { tails.append(index) } else { tails[low] = index }
        }
        var result: [Int] = []
        var index = tails.last ?? -1
        while index >= 0 {
            result.append(index)
            index = previous[index]
        }
        return result.reversed()
    }
}
