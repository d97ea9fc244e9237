import Foundation
import OrderedCollections

/// What a save writes for one changed to-many relationship of an object, the same decision
/// in every store (each store spells the statements): join-table rows (many-to-many, on the
/// side that writes them) or the destinations' order column (an ordered one-to-many).
enum ToManyWrite {
    /// An ordered many-to-many: the owner's join rows replaced by `members`, in order
    /// (positions from 1).
    case orderedJoin(JoinTableMapping, orderColumn: String, members: [Int64])
    /// A many-to-many: the join rows of `removed` deleted, rows for `added` inserted.
    case join(JoinTableMapping, removed: [Int64], added: [Int64])
    /// An ordered one-to-many: the order column of `members` (rows of `table`) set to their
    /// positions, from 1.
    case order(table: String, orderColumn: String, members: [Int64])

    /// The writes for the to-many relationships of `object` that changed (every one when it
    /// is inserted), with the owner's key; keys of objects inserted by this save from `keys`.
    /// An ordered relationship is written as this context's list followed by the members the
    /// store holds that this context never knew of (``OrderedToManyMerge``), which
    /// `storedMembers` reads: it runs the given SQL with the owner's key and returns the keys.
    static func writes<Dialect: SQLDialect>(of object: ManagedObject, plan: EntitySavePlan, layout: StoreLayout,
                                            keys: TemporaryKeys, dialect: Dialect.Type,
                                            storedMembers: (_ sql: String, _ owner: Int64) throws -> [Int64]) throws -> (owner: Int64, writes: [ToManyWrite]) {
        let mapping = layout.mappings[object.entity.index]
        let owner = keys.storedKey(object.objectID)
        let key = { (id: ObjectID) in id.isTemporaryID ? keys.key(for: id) ?? id.key : id.key }
        /// `ownedOnly`: leave out members whose rows another save gave to another owner since
        /// this context read them (a one-to-many, whose membership is the member's own column):
        /// they keep the position that owner's list gave them.
        func ordered(_ slot: Int, now: OrderedSet<ObjectID>, before: OrderedSet<ObjectID>, ownedOnly: Bool = false) throws -> [Int64] {
            guard !object.snapshot.isEmpty, let relationship = object.entity.relationshipAtSlot[slot],
                  let sql = layout.storedMembersSQL(relationship, orderSuffix: Dialect.nullsFirst + ", t.Z_PK") else { return now.map(key) }
            let stored = try storedMembers(sql, owner)
            let members = OrderedToManyMerge.keys(now: now.map(key), before: before.map(key), stored: stored)
            guard ownedOnly else { return members }
            let owned = Set(stored)
            return members.filter(owned.contains)
        }
        var writes: [ToManyWrite] = []
        for slot in plan.toManyWriteSlots {
            guard case .objects(let now) = object.values[slot] else { continue }
            let before = object.snapshot.isEmpty ? OrderedSet<ObjectID>() : (object.snapshot[slot].objectIDs ?? [])
            if now == before && !object.snapshot.isEmpty { continue }
            if let join = mapping.joinTableBySlot[slot], join.writesChanges(of: object.entity.relationshipAtSlot[slot]) {
                if let orderColumn = join.orderColumn {
                    writes.append(.orderedJoin(join, orderColumn: orderColumn, members: try ordered(slot, now: now, before: before)))
                } else {
                    writes.append(.join(join, removed: before.filter { !now.contains($0) }.map(key), added: now.filter { !before.contains($0) }.map(key)))
                }
            } else if let orderColumn = mapping.orderColumnBySlot[slot],
                      let table = object.entity.relationshipAtSlot[slot]?.destinationEntity.root {
                writes.append(.order(table: layout.mappings[table.index].table.name, orderColumn: orderColumn,
                                     members: try ordered(slot, now: now, before: before, ownedOnly: true)))
            }
        }
        return (owner, writes)
    }
}
