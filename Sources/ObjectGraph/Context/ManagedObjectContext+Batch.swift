import Foundation

extension ManagedObjectContext {
    /// Deletes what `request` selects, in SQL inside one write transaction, applying delete
    /// rules; then every context on the coordinator (this one at once, others at their next
    /// entry point) marks the deleted objects deleted and refreshes nullified ones.
    ///
    /// - Complexity: a handful of statements per entity and relationship touched (IDs in
    ///   chunks of 500); no object is materialized.
    /// - Throws: ``BatchRequestError`` (`denied`) when a deny rule finds destinations,
    ///   ``FetchPredicateError`` for a bad predicate, ``SQLiteError``; the store is then unchanged.
    @discardableResult
    public func execute(_ request: BatchDeleteRequest) throws -> BatchResult {
        willAccess()
        let entity = try batchEntity(request.entityName)
        let coordinator = persistentStoreCoordinator
        let plan = try FetchPlan(entity: entity, predicate: request.predicate, includesSubentities: request.includesSubentities,
                                 sortKeys: [], coordinator: coordinator)
        let outcome = try coordinator.write { connection in
            var deleter = BatchDeleter(coordinator: coordinator, connection: connection)
            let selected = try deleter.selectAndKeepIDs(plan)
            try deleter.delete(selected, plan: plan)
            let updated = try deleter.readRows(deleter.nullified.filter { !deleter.deleted.contains($0) })
            return (selected, deleter, updated)
        }
        let (selected, deleter, updatedRows) = outcome
        let selectedSet = Set(selected)
        var changes = ChangeSet()
        changes.deleted = Array(deleter.deleted)
        changes.changes.deleted = deleter.deleted
        changes.updated = updatedRows
        changes.changes.updated = Set(updatedRows.map(\.id))
        publishBatch(changes)
        return BatchResult(count: selected.count, objectIDs: request.resultType == .objectIDs ? selected : [],
                           cascadedObjectIDs: deleter.order.filter { !selectedSet.contains($0) },
                           nullifiedObjectIDs: updatedRows.map(\.id))
    }

    /// Sets ``BatchUpdateRequest/propertiesToUpdate`` on what `request` selects with one SQL
    /// `UPDATE` (per 500 rows) inside one transaction; then every context's registered objects
    /// show the new values (objects with unsaved changes keep theirs until they save).
    ///
    /// - Throws: ``BatchRequestError`` (`invalidUpdate`) for a key that is not a stored
    ///   attribute or a value of the wrong type; ``FetchPredicateError``; ``SQLiteError``.
    @discardableResult
    public func execute(_ request: BatchUpdateRequest) throws -> BatchResult {
        willAccess()
        let entity = try batchEntity(request.entityName)
        let coordinator = persistentStoreCoordinator
        let mapping = coordinator.mapping(for: entity)
        var assignments: [String] = []
        var values: [SQLiteValue] = []
        for (key, value) in request.propertiesToUpdate.sorted(by: { $0.key < $1.key }) {
            guard let attribute = entity.propertiesByName[key] as? AttributeDescription, !attribute.isTransient,
                  let column = mapping.columnBySlot[attribute.slot] else {
                throw BatchRequestError(code: .invalidUpdate, entity: entity.name, key: key, message: "\(entity.name) has no stored attribute named '\(key)'")
            }
            let given = try PredicateValue.from(value.map { $0 as Any })
            guard let (stored, _) = PredicateBinder.convert(given, to: ValueKind(attribute.attributeType)),
                  !(stored.isNull && !attribute.isOptional) else {
                throw BatchRequestError(code: .invalidUpdate, entity: entity.name, key: key,
                                        message: "\(entity.name).\(key) is \(attribute.isOptional ? "an optional " : "a non-optional ")\(attribute.attributeType.swiftTypeName), not \(given.typeName) \(given)")
            }
            assignments.append("\(column) = ?")
            values.append(PredicateSQLCompiler.sqliteValue(stored))
        }
        let plan = try FetchPlan(entity: entity, predicate: request.predicate, includesSubentities: request.includesSubentities,
                                 sortKeys: [], coordinator: coordinator)
        let (selected, rows) = try coordinator.write { connection in
            let deleter = BatchDeleter(coordinator: coordinator, connection: connection)
            let selected = try deleter.selectIDs(plan)
            if !assignments.isEmpty {
                for chunk in selected.chunks(500) {
                    let sql = "UPDATE \(mapping.table.name) SET \(assignments.joined(separator: ", ")), Z_OPT = Z_OPT + 1 WHERE Z_PK IN (\(BatchDeleter.marks(chunk.count)))"
                    try connection.run(sql, values + chunk.map { .integer($0.key) })
                }
            }
            return (selected, try deleter.readRows(selected))
        }
        var changes = ChangeSet()
        changes.updated = rows
        changes.changes.updated = Set(rows.map(\.id))
        let keys = Set(request.propertiesToUpdate.keys)
        for row in rows { changes.changes.changedKeys[row.id] = keys }
        publishBatch(changes)
        return BatchResult(count: selected.count, objectIDs: selected, cascadedObjectIDs: [], nullifiedObjectIDs: [])
    }

    private func batchEntity(_ name: String) throws -> EntityDescription {
        guard let entity = managedObjectModel.entitiesByName[name] else {
            throw ModelError(.unknownEntity, entity: name, "the model has no entity named \(name)")
        }
        return entity
    }

    /// Tells every context (this one now, the others at their next entry point).
    private func publishBatch(_ changes: ChangeSet) {
        let coordinator = persistentStoreCoordinator
        coordinator.rowCache.remove(changes.deleted + changes.updated.map(\.id))
        coordinator.broadcast(changes, from: self)
        enqueue(changes)
        drainInbox()
    }
}

/// The SQL work of a batch delete, inside the write transaction: selects, follows delete
/// rules, deletes rows and join-table rows, and reads back rows that nullify rules changed.
struct BatchDeleter {
    let coordinator: PersistentStoreCoordinator
    let connection: SQLiteConnection
    private(set) var deleted = Set<ObjectID>()
    private(set) var order: [ObjectID] = []
    private(set) var nullified = Set<ObjectID>()

    init(coordinator: PersistentStoreCoordinator, connection: SQLiteConnection) {
        self.coordinator = coordinator
        self.connection = connection
    }

    static func marks(_ count: Int) -> String { Array(repeating: "?", count: count).joined(separator: ", ") }

    /// The IDs a plan selects.
    func selectIDs(_ plan: FetchPlan) throws -> [ObjectID] {
        try ids("SELECT t.Z_PK, t.Z_ENT FROM \(plan.mapping.table.name) t" + plan.whereClause, plan.arguments)
    }

    /// The IDs a plan selects, also kept in `temp.og_batch_keys` so that the statements that
    /// follow name them with one subquery instead of binding them in chunks.
    func selectAndKeepIDs(_ plan: FetchPlan) throws -> [ObjectID] {
        try connection.execute("CREATE TEMP TABLE IF NOT EXISTS og_batch_keys (pk INTEGER PRIMARY KEY)")
        try connection.run("DELETE FROM temp.og_batch_keys")
        try connection.run("INSERT INTO temp.og_batch_keys SELECT t.Z_PK FROM \(plan.mapping.table.name) t" + plan.whereClause, plan.arguments)
        return try ids("SELECT t.Z_PK, t.Z_ENT FROM \(plan.mapping.table.name) t WHERE t.Z_PK IN (SELECT pk FROM temp.og_batch_keys)", [])
    }

    /// Where the keys of objects being deleted come from: the request's selection in the
    /// temporary table, or a list bound 500 at a time.
    enum KeySource {
        case selection
        case list([Int64])

        /// The contents of `IN (...)` and its arguments, per chunk.
        var chunks: [(sql: String, arguments: [SQLiteValue])] {
            switch self {
            case .selection: return [("SELECT pk FROM temp.og_batch_keys", [])]
            case .list(let keys): return keys.chunks(500).map { (BatchDeleter.marks($0.count), $0.map { .integer($0) }) }
            }
        }
    }

    private func ids(_ sql: String, _ arguments: [SQLiteValue]) throws -> [ObjectID] {
        let layout = coordinator.layout
        let store = coordinator.store.identity
        var result: [ObjectID] = []
        try connection.query(sql, arguments) { statement in
            guard let entity = layout.entitiesByNumber[statement.int64(1)] else { return }
            result.append(ObjectID(entity: entity, store: store, primaryKey: statement.int64(0)))
        }
        return result
    }

    /// Deletes what `plan` selected (`selected`, kept by ``selectAndKeepIDs(_:)``) and, by
    /// cascade rules, their destinations; applies nullify and deny.
    mutating func delete(_ selected: [ObjectID], plan: FetchPlan) throws {
        var pending = selected.filter { deleted.insert($0).inserted }
        order += pending
        var relationships: [ObjectIdentifier: RelationshipDescription] = [:]
        for entity in Set(selected.map(\.entity)) {
            for relationship in entity.relationships { relationships[ObjectIdentifier(relationship)] = relationship }
        }
        var next: [ObjectID] = []
        for relationship in relationships.values { next += try apply(relationship, .selection) }
        pending = next.filter { deleted.insert($0).inserted }
        order += pending
        while !pending.isEmpty {
            next = []
            for (entity, group) in Dictionary(grouping: pending, by: { ObjectIdentifier($0.entity) }).map({ ($0.value[0].entity, $0.value) }) {
                for relationship in entity.relationships {
                    next += try apply(relationship, .list(group.map(\.key)))
                }
            }
            pending = next.filter { deleted.insert($0).inserted }
            order += pending
        }
        // Objects whose relationships changed get a new version, so contexts merge them and
        // unsaved edits of them meet the merge policy.
        let changed = nullified.subtracting(deleted)
        for (root, group) in Dictionary(grouping: Array(changed), by: { ObjectIdentifier($0.entity.root) }).map({ ($0.value[0].entity.root, $0.value) }) {
            let table = coordinator.mapping(for: root).table.name
            for chunk in group.chunks(500) {
                try connection.run("UPDATE \(table) SET Z_OPT = Z_OPT + 1 WHERE Z_PK IN (\(Self.marks(chunk.count)))", chunk.map { .integer($0.key) })
            }
        }
        // The selection with one statement (the whole table when nothing narrows it), then
        // what cascaded.
        let table = plan.mapping.table.name
        try connection.run(plan.whereClause.isEmpty ? "DELETE FROM \(table)" : "DELETE FROM \(table) WHERE Z_PK IN (SELECT pk FROM temp.og_batch_keys)")
        try connection.run("DELETE FROM temp.og_batch_keys")
        let selectedSet = Set(selected)
        let cascaded = order.filter { !selectedSet.contains($0) }
        for (root, group) in Dictionary(grouping: cascaded, by: { ObjectIdentifier($0.entity.root) }).map({ ($0.value[0].entity.root, $0.value) }) {
            let table = coordinator.mapping(for: root).table.name
            for chunk in group.chunks(500) {
                try connection.run("DELETE FROM \(table) WHERE Z_PK IN (\(Self.marks(chunk.count)))", chunk.map { .integer($0.key) })
            }
        }
    }

    /// Applies `relationship`'s delete rule for the owners `keys` name; returns destinations
    /// to cascade to.
    private mutating func apply(_ relationship: RelationshipDescription, _ keys: KeySource) throws -> [ObjectID] {
        let entity = relationship.entity
        let owner = coordinator.mapping(for: entity)
        let destination = coordinator.mapping(for: relationship.destinationEntity)
        var found: [ObjectID] = []
        for (marks, arguments) in keys.chunks {
            let sql: String
            if let join = owner.joinTableBySlot[relationship.slot] {
                sql = "SELECT d.Z_PK, d.Z_ENT FROM \(join.name) j JOIN \(destination.table.name) d ON d.Z_PK = j.\(join.memberColumn) WHERE j.\(join.ownerColumn) IN (\(marks))"
            } else if !relationship.isToMany, let column = owner.columnBySlot[relationship.slot] {
                sql = "SELECT d.Z_PK, d.Z_ENT FROM \(destination.table.name) d WHERE d.Z_PK IN (SELECT t.\(column) FROM \(owner.table.name) t WHERE t.Z_PK IN (\(marks)))"
            } else if let inverse = relationship.inverseRelationship, let column = coordinator.mapping(for: inverse.entity).columnBySlot[inverse.slot] {
                sql = "SELECT d.Z_PK, d.Z_ENT FROM \(destination.table.name) d WHERE d.\(column) IN (\(marks))"
            } else {
                continue
            }
            found += try ids(sql, arguments)
            if let join = owner.joinTableBySlot[relationship.slot] {
                try connection.run("DELETE FROM \(join.name) WHERE \(join.ownerColumn) IN (\(marks))", arguments)
            }
        }
        switch relationship.deleteRule {
        case .cascade:
            return found
        case .deny:
            let blocking = found.filter { !deleted.contains($0) }
            if !blocking.isEmpty {
                throw BatchRequestError(code: .denied, entity: entity.name, key: relationship.name,
                                        message: "\(entity.name).\(relationship.name) denies deletion while it has destinations (\(blocking.count), e.g. \(blocking[0]))")
            }
        case .nullify:
            guard let inverse = relationship.inverseRelationship else { break }
            nullified.formUnion(found)
            if !inverse.isToMany, owner.joinTableBySlot[relationship.slot] == nil,
               let column = coordinator.mapping(for: inverse.entity).columnBySlot[inverse.slot] {
                var sets = "\(column) = NULL"
                if let entityColumn = coordinator.mapping(for: inverse.entity).entityColumnBySlot[inverse.slot] { sets += ", \(entityColumn) = NULL" }
                for (marks, arguments) in keys.chunks {
                    try connection.run("UPDATE \(destination.table.name) SET \(sets) WHERE \(column) IN (\(marks))", arguments)
                }
            }
        case .noAction:
            break
        }
        return []
    }

    /// The rows of `ids` as written now, for other contexts to merge.
    func readRows(_ ids: some Collection<ObjectID>) throws -> [(id: ObjectID, values: ContiguousArray<SlotValue>, version: Int64)] {
        var rows: [(id: ObjectID, values: ContiguousArray<SlotValue>, version: Int64)] = []
        let codec = coordinator.rowCodec
        for (root, group) in Dictionary(grouping: Array(ids), by: { ObjectIdentifier($0.entity.root) }).map({ ($0.value[0].entity.root, $0.value) }) {
            let mapping = coordinator.mapping(for: root)
            for chunk in group.chunks(500) {
                let sql = "SELECT \(mapping.table.selectList) FROM \(mapping.table.name) t WHERE t.Z_PK IN (\(Self.marks(chunk.count)))"
                try connection.query(sql, chunk.map { .integer($0.key) }) { statement in
                    if let row = codec.decode(statement) { rows.append((row.id, row.values, row.version)) }
                }
            }
        }
        return rows
    }
}

extension Array {
    /// Consecutive slices of at most `size` elements.
    func chunks(_ size: Int) -> [ArraySlice<Element>] {
        stride(from: 0, to: count, by: size).map { self[$0..<Swift.min(count, $0 + size)] }
    }
}
