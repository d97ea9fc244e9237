import CSQLite
import Foundation

// Bookkeeping structures of a save, built for its per-object loops: no hashing of whole
// object IDs, no per-object arrays, no runtime exclusivity checks.

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

/// What a save needs to know about one entity, computed once with the store layout.
final class EntitySavePlan {
    /// One value bound by INSERT after `Z_PK, Z_ENT, Z_OPT`.
    struct Column {
        let slot: Int
        /// Whether a `Z<n>_<REL>` column (the destination's `Z_ENT`) follows.
        let hasEntityColumn: Bool
    }

    let entityNumber: Int64
    let slotCount: Int
    /// `INSERT` of a new row with `Z_ENT` and `Z_OPT` (1) as constants: `Z_PK` is bound first,
    /// then `insertColumns`.
    let insertSQL: String
    /// INSERT's columns, in bind order.
    let insertColumns: [Column]
    /// Slots with a column.
    let stored: SlotMask
    /// Slots that are not transient (stored columns and to-many relationships).
    let persistent: SlotMask
    /// Slots with the entity-number column of a to-one relationship.
    let entityColumns: SlotMask
    /// Required (non-optional, stored, to-one or attribute) slots, in the model's order.
    let requiredSlots: [Int]
    let required: SlotMask
    /// To-many slots whose saves write a join table or an ordering column.
    let toManyWriteSlots: [Int]
    /// Relationship slots (the only ones that can hold object IDs).
    let relationshipSlots: [Int]
    /// Relationship slots a save writes (to-one columns, join tables, ordering columns):
    /// validation checks that their destinations will have rows.
    let referenceSlots: [Int]
    let references: SlotMask
    /// Stored `Codable` (transformable) attributes: validation checks for refused values.
    let codableSlots: [Int]
    let codables: SlotMask
    /// Slots (of the first 64) whose values are equal when their bits are: all but
    /// floating-point attributes, where NaN differs from itself.
    let bitwiseComparable: UInt64
    /// Slots a row does not hold, and what a stored row has in them.
    let unstoredSlots: [Int]
    let unstoredValues: [(slot: Int, value: SlotValue)]

    // Tests on the masks that read them in place (no copy of a mask's overflow set).

    /// Whether `changes` holds a slot that is not transient.
    @inline(__always)
    func changesPersistentSlots(_ changes: ChangedSlots) -> Bool {
        changes.wide == nil ? changes.mask & persistent.mask != 0 : changes.intersects(persistent)
    }

    /// Whether `changes` holds a required slot.
    @inline(__always)
    func changesRequiredSlots(_ changes: ChangedSlots) -> Bool {
        changes.wide == nil ? changes.mask & required.mask != 0 : changes.intersects(required)
    }

    /// The slots of `changes` that have a column.
    @inline(__always)
    func storedSlots(of changes: ChangedSlots) -> ChangedSlots {
        changes.wide == nil ? ChangedSlots(mask: changes.mask & stored.mask) : changes.intersection(stored)
    }

    @inline(__always)
    func hasEntityColumn(_ slot: Int) -> Bool {
        slot < 64 ? entityColumns.mask & (1 << UInt64(slot)) != 0 : entityColumns.contains(slot)
    }

    init(_ mapping: EntityMapping) {
        let entity = mapping.entity
        entityNumber = mapping.entityNumber
        slotCount = mapping.columnBySlot.count
        var columns = ["Z_PK", "Z_ENT", "Z_OPT"]
        var values = ["?", String(mapping.entityNumber), "1"]
        for slot in mapping.insertSlots {
            columns.append(mapping.columnBySlot[slot]!)
            values.append("?")
            if let entityColumn = mapping.entityColumnBySlot[slot] {
                columns.append(entityColumn)
                values.append("?")
            }
        }
        insertSQL = "INSERT INTO \(mapping.table.name) (\(columns.joined(separator: ", "))) VALUES (\(values.joined(separator: ", ")))"
        insertColumns = mapping.insertSlots.map { Column(slot: $0, hasEntityColumn: mapping.entityColumnBySlot[$0] != nil) }
        stored = SlotMask(mapping.columnBySlot.indices.filter { mapping.columnBySlot[$0] != nil })
        persistent = SlotMask(entity.properties.filter { !$0.isTransient }.map(\.slot))
        entityColumns = SlotMask(mapping.entityColumnBySlot.indices.filter { mapping.entityColumnBySlot[$0] != nil })
        requiredSlots = entity.requiredProperties.map(\.slot)
        required = SlotMask(requiredSlots)
        toManyWriteSlots = mapping.columnBySlot.indices.filter { slot in
            if let join = mapping.joinTableBySlot[slot], join.isWritingSide { return true }
            return mapping.orderColumnBySlot[slot] != nil && entity.relationshipAtSlot[slot] != nil
        }
        relationshipSlots = mapping.columnBySlot.indices.filter { entity.relationshipAtSlot[$0] != nil }
        let toManyWrites = Set(toManyWriteSlots)
        referenceSlots = relationshipSlots.filter { mapping.columnBySlot[$0] != nil || toManyWrites.contains($0) }
        references = SlotMask(referenceSlots)
        codableSlots = mapping.columnBySlot.indices.filter {
            mapping.columnBySlot[$0] != nil && entity.attributeAtSlot[$0]?.attributeType == .transformable
        }
        codables = SlotMask(codableSlots)
        var bitwise: UInt64 = 0
        for slot in mapping.columnBySlot.indices where slot < 64 {
            if let attribute = entity.attributeAtSlot[slot] {
                switch attribute.attributeType {
                case .double, .float, .date, .decimal: continue
                default: break
                }
            }
            bitwise |= 1 << UInt64(slot)
        }
        bitwiseComparable = bitwise
        unstoredSlots = mapping.unstoredSlots
        unstoredValues = mapping.unstoredSlots.map { ($0, mapping.readTemplate[$0]) }
    }
}

/// Save plans by entity, remembering the last one asked for (objects come in runs of one
/// entity), so that most lookups compare one pointer.
struct SavePlans {
    private let mappings: [EntityMapping]
    private var entity: UnsafeRawPointer?
    private var plan: EntitySavePlan?

    init(_ layout: StoreLayout) { mappings = layout.mappings }

    @inline(__always)
    mutating func callAsFunction(_ entity: EntityDescription) -> EntitySavePlan {
        let key = UnsafeRawPointer(Unmanaged.passUnretained(entity).toOpaque())
        if key == self.entity, let plan { return plan }
        let plan: EntitySavePlan = mappings[entity.index].savePlan
        self.entity = key
        self.plan = plan
        return plan
    }
}

/// Memory for the text parameters of one row, so that they are bound without a copy by
/// SQLite (`SQLITE_STATIC`) and without an allocation per value.
///
/// The bytes of a row stay in place until the next `startRow()`, which comes after the
/// statement has stepped; whoever binds from it clears the statement's bindings before
/// `deallocate()`. A value that does not fit is bound with a copy (`SQLITE_TRANSIENT`)
/// and the next row gets a larger buffer.
struct TextArena {
    private var base: UnsafeMutableRawPointer
    private var capacity: Int
    private var used = 0
    private var wanted = 0

    init(capacity: Int = 1024) {
        self.capacity = capacity
        base = UnsafeMutableRawPointer.allocate(byteCount: capacity, alignment: 8)
    }

    func deallocate() { base.deallocate() }

    /// Starts the values of a new row: the previous row's bytes may be overwritten.
    @inline(__always)
    mutating func startRow() {
        if wanted > capacity {
            base.deallocate()
            while capacity < wanted { capacity *= 2 }
            base = UnsafeMutableRawPointer.allocate(byteCount: capacity, alignment: 8)
        }
        used = 0
        wanted = 0
    }

    @inline(__always)
    mutating func bind(_ text: String, to statement: SQLiteStatement, at index: Int32) throws {
        var text = text
        try text.withUTF8 { bytes in
            let count = bytes.count
            wanted += count
            if used &+ count <= capacity {
                let target = base + used
                if count > 0 { target.copyMemory(from: bytes.baseAddress.unsafelyUnwrapped, byteCount: count) }
                used &+= count
                try statement.bindStaticText(target.assumingMemoryBound(to: CChar.self), count: count, at: index)
            } else {
                try statement.bindTransientText(bytes, at: index)
            }
        }
    }
}

/// Binds slot values of saved objects: object IDs as their primary keys (temporary ones
/// through the save's keys), text through a `TextArena`.
struct SlotBinder {
    let layout: StoreLayout
    let keys: TemporaryKeys
    var arena = TextArena()

    init(layout: StoreLayout, keys: TemporaryKeys) {
        self.layout = layout
        self.keys = keys
    }

    func deallocate() { arena.deallocate() }

    @inline(__always)
    mutating func bind(_ value: UnsafePointer<SlotValue>, to statement: SQLiteStatement, at index: Int32) throws {
        switch value.pointee {
        case .null, .unloaded, .objects: try statement.bindNull(at: index)
        case .int(let v): try statement.bindInt64(v, at: index)
        case .double(let v): try statement.bindDouble(v, at: index)
        case .text(let v): try arena.bind(v, to: statement, at: index)
        case .blob(let v): try statement.bind(.blob(v), at: index)
        case .uuid(let v): try statement.bind(.blob(v.blobData), at: index)
        case .decimal(let v): try statement.bindDouble(v.storedDouble, at: index)
        case .url(let v): try arena.bind(v.absoluteString, to: statement, at: index)
        case .object(let id): try statement.bindInt64(keys.storedKey(id), at: index)
        }
    }

    /// Binds the `Z_ENT` of a to-one destination (NULL for none).
    @inline(__always)
    func bindEntityNumber(of value: UnsafePointer<SlotValue>, to statement: SQLiteStatement, at index: Int32) throws {
        if case .object(let id) = value.pointee {
            try statement.bindInt64(layout.mappings[id.entity.index].entityNumber, at: index)
        } else {
            try statement.bindNull(at: index)
        }
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
