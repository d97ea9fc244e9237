/// A context's identity map: object ID → the registered object, held without a reference.
///
/// Every fetched row, every relationship read and every object's deallocation goes through
/// it, so it is an open-addressing table specialized for object IDs: the key is the primary
/// key (negative for temporary IDs) with the root entity and the store compared by identity,
/// hashed with one multiplication (Fibonacci hashing) instead of SipHash over the ID's
/// fields, probed linearly, and removed from by shifting back (no tombstones).
///
/// Not thread-safe: it belongs to one context and is used on that context's thread.
final class IdentityMap {
    private struct Slot {
        var key: Int64
        var root: UnsafeRawPointer?
        var store: UnsafeRawPointer?
        /// The object (an unretained `Unmanaged` pointer); nil for an empty slot.
        var object: UnsafeMutableRawPointer?
    }

    // Exclusivity is not checked at run time: the map is used on one thread, one call at a time.
    @exclusivity(unchecked) private var slots: UnsafeMutablePointer<Slot>
    @exclusivity(unchecked) private var capacity: Int
    /// 64 − log2(capacity): the shift that turns a 64-bit product into an index.
    @exclusivity(unchecked) private var shift: UInt64
    @exclusivity(unchecked) private(set) var count = 0

    init() {
        capacity = 16
        shift = 64 - 4
        slots = Self.allocate(capacity)
    }

    deinit {
        slots.deallocate()
    }

    private static func allocate(_ capacity: Int) -> UnsafeMutablePointer<Slot> {
        let slots = UnsafeMutablePointer<Slot>.allocate(capacity: capacity)
        slots.initialize(repeating: Slot(key: 0, root: nil, store: nil, object: nil), count: capacity)
        return slots
    }

    @inline(__always)
    private static func parts(_ id: ObjectID) -> (Int64, UnsafeRawPointer, UnsafeRawPointer?) {
        (id.key, UnsafeRawPointer(Unmanaged.passUnretained(id.entity.root).toOpaque()),
         id.store.map { UnsafeRawPointer(Unmanaged.passUnretained($0).toOpaque()) })
    }

    @inline(__always)
    private func home(_ key: Int64, _ root: UnsafeRawPointer) -> Int {
        let mixed = UInt64(bitPattern: key) ^ (UInt64(UInt(bitPattern: root)) &>> 4)
        return Int(truncatingIfNeeded: (mixed &* 0x9E37_79B9_7F4A_7C15) &>> shift)
    }

    /// The slot holding `id`, or the empty slot where it would go.
    @inline(__always)
    private func find(_ key: Int64, _ root: UnsafeRawPointer, _ store: UnsafeRawPointer?) -> (index: Int, found: Bool) {
        let mask = capacity &- 1
        var index = home(key, root)
        while true {
            let slot = slots[index]
            if slot.object == nil { return (index, false) }
            if slot.key == key && slot.root == root && slot.store == store { return (index, true) }
            index = (index &+ 1) & mask
        }
    }

    /// The object registered for `id`; setting nil removes it.
    subscript(id: ObjectID) -> Unmanaged<ManagedObject>? {
        @inline(__always) get {
            let (key, root, store) = Self.parts(id)
            let (index, found) = find(key, root, store)
            return found ? slots[index].object.map { Unmanaged.fromOpaque($0) } : nil
        }
        set {
            guard let newValue else {
                removeValue(forKey: id)
                return
            }
            let (key, root, store) = Self.parts(id)
            let (index, found) = find(key, root, store)
            if found {
                slots[index].object = newValue.toOpaque()
                return
            }
            slots[index] = Slot(key: key, root: root, store: store, object: newValue.toOpaque())
            count += 1
            if count * 10 > capacity * 7 { grow() }
        }
    }

    /// Removes the entry for `id`, whatever object it holds.
    func removeValue(forKey id: ObjectID) {
        let (key, root, store) = Self.parts(id)
        let (index, found) = find(key, root, store)
        if found { remove(at: index) }
    }

    /// Removes the entry for `id` only if it holds `object` (a newer object may have taken
    /// the ID since).
    func remove(_ id: ObjectID, ifItIs object: ManagedObject) {
        let (key, root, store) = Self.parts(id)
        let (index, found) = find(key, root, store)
        if found, slots[index].object == Unmanaged.passUnretained(object).toOpaque() {
            remove(at: index)
        }
    }

    func removeAll() {
        for index in 0..<capacity { slots[index].object = nil }
        count = 0
    }

    /// The registered objects, unretained, in no particular order (a copy: the map may
    /// change while the caller goes through them).
    var objects: [Unmanaged<ManagedObject>] {
        var result: [Unmanaged<ManagedObject>] = []
        result.reserveCapacity(count)
        for index in 0..<capacity {
            if let object = slots[index].object { result.append(Unmanaged.fromOpaque(object)) }
        }
        return result
    }

    /// Backward-shift deletion: later members of the probe run move into the gap, so that
    /// lookups never stop early at it.
    private func remove(at removed: Int) {
        let mask = capacity &- 1
        var gap = removed
        var index = (gap &+ 1) & mask
        while slots[index].object != nil {
            let wanted = home(slots[index].key, slots[index].root.unsafelyUnwrapped)
            // Move the entry into the gap unless its home lies cyclically in (gap, index].
            let distanceToEntry = (index &- wanted) & mask
            let distanceToGap = (index &- gap) & mask
            if distanceToEntry >= distanceToGap {
                slots[gap] = slots[index]
                gap = index
            }
            index = (index &+ 1) & mask
        }
        slots[gap].object = nil
        count -= 1
    }

    private func grow() {
        let old = slots
        let oldCapacity = capacity
        capacity *= 2
        shift -= 1
        slots = Self.allocate(capacity)
        let mask = capacity &- 1
        for index in 0..<oldCapacity {
            let slot = old[index]
            guard slot.object != nil else { continue }
            var target = home(slot.key, slot.root.unsafelyUnwrapped)
            while slots[target].object != nil { target = (target &+ 1) & mask }
            slots[target] = slot
        }
        old.deallocate()
    }
}
