import Foundation

// Bookkeeping of a save, built for its per-object loops: no hashing of whole object IDs.

/// The primary keys a save gives its inserted objects, by temporary ID.
///
/// Temporary IDs carry a serial number unique in the process (whatever the entity), so the
/// table is keyed by that number alone: open addressing, one multiplication per hash.
struct TemporaryKeys {
    /// Pairs (serial, key) in one buffer; serial 0 marks an empty pair.
    private var pairs: ContiguousArray<Int64> = []
    private var shift: UInt64 = 64
    private(set) var count = 0

    init() {}

    init(capacity: Int) {
        guard capacity > 0 else { return }
        var size = 4
        var bits: UInt64 = 2
        while size < capacity * 2 { size <<= 1; bits += 1 }
        pairs = ContiguousArray(repeating: 0, count: size * 2)
        shift = 64 - bits
    }

    var isEmpty: Bool { count == 0 }

    @inline(__always)
    private func home(_ serial: Int64) -> Int {
        Int(truncatingIfNeeded: (UInt64(bitPattern: serial) &* 0x9E37_79B9_7F4A_7C15) &>> shift)
    }

    /// Records `key` for the temporary ID `id` (room for it was reserved at init).
    mutating func insert(_ id: ObjectID, key: Int64) {
        precondition(id.isTemporaryID && count * 2 < pairs.count / 2, "TemporaryKeys: no room for \(id)")
        let serial = -id.key
        let mask = pairs.count / 2 &- 1
        let start = home(serial)
        let added = pairs.withUnsafeMutableBufferPointer { pairs in
            var index = start
            while pairs[2 &* index] != 0 && pairs[2 &* index] != serial { index = (index &+ 1) & mask }
            let added = pairs[2 &* index] == 0
            pairs[2 &* index] = serial
            pairs[2 &* index &+ 1] = key
            return added
        }
        if added { count += 1 }
    }

    /// The key given to the temporary ID `id` in this save, or nil.
    @inline(__always)
    func key(for id: ObjectID) -> Int64? {
        guard count > 0 else { return nil }
        let serial = -id.key
        let mask = pairs.count / 2 &- 1
        return pairs.withUnsafeBufferPointer { pairs in
            var index = home(serial)
            while true {
                let found = pairs[2 &* index]
                if found == serial { return pairs[2 &* index &+ 1] }
                if found == 0 { return nil }
                index = (index &+ 1) & mask
            }
        }
    }

    /// The stored key of `id`: its primary key, or the key this save gave it.
    @inline(__always)
    func storedKey(_ id: ObjectID) -> Int64 {
        guard id.isTemporaryID else { return id.key }
        guard let key = key(for: id) else {
            preconditionFailure("ManagedRecord: \(id) is referenced by a saved object but is not inserted in this save")
        }
        return key
    }
}
