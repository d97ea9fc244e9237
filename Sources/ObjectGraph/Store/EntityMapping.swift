import Foundation

/// The table of a root entity: one row per object of the root or any of its sub-entities.
final class TableMapping {
    let name: String
    let root: EntityDescription
    /// Every column after `Z_PK, Z_ENT, Z_OPT`, in the order the select list reads them.
    private(set) var columns: [(name: String, type: String)] = []
    private var columnIndex: [String: Int32] = [:]
    /// `Z_PK, Z_ENT, Z_OPT, <columns>` qualified with `t.`, for `SELECT ... FROM <name> t`.
    private(set) var selectList = ""
    /// Foreign-key columns, which get an index each.
    private(set) var indexedColumns: [String] = []

    init(root: EntityDescription) {
        self.root = root
        self.name = "Z" + root.name.uppercased()
    }

    /// Adds `column` (once) and returns its index in the select list.
    @discardableResult
    func addColumn(_ column: String, type: String, indexed: Bool = false) -> Int32 {
        if let index = columnIndex[column] { return index }
        columns.append((column, type))
        let index = Int32(columns.count + 2)
        columnIndex[column] = index
        if indexed { indexedColumns.append(column) }
        return index
    }

    func finish() {
        selectList = (["Z_PK", "Z_ENT", "Z_OPT"] + columns.map(\.name)).map { "t." + $0 }.joined(separator: ", ")
    }
}

/// A many-to-many (or inverse-less to-many) relationship's join table `Z_<n><REL>`.
struct JoinTableMapping {
    let name: String
    /// Holds the primary key of the relationship's owner.
    let ownerColumn: String
    /// Holds the primary key of each destination.
    let memberColumn: String
    /// `Z_FOK_...` holding the member's position, for an ordered relationship.
    let orderColumn: String?
    /// Whether saves of this side write the table (the other side is mirrored in memory).
    let isWritingSide: Bool

    /// Whether a save writes what changed on the side `relationship` (this mapping's): the
    /// writing side always; the other side of an unordered many-to-many too, since its
    /// change is not always mirrored on the writing side (a context that read the other
    /// object earlier does not list the pair there). Rows are then removed and inserted from
    /// both sides, which changes nothing twice (a delete of a missing row, an insert that
    /// ignores an existing one). The unordered side of an ordered many-to-many leaves the
    /// rows to the ordered side, which numbers them.
    func writesChanges(of relationship: RelationshipDescription?) -> Bool {
        if isWritingSide { return true }
        guard let relationship, orderColumn == nil else { return false }
        return !(relationship.inverseRelationship?.isOrdered ?? false)
    }
}

/// How the objects of one entity are read from and written to its root table.
final class EntityMapping {
    let entity: EntityDescription
    /// `Z_ENT` of this entity.
    let entityNumber: Int64
    let table: TableMapping
    /// `Z_ENT` of this entity and every sub-entity.
    var familyNumbers: [Int64] = []
    /// Column of each slot (nil: transient or to-many).
    var columnBySlot: [String?]
    /// `Z<n>_<REL>` column of a to-one slot whose destination has sub-entities.
    var entityColumnBySlot: [String?]
    /// Select-list index of each slot's column (-1: none).
    var readIndexBySlot: [Int32]
    var readEntityIndexBySlot: [Int32]
    /// Join table of each to-many slot that uses one.
    var joinTableBySlot: [JoinTableMapping?]
    /// `Z_FOK_<INVERSE>` column on the destination table of an ordered one-to-many slot.
    var orderColumnBySlot: [String?]
    /// One column to read into a slot: an attribute of `type`, or (with a `destination`) a
    /// to-one foreign key whose concrete entity may come from `entityColumn`.
    struct ReadStep {
        var slot: Int
        var column: Int32
        var type: AttributeType
        var entityColumn: Int32
        var destination: EntityDescription?
    }

    // The read plan is read for every fetched row and written only while the layout is
    // built, before the mapping is shared: no run-time exclusivity checks on it.

    /// Slots a row does not hold (to-many, transient): as `readTemplate` has them.
    @exclusivity(unchecked) var unstoredSlots: [Int] = []
    /// The stored columns of a row, in slot order.
    @exclusivity(unchecked) var readPlan: [ReadStep] = []
    /// A fetched object's values before its columns are read: nil, unloaded to-many
    /// relationships, transient defaults.
    @exclusivity(unchecked) var readTemplate: ContiguousArray<SlotValue> = []

    func buildReadPlan() {
        readPlan = []
        unstoredSlots = []
        readTemplate = ContiguousArray(repeating: .null, count: columnBySlot.count)
        for slot in columnBySlot.indices {
            if let relationship = entity.relationshipAtSlot[slot], relationship.isToMany {
                readTemplate[slot] = .unloaded
                unstoredSlots.append(slot)
            }
            if let transient = transientDefaults[slot] {
                readTemplate[slot] = transient
                unstoredSlots.append(slot)
            }
            let index = readIndexBySlot[slot]
            guard index >= 0 else { continue }
            if let attribute = entity.attributeAtSlot[slot] {
                readPlan.append(ReadStep(slot: slot, column: index, type: attribute.attributeType, entityColumn: -1, destination: nil))
            } else if let relationship = entity.relationshipAtSlot[slot] {
                readPlan.append(ReadStep(slot: slot, column: index, type: .integer64, entityColumn: readEntityIndexBySlot[slot],
                                         destination: relationship.destinationEntity))
            }
        }
        savePlan = EntitySavePlan(self)
    }

    /// What saves of this entity need, built with the read plan (when the layout is complete).
    /// Read without exclusivity checks: written only while the layout is built.
    @exclusivity(unchecked) private(set) var savePlan: EntitySavePlan!

    /// Values given to transient attributes of fetched objects (each default evaluated once).
    var transientDefaults: [Int: SlotValue] = [:]
    /// Slots written by INSERT, in bind order after `Z_PK, Z_ENT, Z_OPT`.
    var insertSlots: [Int] = []
    var insertSQL = ""
    /// `DELETE ... WHERE Z_PK = ? AND Z_OPT = ?`.
    var deleteSQL = ""
    /// Statements removing a deleted object's rows from its join tables (one per table).
    var joinRowDeletes: [String] = []
    /// UPDATE statements by the set of changed slots (a bit mask), built on first use.
    var updateSQLCache: [[UInt64]: String] = [:]

    init(entity: EntityDescription, entityNumber: Int64, table: TableMapping) {
        self.entity = entity
        self.entityNumber = entityNumber
        self.table = table
        let count = entity.properties.count
        columnBySlot = Array(repeating: nil, count: count)
        entityColumnBySlot = Array(repeating: nil, count: count)
        readIndexBySlot = Array(repeating: -1, count: count)
        readEntityIndexBySlot = Array(repeating: -1, count: count)
        joinTableBySlot = Array(repeating: nil, count: count)
        orderColumnBySlot = Array(repeating: nil, count: count)
        for case let attribute? in entity.attributeAtSlot where attribute.isTransient {
            transientDefaults[attribute.slot] = attribute.defaultValue?() ?? .null
        }
    }
}
