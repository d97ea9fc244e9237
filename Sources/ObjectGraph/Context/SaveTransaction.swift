import Foundation
import OrderedCollections

/// The writes of one save, inside one `BEGIN IMMEDIATE` transaction on the writer.
///
/// It reads the context's objects but changes none of them: everything it decides (new
/// keys, versions, values chosen by the merge policy) comes back as a ``SaveOutcome`` that
/// the context applies only after `COMMIT`, so a failed save leaves the context as it was.
struct SaveTransaction {
    let connection: SQLiteConnection
    let layout: StoreLayout
    let store: StoreIdentity
    let policy: MergePolicy
    let inserted: [ManagedObject]
    let updated: [Update]
    let deleted: [ManagedObject]

    /// An updated object with the slots that changed.
    struct Update {
        let object: ManagedObject
        let slots: [Int]
    }

    struct Outcome {
        /// Primary keys of the inserted objects, by temporary ID.
        var keys: [ObjectID: Int64] = [:]
        /// Values and version of updated objects whose conflict the merge policy resolved
        /// (any other updated object keeps its values at version + 1).
        var resolved: [ObjectIdentifier: (values: ContiguousArray<SlotValue>, version: Int64)] = [:]
        /// Updated objects whose rows someone else deleted (resolved in favour of the delete).
        var vanished: [ManagedObject] = []
    }

    func run() throws -> Outcome {
        var outcome = Outcome()
        var keys: [ObjectID: Int64] = [:]
        try allocateKeys(&outcome, &keys)
        var insertStatements: [ObjectIdentifier: SQLiteStatement] = [:]
        for object in inserted {
            let key = ObjectIdentifier(object.entity)
            let statement = try insertStatements[key] ?? connection.prepare(layout.mappings[object.entity.index].insertSQL)
            insertStatements[key] = statement
            try insert(object, statement, keys)
        }
        var conflicts: [MergeConflictError.Conflict] = []
        var statements = UpdateStatements()
        for change in updated { try update(change.object, change.slots, keys, &outcome, &conflicts, &statements) }
        for object in deleted { try delete(object, &conflicts) }
        if !conflicts.isEmpty { throw MergeConflictError(conflicts: conflicts) }
        for object in inserted { try writeToMany(object, keys, outcome) }
        for change in updated { try writeToMany(change.object, keys, outcome) }
        outcome.keys = keys
        return outcome
    }

    // MARK: Keys

    /// Takes a block of primary keys per root entity from `Z_PRIMARYKEY`.
    private func allocateKeys(_ outcome: inout Outcome, _ keys: inout [ObjectID: Int64]) throws {
        var byRoot: [ObjectIdentifier: [ManagedObject]] = [:]
        for object in inserted { byRoot[ObjectIdentifier(object.entity.root), default: []].append(object) }
        for group in byRoot.values {
            let last = try connection.reservePrimaryKeys(group.count, root: group[0].entity.root, layout: layout)
            for (offset, object) in group.enumerated() {
                let key = last + 1 + Int64(offset)
                keys[object.objectID] = key
            }
        }
    }

    // MARK: Rows

    private func insert(_ object: ManagedObject, _ statement: SQLiteStatement, _ keys: [ObjectID: Int64]) throws {
        let mapping = layout.mappings[object.entity.index]
        defer { statement.reset() }
        try statement.bindInt64(keys[object.objectID]!, at: 0)
        try statement.bindInt64(mapping.entityNumber, at: 1)
        try statement.bindInt64(1, at: 2)
        var index: Int32 = 3
        for slot in mapping.insertSlots {
            let value = object.values[slot]
            try RowCodec.bind(value, to: statement, at: index, keys: keys)
            index += 1
            if mapping.entityColumnBySlot[slot] != nil {
                try bindEntityNumber(of: value, statement, index)
                index += 1
            }
        }
        while try statement.step() {}
    }

    private func bindEntityNumber(of value: SlotValue, _ statement: SQLiteStatement, _ index: Int32) throws {
        if case .object(let id) = value {
            try statement.bindInt64(layout.numbers[id.entity.name]!, at: index)
        } else {
            try statement.bind(.null, at: index)
        }
    }

    /// Prepared UPDATE statements of one save, by entity and set of changed slots.
    struct UpdateStatements {
        var bySlots: [ObjectIdentifier: [UInt64: SQLiteStatement]] = [:]
    }

    private func update(_ object: ManagedObject, _ changedSlots: [Int], _ keys: [ObjectID: Int64], _ outcome: inout Outcome,
                        _ conflicts: inout [MergeConflictError.Conflict], _ statements: inout UpdateStatements) throws {
        let mapping = layout.mappings[object.entity.index]
        var values = object.values
        var changed = changedSlots
        var version = object.version
        if try write(values, changed, version: version, object, mapping, keys, &statements) { return }
        // The row changed (or vanished) since it was read.
        guard let row = try currentRow(of: object, mapping) else {
            // Deleted by someone else: under the error policy a conflict; under any other
            // policy the deletion wins and the object leaves this context after the save.
            if policy == .error {
                conflicts.append(.init(objectID: object.objectID, snapshotVersion: object.version, storeVersion: nil))
            } else {
                outcome.vanished.append(object)
            }
            return
        }
        switch policy {
        case .error:
            conflicts.append(.init(objectID: object.objectID, snapshotVersion: object.version, storeVersion: row.version))
            return
        case .rollback:
            outcome.resolved[ObjectIdentifier(object)] = (Self.keepingUnstored(row.values, from: values), row.version)
            return
        case .overwrite:
            changed = Array(values.indices)
        case .mergeByPropertyObjectTrump:
            var merged = Self.keepingUnstored(row.values, from: values)
            for slot in changed { merged[slot] = values[slot] }
            values = merged
            changed = Array(values.indices)
        case .mergeByPropertyStoreTrump:
            for slot in values.indices where mapping.columnBySlot[slot] != nil && row.values[slot] != object.snapshot[slot] {
                values[slot] = row.values[slot]
            }
            changed = Array(values.indices)
        }
        version = row.version
        guard try write(values, changed, version: version, object, mapping, keys, &statements) else {
            conflicts.append(.init(objectID: object.objectID, snapshotVersion: object.version, storeVersion: row.version))
            return
        }
        outcome.resolved[ObjectIdentifier(object)] = (values, version + 1)
    }

    /// `stored` with the slots the store does not hold (transient, to-many) taken from `local`.
    private static func keepingUnstored(_ stored: ContiguousArray<SlotValue>, from local: ContiguousArray<SlotValue>) -> ContiguousArray<SlotValue> {
        var result = stored
        for slot in result.indices {
            switch result[slot] {
            case .unloaded: result[slot] = local[slot]
            default: break
            }
        }
        return result
    }

    /// UPDATE with the version check; false when no row had that version.
    private func write(_ values: ContiguousArray<SlotValue>, _ slots: [Int], version: Int64, _ object: ManagedObject,
                       _ mapping: EntityMapping, _ keys: [ObjectID: Int64], _ statements: inout UpdateStatements) throws -> Bool {
        let stored = slots.filter { mapping.columnBySlot[$0] != nil }
        let statement: SQLiteStatement
        if mapping.columnBySlot.count <= 64 {
            var mask: UInt64 = 0
            for slot in stored { mask |= 1 << UInt64(slot) }
            let entity = ObjectIdentifier(object.entity)
            if let cached = statements.bySlots[entity]?[mask] {
                statement = cached
            } else {
                statement = try connection.prepare(mapping.updateSQL(for: stored))
                statements.bySlots[entity, default: [:]][mask] = statement
            }
        } else {
            statement = try connection.prepare(mapping.updateSQL(for: stored))
        }
        defer { statement.reset() }
        try statement.bindInt64(version + 1, at: 0)
        var index: Int32 = 1
        for slot in stored {
            try RowCodec.bind(values[slot], to: statement, at: index, keys: keys)
            index += 1
            if mapping.entityColumnBySlot[slot] != nil {
                try bindEntityNumber(of: values[slot], statement, index)
                index += 1
            }
        }
        try statement.bindInt64(object.objectID.key, at: index)
        try statement.bindInt64(version, at: index + 1)
        while try statement.step() {}
        return connection.changes == 1
    }

    private func currentRow(of object: ManagedObject, _ mapping: EntityMapping) throws -> RowCodec.Row? {
        let codec = RowCodec(layout: layout, store: store)
        var row: RowCodec.Row?
        try connection.query("SELECT \(mapping.table.selectList) FROM \(mapping.table.name) t WHERE t.Z_PK = ?",
                             [.integer(object.objectID.key)]) { row = codec.decode($0) }
        return row
    }

    private func delete(_ object: ManagedObject, _ conflicts: inout [MergeConflictError.Conflict]) throws {
        let mapping = layout.mappings[object.entity.index]
        let pk = object.objectID.key
        let statement = try connection.prepare(mapping.deleteSQL)
        try statement.bindInt64(pk, at: 0)
        try statement.bindInt64(object.version, at: 1)
        try statement.run()
        if connection.changes == 0 {
            // Not at the version read: gone already (fine), or changed by someone else.
            var current: Int64?
            try connection.query("SELECT Z_OPT FROM \(mapping.table.name) WHERE Z_PK = ?", [.integer(pk)]) { current = $0.int64(0) }
            guard let current else { return }
            if policy == .error {
                conflicts.append(.init(objectID: object.objectID, snapshotVersion: object.version, storeVersion: current))
                return
            }
            try connection.run("DELETE FROM \(mapping.table.name) WHERE Z_PK = ?", [.integer(pk)])
        }
        for sql in mapping.joinRowDeletes { try connection.run(sql, [.integer(pk)]) }
    }

    // MARK: To-many storage

    /// Join-table rows and ordering columns of the to-many relationships that changed.
    private func writeToMany(_ object: ManagedObject, _ keys: [ObjectID: Int64], _ outcome: Outcome) throws {
        let mapping = layout.mappings[object.entity.index]
        let owner = keys[object.objectID] ?? object.objectID.key
        for slot in object.values.indices {
            guard case .objects(let now) = object.values[slot] else { continue }
            let before = object.snapshot.isEmpty ? OrderedSet<ObjectID>() : (object.snapshot[slot].objectIDs ?? [])
            if now == before && !object.snapshot.isEmpty { continue }
            let key = { (id: ObjectID) in keys[id] ?? id.key }
            if let join = mapping.joinTableBySlot[slot], join.isWritingSide {
                if let orderColumn = join.orderColumn {
                    try connection.run("DELETE FROM \(join.name) WHERE \(join.ownerColumn) = ?", [.integer(owner)])
                    for (position, id) in now.enumerated() {
                        try connection.run("INSERT INTO \(join.name) (\(join.ownerColumn), \(join.memberColumn), \(orderColumn)) VALUES (?, ?, ?)",
                                           [.integer(owner), .integer(key(id)), .integer(Int64(position + 1))])
                    }
                    continue
                }
                for id in before where !now.contains(id) {
                    try connection.run("DELETE FROM \(join.name) WHERE \(join.ownerColumn) = ? AND \(join.memberColumn) = ?",
                                       [.integer(owner), .integer(key(id))])
                }
                for id in now where !before.contains(id) {
                    try connection.run("INSERT OR IGNORE INTO \(join.name) (\(join.ownerColumn), \(join.memberColumn)) VALUES (?, ?)",
                                       [.integer(owner), .integer(key(id))])
                }
            } else if let orderColumn = mapping.orderColumnBySlot[slot],
                      let table = object.entity.relationshipAtSlot[slot]?.destinationEntity.root {
                let name = layout.mappings[table.index].table.name
                for (position, id) in now.enumerated() {
                    try connection.run("UPDATE \(name) SET \(orderColumn) = ? WHERE Z_PK = ?",
                                       [.integer(Int64(position + 1)), .integer(key(id))])
                }
            }
        }
    }
}

extension SQLiteConnection {
    /// Reserves `count` primary keys in the table of `root` (an entity without a super-entity)
    /// and returns the last key before them: `Z_MAX` from `Z_PRIMARYKEY`, or a larger key
    /// already in the table (a row written by other software). With `count` 0 it only raises
    /// `Z_MAX` to that key, so that every key handed out later is larger. In a write transaction.
    func reservePrimaryKeys(_ count: Int, root: EntityDescription, layout: StoreLayout) throws -> Int64 {
        let number = layout.numbers[root.name]!
        var stored: Int64 = 0
        try query("SELECT Z_MAX FROM Z_PRIMARYKEY WHERE Z_ENT = ?", [.integer(number)]) { stored = $0.int64(0) }
        var last = stored
        if case .integer(let maximum)? = try scalar("SELECT MAX(Z_PK) FROM \(layout.mappings[root.index].table.name)") { last = max(last, maximum) }
        if last + Int64(count) != stored {
            try run("UPDATE Z_PRIMARYKEY SET Z_MAX = ? WHERE Z_ENT = ?", [.integer(last + Int64(count)), .integer(number)])
        }
        return last
    }
}
