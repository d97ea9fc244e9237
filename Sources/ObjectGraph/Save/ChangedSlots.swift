import Foundation

/// The slots of an updated object whose values differ from its snapshot: a bit mask when
/// the entity has at most 64 slots, else a list in ascending order.
struct ChangedSlots {
    var mask: UInt64 = 0
    /// Used instead of `mask` when the entity has more than 64 slots.
    var wide: [Int]? = nil

    /// Every slot of an entity with `count` slots.
    static func all(_ count: Int) -> ChangedSlots {
        if count <= 64 { return ChangedSlots(mask: count == 64 ? ~0 : (1 << UInt64(count)) &- 1) }
        return ChangedSlots(wide: Array(0..<count))
    }

    /// The changed slots of `object` (all of them for a new object, none for a fault), as
    /// `ManagedObject.changedSlots()` computes them.
    init(of object: ManagedObject, _ plan: EntitySavePlan) {
        if object.state.contains(.fault) { return }
        let values = object.values
        let snapshot = object.snapshot
        let count = values.count
        if snapshot.isEmpty {
            self = .all(count)
            return
        }
        if count <= 64 {
            var mask: UInt64 = 0
            let bitwise = plan.bitwiseComparable
            values.withUnsafeBufferPointer { values in
                snapshot.withUnsafeBufferPointer { snapshot in
                    for slot in 0..<count {
                        let bit: UInt64 = 1 << UInt64(slot)
                        // The same bits are the same value, except for floating-point types (NaN).
                        if bitwise & bit != 0 && SlotValue.sameBits(values.baseAddress.unsafelyUnwrapped + slot,
                                                                snapshot.baseAddress.unsafelyUnwrapped + slot) { continue }
                        if values[slot] != snapshot[slot] { mask |= bit }
                    }
                }
            }
            self.mask = mask
        } else {
            wide = values.indices.filter { values[$0] != snapshot[$0] }
        }
    }

    init(mask: UInt64) { self.mask = mask }
    init(wide: [Int]) { self.wide = wide }

    var isEmpty: Bool { wide?.isEmpty ?? (mask == 0) }

    @inline(__always)
    func contains(_ slot: Int) -> Bool {
        if let wide { return wide.contains(slot) }
        return slot < 64 && mask & (1 << UInt64(slot)) != 0
    }

    /// Whether any of the slots is also in `other` (a mask of the same entity).
    @inline(__always)
    func intersects(_ other: SlotMask) -> Bool {
        if let wide { return wide.contains { other.contains($0) } }
        return mask & other.mask != 0
    }

    /// The slots also in `other`.
    func intersection(_ other: SlotMask) -> ChangedSlots {
        if let wide { return ChangedSlots(wide: wide.filter { other.contains($0) }) }
        return ChangedSlots(mask: mask & other.mask)
    }

    /// The slots in ascending order.
    @inline(__always)
    func forEach(_ body: (Int) throws -> Void) rethrows {
        if let wide {
            for slot in wide { try body(slot) }
            return
        }
        var rest = mask
        while rest != 0 {
            try body(rest.trailingZeroBitCount)
            rest &= rest &- 1
        }
    }

    var slots: [Int] {
        var result: [Int] = []
        forEach { result.append($0) }
        return result
    }
}

/// A set of slots of one entity: a bit mask for the first 64, a list for the others.
struct SlotMask {
    var mask: UInt64 = 0
    var overflow: Set<Int> = []

    init(_ slots: some Sequence<Int>) {
        for slot in slots {
            if slot < 64 { mask |= 1 << UInt64(slot) } else { overflow.insert(slot) }
        }
    }

    @inline(__always)
    func contains(_ slot: Int) -> Bool {
        slot < 64 ? mask & (1 << UInt64(slot)) != 0 : overflow.contains(slot)
    }
}

extension SlotValue {
    /// Whether two slot values have the same representation (a sufficient condition for
    /// equality of every case but `.double` and `.decimal`; unused payload bytes may differ).
    @inline(__always)
    static func sameBits(_ a: UnsafePointer<SlotValue>, _ b: UnsafePointer<SlotValue>) -> Bool {
        let a = UnsafeRawPointer(a), b = UnsafeRawPointer(b)
        let size = MemoryLayout<SlotValue>.size
        var offset = 0
        while offset &+ 8 <= size {
            if a.load(fromByteOffset: offset, as: UInt64.self) != b.load(fromByteOffset: offset, as: UInt64.self) { return false }
            offset &+= 8
        }
        while offset < size {
            if a.load(fromByteOffset: offset, as: UInt8.self) != b.load(fromByteOffset: offset, as: UInt8.self) { return false }
            offset &+= 1
        }
        return true
    }
}
