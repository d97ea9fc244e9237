/// One of a context's change sets — its inserted, updated or deleted objects — in the order
/// the objects joined it.
///
/// Membership needs no hashing: each object keeps its position in each of the three tables
/// (``ManagedObject/changePositions``), and is a member exactly when that position holds it.
/// A `Set<ManagedObject>` hashed every object on every first change and handed a save its
/// objects in hash order, so each pass over a million of them missed the cache once per
/// object; in join order, objects changed in key order (as a fetch returns them) are saved
/// without sorting and visited in the order they sit in memory.
///
/// Removing leaves a hole, skipped when iterating; the table is compacted when holes
/// outnumber members. A value type, so iterating while the context changes the table goes
/// over the table as it was (as with a `Set`).
struct ChangeTable: Sequence {
    enum Kind {
        case inserted, updated, deleted
    }

    let kind: Kind
    private var members: ContiguousArray<ManagedObject?> = []
    /// The number of objects in the table.
    private(set) var count = 0

    init(_ kind: Kind) {
        self.kind = kind
    }

    var isEmpty: Bool { count == 0 }

    /// Whether `object` is in the table (no hashing: its position is read from the object).
    @inline(__always)
    func contains(_ object: ManagedObject) -> Bool {
        let position = Int(object.changePositions[kind])
        return position >= 0 && position < members.count && members[position] === object
    }

    /// Adds `object` at the end unless it is a member already; returns whether it was added.
    @discardableResult
    mutating func insert(_ object: ManagedObject) -> Bool {
        if contains(object) { return false }
        object.changePositions[kind] = Int32(truncatingIfNeeded: members.count)
        members.append(object)
        count += 1
        return true
    }

    /// Removes `object`; returns it when it was a member.
    @discardableResult
    mutating func remove(_ object: ManagedObject) -> ManagedObject? {
        guard contains(object) else { return nil }
        members[Int(object.changePositions[kind])] = nil
        object.changePositions[kind] = -1
        count -= 1
        if count == 0 {
            members.removeAll(keepingCapacity: true)
        } else if members.count > 32 && count * 2 < members.count {
            compact()
        }
        return object
    }

    mutating func removeAll() {
        members = []
        count = 0
    }

    /// Closes the holes, keeping the order.
    private mutating func compact() {
        var kept = ContiguousArray<ManagedObject?>()
        kept.reserveCapacity(count)
        for case let object? in members {
            object.changePositions[kind] = Int32(truncatingIfNeeded: kept.count)
            kept.append(object)
        }
        members = kept
    }

    /// The members and those of `other`, as a set.
    func union(_ other: some Sequence<ManagedObject>) -> Set<ManagedObject> {
        var union = Set(self)
        union.formUnion(other)
        return union
    }

    func makeIterator() -> Iterator { Iterator(members: members) }

    struct Iterator: IteratorProtocol {
        fileprivate let members: ContiguousArray<ManagedObject?>
        fileprivate var index = 0

        mutating func next() -> ManagedObject? {
            while index < members.count {
                defer { index += 1 }
                if let object = members[index] { return object }
            }
            return nil
        }
    }

    var underestimatedCount: Int { count }
}

/// An object's position in each of its context's change tables, or -1.
struct ChangePositions {
    private var positions: (Int32, Int32, Int32) = (-1, -1, -1)

    @inline(__always)
    subscript(kind: ChangeTable.Kind) -> Int32 {
        get {
            switch kind {
            case .inserted: return positions.0
            case .updated: return positions.1
            case .deleted: return positions.2
            }
        }
        set {
            switch kind {
            case .inserted: positions.0 = newValue
            case .updated: positions.1 = newValue
            case .deleted: positions.2 = newValue
            }
        }
    }
}
