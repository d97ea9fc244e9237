import Foundation

/// The writes of one save in SQLite, inside one `BEGIN IMMEDIATE` transaction on the writer.
///
/// It reads the context's objects but changes none of them: everything it decides (new
/// keys, versions, values chosen by the merge policy) comes back as a ``SaveOutcome`` that
/// the context applies only after `COMMIT`, so a failed save leaves the context as it was.
struct SQLiteSaveTransaction {
    typealias Update = SaveRequest.Update
    typealias Outcome = SaveOutcome
    let connection: SQLiteConnection
    let layout: StoreLayout
    let store: StoreIdentity
    let request: SaveRequest
    var policy: MergePolicy { request.policy }
    var inserted: [ManagedObject] { request.inserted }
    var updated: [Update] { request.updated }
    var deleted: [ManagedObject] { request.deleted }

    /// Inserted objects of one root entity, with the last key before the block they got.
    private struct KeyBlock {
        var objects: [ManagedObject]
        var last: Int64
    }

    func run() throws -> Outcome {
        try checkUniqueness()
        var outcome = Outcome()
        let blocks = try allocateKeys(&outcome.keys)
        var writing = Writing(binder: SlotBinder(layout: layout, keys: outcome.keys))
        defer { writing.finish() }
        try insertRows(blocks, &writing)
        var conflicts: [MergeConflictError.Conflict] = []
        var plans = SavePlans(layout)
        for change in updated { try update(change, plan: plans(change.object.entity), writing: &writing, outcome: &outcome, conflicts: &conflicts) }
        for object in deleted { try delete(object, &conflicts) }
        if !conflicts.isEmpty { throw MergeConflictError(conflicts: conflicts) }
        let keys = outcome.keys
        for object in inserted {
            let plan = plans(object.entity)
            if !plan.toManyWriteSlots.isEmpty { try writeToMany(of: object, plan: plan, keys: keys) }
        }
        for change in updated {
            let plan = plans(change.object.entity)
            if !plan.toManyWriteSlots.isEmpty { try writeToMany(of: change.object, plan: plan, keys: keys) }
        }
        return outcome
    }

    // MARK: Keys

    /// Takes a block of primary keys per root entity from `Z_PRIMARYKEY`.
    private func allocateKeys(_ keys: inout TemporaryKeys) throws -> [KeyBlock] {
        guard !inserted.isEmpty else { return [] }
        keys = TemporaryKeys(capacity: inserted.count)
        var blocks: [KeyBlock] = []
        for group in inserted.groupedByRoot() {
            let last = try connection.reservePrimaryKeys(group.objects.count, root: group.root, layout: layout)
            var key = last
            for object in group.objects {
                key += 1
                keys.insert(object.objectID, key: key)
            }
            blocks.append(KeyBlock(objects: group.objects, last: last))
        }
        return blocks
    }

    // MARK: Rows

    /// What the row writes of one save share: the binder, the prepared UPDATE statements, and
    /// the statements whose parameters may point into the binder's text arena (cleared by
    /// ``finish()`` before the arena goes).
    struct Writing {
        var binder: SlotBinder
        var updates = UpdateStatements()
        var bound: [SQLiteStatement] = []

        /// Clears the bound statements' parameters, then frees the binder's arena.
        mutating func finish() {
            for statement in bound { statement.clearBindings() }
            binder.deallocate()
        }
    }

    private func insertRows(_ blocks: [KeyBlock], _ writing: inout Writing) throws {
        var statements = [SQLiteStatement?](repeating: nil, count: layout.mappings.count)
        for block in blocks {
            var key = block.last
            var entity: EntityDescription?
            var statement: SQLiteStatement!
            var plan: EntitySavePlan!
            for object in block.objects {
                key += 1
                if object.entity !== entity {
                    let current = object.entity
                    entity = current
                    plan = layout.mappings[current.index].savePlan
                    if let prepared = statements[current.index] {
                        statement = prepared
                    } else {
                        statement = try connection.cachedStatement(plan.insertSQL)
                        statements[current.index] = statement
                        writing.bound.append(statement)
                    }
                }
                try insert(object, key: key, with: statement, plan: plan, binder: &writing.binder)
            }
        }
    }

    @inline(__always)
    private func insert(_ object: ManagedObject, key: Int64, with statement: SQLiteStatement, plan: EntitySavePlan,
                        binder: inout SlotBinder) throws {
        defer { statement.resetKeepingBindings() }
        binder.arena.startRow()
        try statement.bindInt64(key, at: 0)
        let values = object.values
        try values.withUnsafeBufferPointer { values in
            var index: Int32 = 1
            precondition(values.count == plan.slotCount, "ManagedRecord: \(object.objectID) has no values to save")
            let base = values.baseAddress.unsafelyUnwrapped
            for column in plan.insertColumns {
                let value = base + column.slot
                try binder.bind(value, to: statement, at: index)
                index += 1
                if column.hasEntityColumn {
                    try binder.bindEntityNumber(of: value, to: statement, at: index)
                    index += 1
                }
            }
        }
        while try statement.step() {}
    }

    /// Prepared UPDATE statements of one save, by entity and set of changed slots.
    struct UpdateStatements {
        var bySlots: [ObjectIdentifier: [UInt64: SQLiteStatement]] = [:]
        /// The one used last: consecutive objects usually change the same slots.
        var last: (entity: ObjectIdentifier, mask: UInt64, statement: SQLiteStatement)?
    }

    private func update(_ change: Update, plan: EntitySavePlan, writing: inout Writing, outcome: inout Outcome,
                        conflicts: inout [MergeConflictError.Conflict]) throws {
        let object = change.object
        let mapping = layout.mappings[object.entity.index]
        try SaveConflictResolution.update(change, policy: policy, mapping: mapping, outcome: &outcome, conflicts: &conflicts,
                                          currentRow: { try currentRow(of: object, mapping) },
                                          write: { try write($0, changed: $1, version: $2, of: object, plan: plan, writing: &writing) })
    }

    /// UPDATE with the version check; false when no row had that version.
    private func write(_ values: ContiguousArray<SlotValue>, changed: ChangedSlots, version: Int64, of object: ManagedObject,
                       plan: EntitySavePlan, writing: inout Writing) throws -> Bool {
        let stored = plan.storedSlots(of: changed)
        let statement: SQLiteStatement
        if stored.wide == nil {
            let mask = stored.mask
            let entity = ObjectIdentifier(object.entity)
            if let last = writing.updates.last, last.entity == entity, last.mask == mask {
                statement = last.statement
            } else {
                if let cached = writing.updates.bySlots[entity]?[mask] {
                    statement = cached
                } else {
                    statement = try connection.cachedStatement(layout.mappings[object.entity.index].updateSQL(for: stored.slots))
                    writing.updates.bySlots[entity, default: [:]][mask] = statement
                    writing.bound.append(statement)
                }
                writing.updates.last = (entity, mask, statement)
            }
        } else {
            statement = try connection.cachedStatement(layout.mappings[object.entity.index].updateSQL(for: stored.slots))
            writing.bound.append(statement)
        }
        defer { statement.resetKeepingBindings() }
        writing.binder.arena.startRow()
        try statement.bindInt64(version + 1, at: 0)
        var index: Int32 = 1
        try values.withUnsafeBufferPointer { values in
            precondition(values.count == plan.slotCount, "ManagedRecord: \(object.objectID) has no values to save")
            let base = values.baseAddress.unsafelyUnwrapped
            try stored.forEach { slot in
                let value = base + slot
                try writing.binder.bind(value, to: statement, at: index)
                index += 1
                if plan.hasEntityColumn(slot) {
                    try writing.binder.bindEntityNumber(of: value, to: statement, at: index)
                    index += 1
                }
            }
        }
        try statement.bindInt64(object.objectID.key, at: index)
        try statement.bindInt64(version, at: index + 1)
        while try statement.step() {}
        return connection.changes == 1
    }

    private func currentRow(of object: ManagedObject, _ mapping: EntityMapping) throws -> StoreRow? {
        let codec = SQLiteRowCodec(layout: layout, store: store)
        let statement = try connection.cachedStatement(mapping.lockedRowSQL(in: SQLiteDialect.self))
        defer { statement.reset() }
        try statement.bindInt64(object.objectID.key, at: 0)
        return try statement.step() ? codec.decode(statement) : nil
    }

    private func delete(_ object: ManagedObject, _ conflicts: inout [MergeConflictError.Conflict]) throws {
        let mapping = layout.mappings[object.entity.index]
        let pk = object.objectID.key
        let deleted = try SaveConflictResolution.delete(object, policy: policy, conflicts: &conflicts, deleteAtVersion: {
            let statement = try connection.cachedStatement(mapping.deleteSQL)
            try statement.bindInt64(pk, at: 0)
            try statement.bindInt64(object.version, at: 1)
            try statement.run()
            return connection.changes
        }, currentVersion: {
            if case .integer(let current)? = try connection.scalar(mapping.lockedVersionSQL(in: SQLiteDialect.self), [.integer(pk)]) { return current }
            return nil
        }, deleteAnyVersion: {
            try connection.run("DELETE FROM \(mapping.table.name) WHERE Z_PK = ?", [.integer(pk)])
        })
        if deleted {
            for sql in mapping.joinRowDeletes { try connection.run(sql, [.integer(pk)]) }
        }
    }

    // MARK: To-many storage

    /// Join-table rows and ordering columns of the to-many relationships that changed
    /// (``ToManyWrite``), a statement a row.
    private func writeToMany(of object: ManagedObject, plan: EntitySavePlan, keys: TemporaryKeys) throws {
        let (owner, writes) = try ToManyWrite.writes(of: object, plan: plan, layout: layout, keys: keys, dialect: SQLiteDialect.self) { sql, owner in
            var stored: [Int64] = []
            try connection.query(sql, [.integer(owner)]) { stored.append($0.int64(0)) }
            return stored
        }
        for write in writes {
            switch write {
            case .orderedJoin(let join, let orderColumn, let members):
                try connection.run("DELETE FROM \(join.name) WHERE \(join.ownerColumn) = ?", [.integer(owner)])
                for (position, member) in members.enumerated() {
                    try connection.run("INSERT INTO \(join.name) (\(join.ownerColumn), \(join.memberColumn), \(orderColumn)) VALUES (?, ?, ?)",
                                       [.integer(owner), .integer(member), .integer(Int64(position + 1))])
                }
            case .join(let join, let removed, let added):
                for member in removed {
                    try connection.run("DELETE FROM \(join.name) WHERE \(join.ownerColumn) = ? AND \(join.memberColumn) = ?",
                                       [.integer(owner), .integer(member)])
                }
                for member in added {
                    try connection.run("INSERT OR IGNORE INTO \(join.name) (\(join.ownerColumn), \(join.memberColumn)) VALUES (?, ?)",
                                       [.integer(owner), .integer(member)])
                }
            case .order(let table, let orderColumn, let members):
                for (position, member) in members.enumerated() {
                    try connection.run("UPDATE \(table) SET \(orderColumn) = ? WHERE Z_PK = ?", [.integer(Int64(position + 1)), .integer(member)])
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
