import Foundation

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
    /// Stored floating-point and Decimal attributes (Double, Float, Date, Decimal):
    /// validation checks for values no store keeps unchanged (NaN; long Decimals on SQLite).
    let numberSlots: [Int]
    let numbers: SlotMask
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
            if let join = mapping.joinTableBySlot[slot], join.writesChanges(of: entity.relationshipAtSlot[slot]) { return true }
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
        numberSlots = mapping.columnBySlot.indices.filter { slot in
            guard mapping.columnBySlot[slot] != nil, let type = entity.attributeAtSlot[slot]?.attributeType else { return false }
            return type == .double || type == .float || type == .date || type == .decimal
        }
        numbers = SlotMask(numberSlots)
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
