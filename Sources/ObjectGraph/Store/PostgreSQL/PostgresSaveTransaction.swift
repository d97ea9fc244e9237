import Foundation

/// The writes of one save in PostgreSQL, inside one transaction on one connection.
///
/// Like ``SQLiteSaveTransaction`` it changes no object: keys, versions and the values the
/// merge policy chose come back as a ``SaveOutcome`` the context applies after `COMMIT`.
/// Updates and deletes check the version they were read at (`Z_OPT`); a row changed since
/// is read `FOR UPDATE` (so no other save can move it again before this one rewrites it) and
/// resolved by ``SaveConflictResolution``.
struct PostgresSaveTransaction {
    typealias Update = SaveRequest.Update
    let session: PostgresSession
    let layout: StoreLayout
    let store: StoreIdentity
    /// The store's URL, for errors.
    let url: URL?
    let request: SaveRequest
    /// The keys reserved for the inserted objects (``PostgresStore/reserveKeys(_:)``).
    let keys: TemporaryKeys
    var policy: MergePolicy { request.policy }

    /// Most parameters one multi-row INSERT binds (PostgreSQL allows 65,535).
    static let parameterLimit = 30_000

    func run() throws -> SaveOutcome {
        let conflicts = try PostgresUniqueness(session: session, layout: layout, store: store, request: request).conflicts()
        if !conflicts.isEmpty { throw ConstraintConflictError(conflicts: conflicts) }
        var outcome = SaveOutcome()
        outcome.keys = keys
        try insertRows()
        var mergeConflicts: [MergeConflictError.Conflict] = []
        for change in request.updated { try update(change, outcome: &outcome, conflicts: &mergeConflicts) }
        for object in request.deleted { try delete(object, &mergeConflicts) }
        if !mergeConflicts.isEmpty { throw MergeConflictError(conflicts: mergeConflicts) }
        var plans = SavePlans(layout)
        for object in request.inserted {
            let plan = plans(object.entity)
            if !plan.toManyWriteSlots.isEmpty { try writeToMany(object, plan) }
        }
        for change in request.updated {
            let plan = plans(change.object.entity)
            if !plan.toManyWriteSlots.isEmpty { try writeToMany(change.object, plan) }
        }
        return outcome
    }

    // MARK: Values

    /// A slot value of `object` as its column stores it; object IDs as their (new) primary
    /// keys, Decimals as their exact text (for `CAST(? AS numeric)`). Text holding NUL is
    /// refused: PostgreSQL's text cannot hold it.
    private func stored(_ value: SlotValue, of object: ManagedObject, slot: Int) throws -> SQLValue {
        if case .object(let id) = value { return .integer(keys.storedKey(id)) }
        let stored = PostgresDialect.columnValue(value)
        if case .text(let text) = stored, text.utf8.contains(0) {
            throw PostgresStore.nulRefused(object.entity.properties[slot].name, of: object.objectID, url: url)
        }
        return stored
    }

    /// The `Z_ENT` of a to-one's destination, or NULL.
    private func entityNumber(_ value: SlotValue) -> SQLValue {
        if case .object(let id) = value { return .integer(layout.mappings[id.entity.index].entityNumber) }
        return .null
    }

    // MARK: Rows

    /// INSERTs of several rows each, by entity.
    private func insertRows() throws {
        var byEntity: [(EntityDescription, [ManagedObject])] = []
        for object in request.inserted {
            if let last = byEntity.last, last.0 === object.entity {
                byEntity[byEntity.count - 1].1.append(object)
            } else if let index = byEntity.firstIndex(where: { $0.0 === object.entity }) {
                byEntity[index].1.append(object)
            } else {
                byEntity.append((object.entity, [object]))
            }
        }
        for (entity, objects) in byEntity {
            let mapping = layout.mappings[entity.index]
            let plan = mapping.savePlan!
            var columns = ["Z_PK", "Z_ENT", "Z_OPT"]
            var placeholders = ["?", String(mapping.entityNumber), "1"]
            for column in plan.insertColumns {
                columns.append(mapping.columnBySlot[column.slot]!)
                placeholders.append(PostgresDialect.columnPlaceholder(entity.attributeAtSlot[column.slot]?.attributeType))
                if column.hasEntityColumn {
                    columns.append(mapping.entityColumnBySlot[column.slot]!)
                    placeholders.append("?")
                }
            }
            let width = columns.count - 2     // parameters per row: Z_ENT and Z_OPT are constants
            let row = "(" + placeholders.joined(separator: ", ") + ")"
            let head = "INSERT INTO \(mapping.table.name) (\(columns.joined(separator: ", "))) VALUES "
            for chunk in objects.chunks(max(1, Self.parameterLimit / width)) {
                var arguments: [SQLValue] = []
                arguments.reserveCapacity(chunk.count * width)
                for object in chunk {
                    precondition(object.values.count == plan.slotCount, "ManagedRecord: \(object.objectID) has no values to save")
                    arguments.append(.integer(keys.storedKey(object.objectID)))
                    for column in plan.insertColumns {
                        let value = object.values[column.slot]
                        arguments.append(try stored(value, of: object, slot: column.slot))
                        if column.hasEntityColumn { arguments.append(entityNumber(value)) }
                    }
                }
                try session.execute(head + Array(repeating: row, count: chunk.count).joined(separator: ", "), arguments)
            }
        }
    }

    private func update(_ change: Update, outcome: inout SaveOutcome, conflicts: inout [MergeConflictError.Conflict]) throws {
        let object = change.object
        let mapping = layout.mappings[object.entity.index]
        // A row changed since it was read is locked as it is now (currentRow).
        try SaveConflictResolution.update(change, policy: policy, mapping: mapping, outcome: &outcome, conflicts: &conflicts,
                                          currentRow: { try currentRow(of: object, mapping) },
                                          write: { try write($0, changed: $1, version: $2, of: object, mapping) })
    }

    /// UPDATE with the version check; false when no row had that version.
    private func write(_ values: ContiguousArray<SlotValue>, changed: ChangedSlots, version: Int64, of object: ManagedObject,
                       _ mapping: EntityMapping) throws -> Bool {
        precondition(values.count == mapping.savePlan.slotCount, "ManagedRecord: \(object.objectID) has no values to save")
        var assignments = ["Z_OPT = ?"]
        var arguments: [SQLValue] = [.integer(version + 1)]
        try mapping.savePlan.storedSlots(of: changed).forEach { slot in
            guard let column = mapping.columnBySlot[slot] else { return }
            assignments.append("\(column) = \(PostgresDialect.columnPlaceholder(object.entity.attributeAtSlot[slot]?.attributeType))")
            arguments.append(try stored(values[slot], of: object, slot: slot))
            if let entityColumn = mapping.entityColumnBySlot[slot] {
                assignments.append("\(entityColumn) = ?")
                arguments.append(entityNumber(values[slot]))
            }
        }
        arguments += [.integer(object.objectID.key), .integer(version)]
        let sql = "UPDATE \(mapping.table.name) SET \(assignments.joined(separator: ", ")) WHERE Z_PK = ? AND Z_OPT = ?"
        return try session.execute(sql, arguments) == 1
    }

    private func currentRow(of object: ManagedObject, _ mapping: EntityMapping) throws -> StoreRow? {
        let codec = PostgresRowCodec(layout: layout, store: store)
        var row: StoreRow?
        try session.query(mapping.lockedRowSQL(in: PostgresDialect.self), [.integer(object.objectID.key)]) { row = codec.decode($0) }
        return row
    }

    private func delete(_ object: ManagedObject, _ conflicts: inout [MergeConflictError.Conflict]) throws {
        let mapping = layout.mappings[object.entity.index]
        let pk = object.objectID.key
        let deleted = try SaveConflictResolution.delete(object, policy: policy, conflicts: &conflicts, deleteAtVersion: {
            try session.execute("DELETE FROM \(mapping.table.name) WHERE Z_PK = ? AND Z_OPT = ?", [.integer(pk), .integer(object.version)])
        }, currentVersion: {
            guard case .integer(let current)? = try session.scalar(mapping.lockedVersionSQL(in: PostgresDialect.self), [.integer(pk)]) else { return nil }
            return current
        }, deleteAnyVersion: {
            try session.execute("DELETE FROM \(mapping.table.name) WHERE Z_PK = ?", [.integer(pk)])
        })
        if deleted { try deleteJoinRows(mapping, pk) }
    }

    private func deleteJoinRows(_ mapping: EntityMapping, _ pk: Int64) throws {
        var seen = Set<String>()
        for case let join? in mapping.joinTableBySlot where seen.insert(join.name + join.ownerColumn).inserted {
            try session.execute("DELETE FROM \(join.name) WHERE \(join.ownerColumn) = ?", [.integer(pk)])
        }
    }

    // MARK: To-many storage

    /// Join-table rows and ordering columns of the to-many relationships that changed
    /// (``ToManyWrite``), a statement each, the keys as one `bigint[]` parameter.
    private func writeToMany(_ object: ManagedObject, _ plan: EntitySavePlan) throws {
        let (owner, writes) = try ToManyWrite.writes(of: object, plan: plan, layout: layout, keys: keys, dialect: PostgresDialect.self) { sql, owner in
            var stored: [Int64] = []
            try session.query(sql, [.integer(owner)]) { if case .integer(let key) = $0[0] { stored.append(key) } }
            return stored
        }
        for write in writes {
            switch write {
            case .orderedJoin(let join, let orderColumn, let members):
                try session.execute("DELETE FROM \(join.name) WHERE \(join.ownerColumn) = ?", [.integer(owner)])
                guard !members.isEmpty else { continue }
                try session.execute("INSERT INTO \(join.name) (\(join.ownerColumn), \(join.memberColumn), \(orderColumn)) SELECT ?, m, p FROM unnest(?::bigint[]) WITH ORDINALITY AS u(m, p) ON CONFLICT DO NOTHING",
                                    [.integer(owner), .text(PostgresDialect.keyArray(members))])
            case .join(let join, let removed, let added):
                if !removed.isEmpty {
                    try session.execute("DELETE FROM \(join.name) WHERE \(join.ownerColumn) = ? AND \(join.memberColumn) = ANY(?::bigint[])",
                                        [.integer(owner), .text(PostgresDialect.keyArray(removed))])
                }
                if !added.isEmpty {
                    try session.execute("INSERT INTO \(join.name) (\(join.ownerColumn), \(join.memberColumn)) SELECT ?, m FROM unnest(?::bigint[]) AS u(m) ON CONFLICT DO NOTHING",
                                        [.integer(owner), .text(PostgresDialect.keyArray(added))])
                }
            case .order(let table, let orderColumn, let members):
                guard !members.isEmpty else { continue }
                try session.execute("UPDATE \(table) SET \(orderColumn) = u.p FROM unnest(?::bigint[]) WITH ORDINALITY AS u(m, p) WHERE \(table).Z_PK = u.m",
                                    [.text(PostgresDialect.keyArray(members))])
            }
        }
    }
}
