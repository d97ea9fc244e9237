import Foundation

extension ManagedObjectContext {
    /// Deletes what `request` selects, in SQL inside one write transaction, applying delete
    /// rules; then every context on the coordinator (this one at once, others at their next
    /// entry point) marks the deleted objects deleted and refreshes nullified ones.
    ///
    /// With a predicate, the selected keys are kept in a temporary table (so that nullify
    /// rules cannot change the selection) and read back to tell the contexts. Without one
    /// (or with `TRUEPREDICATE`) the rows are deleted with one `DELETE` and never read:
    /// contexts are told that every object of the entity (and of its sub-entities, when
    /// included) saved before the delete is gone, and find those among their registered
    /// objects; objects saved afterwards, and unsaved inserted ones, are not affected.
    ///
    /// Observers hear `.objectsDidChange` in each context, listing the deleted and refreshed
    /// objects that context had registered; a batch delete posts no `.didSave`.
    ///
    /// - Complexity: a handful of statements per entity and relationship touched (cascaded
    ///   IDs in chunks of 500); no object is materialized. Without a predicate, no row is read
    ///   unless ``BatchDeleteRequest/resultType`` asks for ``BatchDeleteRequest/ResultType/objectIDs``,
    ///   and each context makes one pass over its registered objects.
    /// - Throws: ``BatchRequestError`` (`denied`) when a deny rule finds destinations,
    ///   ``FetchPredicateError`` for a bad predicate, ``SQLiteError``; the store is then unchanged.
    @discardableResult
    public func execute(_ request: BatchDeleteRequest) throws -> BatchResult {
        willAccess()
        let entity = try batchEntity(request.entityName)
        let coordinator = persistentStoreCoordinator
        let plan = try FetchPlan(entity: entity, predicate: request.predicate, includesSubentities: request.includesSubentities,
                                 sortKeys: [], coordinator: coordinator)
        let listsIDs = request.resultType == .objectIDs
        let (deleter, count, listed, updatedRows) = try coordinator.write { connection in
            var deleter = BatchDeleter(coordinator: coordinator, connection: connection)
            let listed: [ObjectID]
            if plan.admitsEveryRow {
                listed = listsIDs ? try deleter.selectIDs(plan) : []
                try deleter.selectEntities(plan, includesSubentities: request.includesSubentities)
            } else {
                listed = try deleter.selectAndKeepIDs(plan)
            }
            let count = try deleter.delete(plan)
            return (deleter, count, listed, try deleter.readRows(deleter.nullified))
        }
        var changes = ChangeSet()
        changes.deleted = Array(deleter.deleted)
        changes.deletedEntities = deleter.deletedEntities.map { [$0] } ?? []
        changes.changes.deleted = deleter.deleted
        changes.updated = updatedRows
        changes.changes.updated = Set(updatedRows.map(\.id))
        publishBatch(changes)
        return BatchResult(count: count, objectIDs: listsIDs ? listed : [], cascadedObjectIDs: deleter.cascaded,
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
        for deletion in changes.deletedEntities { coordinator.rowCache.remove(deletion) }
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
    /// Objects deleted by ID: the selection of a predicate, then what cascaded.
    private(set) var deleted = Set<ObjectID>()
    /// Objects deleted by cascade rules beyond the selection, in the order found.
    private(set) var cascaded: [ObjectID] = []
    /// Objects whose relationships nullify rules changed; after ``delete(_:)``, only those
    /// still in the store.
    private(set) var nullified = Set<ObjectID>()
    /// The selection when it is every object of whole entities (no predicate).
    private(set) var deletedEntities: EntityDeletion?
    /// The entities of the selected objects, whose relationships' delete rules apply.
    private var selectedEntities: [EntityDescription] = []
    private var selection = KeySource.kept

    init(coordinator: PersistentStoreCoordinator, connection: SQLiteConnection) {
        self.coordinator = coordinator
        self.connection = connection
    }

    static func marks(_ count: Int) -> String { Array(repeating: "?", count: count).joined(separator: ", ") }

    /// The IDs a plan selects.
    func selectIDs(_ plan: FetchPlan) throws -> [ObjectID] {
        try ids("SELECT t.Z_PK, t.Z_ENT FROM \(plan.mapping.table.name) t" + plan.whereClause, plan.arguments)
    }

    /// Selects what `plan` selects, keeping the keys in `temp.og_batch_keys` so that the
    /// statements that follow name them with one subquery (and nullify updates cannot change
    /// the selection); returns their IDs.
    mutating func selectAndKeepIDs(_ plan: FetchPlan) throws -> [ObjectID] {
        try connection.execute("CREATE TEMP TABLE IF NOT EXISTS og_batch_keys (pk INTEGER PRIMARY KEY)")
        try connection.run("DELETE FROM temp.og_batch_keys")
        try connection.run("INSERT INTO temp.og_batch_keys SELECT t.Z_PK FROM \(plan.mapping.table.name) t" + plan.whereClause, plan.arguments)
        let selected = try ids("SELECT t.Z_PK, t.Z_ENT FROM \(plan.mapping.table.name) t WHERE t.Z_PK IN (SELECT pk FROM temp.og_batch_keys)", [])
        deleted = Set(selected)
        selectedEntities = Array(Set(selected.map(\.entity)))
        selection = .kept
        return selected
    }

    /// Selects every object of the plan's entity (and its sub-entities when included) without
    /// reading a row, for a plan whose predicate admits every row. The statements that follow
    /// name them by `Z_ENT`, which nullify updates leave alone; contexts are told an
    /// ``EntityDeletion`` up to the last key handed out, which later keys exceed.
    mutating func selectEntities(_ plan: FetchPlan, includesSubentities: Bool) throws {
        let entities = includesSubentities ? plan.entity.selfAndDescendants : [plan.entity]
        let last = try connection.reservePrimaryKeys(0, root: plan.entity.root, layout: coordinator.layout)
        deletedEntities = EntityDeletion(entities: entities, maxKey: last)
        selectedEntities = entities
        selection = .rows(plan.mapping, includesSubentities: includesSubentities)
    }

    /// Which owners a statement is about: the request's selection (kept keys, or every row
    /// of whole entities), or cascaded objects' keys bound 500 at a time.
    enum KeySource {
        case kept
        /// Every object of the mapping's entity (and its sub-entities when included).
        case rows(EntityMapping, includesSubentities: Bool)
        case list([Int64])

        /// The contents of `IN (...)` and its arguments, per chunk.
        var chunks: [(sql: String, arguments: [SQLiteValue])] {
            switch self {
            case .kept: return [("SELECT pk FROM temp.og_batch_keys", [])]
            case .rows(let mapping, let sub): return [("SELECT t.Z_PK FROM \(mapping.table.name) t" + BatchDeleter.whereClause(mapping.entityCondition(includesSubentities: sub)), [])]
            case .list(let keys): return keys.chunks(500).map { (BatchDeleter.marks($0.count), $0.map { .integer($0) }) }
            }
        }
    }

    private static func whereClause(_ condition: String?) -> String { condition.map { " WHERE " + $0 } ?? "" }

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

    /// The largest primary key in `table` (0 when empty): a bound on its number of rows,
    /// read from the end of its B-tree.
    private func lastKey(_ table: TableMapping) throws -> Int64 {
        if case .integer(let key)? = try connection.scalar("SELECT MAX(Z_PK) FROM \(table.name)") { return key }
        return 0
    }

    /// Whether `id` is deleted by this batch (selected or cascaded).
    private func isDeleted(_ id: ObjectID) -> Bool {
        deleted.contains(id) || deletedEntities?.contains(id) == true
    }

    /// Of `found`, those not deleted yet; marks them deleted by cascade.
    private mutating func cascade(_ found: [ObjectID]) -> [ObjectID] {
        let fresh = found.filter { deletedEntities?.contains($0) != true && deleted.insert($0).inserted }
        cascaded += fresh
        return fresh
    }

    /// Deletes the selection (made by ``selectAndKeepIDs(_:)`` or ``selectEntities(_:includesSubentities:)``
    /// from `plan`) and, by cascade rules, their destinations; applies nullify and deny.
    /// Returns how many selected objects were deleted.
    mutating func delete(_ plan: FetchPlan) throws -> Int {
        var relationships: [ObjectIdentifier: RelationshipDescription] = [:]
        for entity in selectedEntities {
            for relationship in entity.relationships { relationships[ObjectIdentifier(relationship)] = relationship }
        }
        var next: [ObjectID] = []
        for relationship in relationships.values { next += try apply(relationship, selection) }
        var pending = cascade(next)
        while !pending.isEmpty {
            next = []
            for (entity, group) in Dictionary(grouping: pending, by: { ObjectIdentifier($0.entity) }).map({ ($0.value[0].entity, $0.value) }) {
                for relationship in entity.relationships {
                    next += try apply(relationship, .list(group.map(\.key)))
                }
            }
            pending = cascade(next)
        }
        // Objects whose relationships changed get a new version, so contexts merge them and
        // unsaved edits of them meet the merge policy.
        nullified = nullified.filter { !isDeleted($0) }
        for (root, group) in Dictionary(grouping: Array(nullified), by: { ObjectIdentifier($0.entity.root) }).map({ ($0.value[0].entity.root, $0.value) }) {
            let table = coordinator.mapping(for: root).table.name
            for chunk in group.chunks(500) {
                try connection.run("UPDATE \(table) SET Z_OPT = Z_OPT + 1 WHERE Z_PK IN (\(Self.marks(chunk.count)))", chunk.map { .integer($0.key) })
            }
        }
        // The selection with one statement, then what cascaded.
        let table = plan.mapping.table.name
        let count: Int
        if case .rows(let mapping, let sub) = selection {
            count = try connection.run("DELETE FROM \(table)" + Self.whereClause(mapping.entityCondition(includesSubentities: sub, alias: nil)))
        } else {
            count = try connection.run("DELETE FROM \(table) WHERE Z_PK IN (SELECT pk FROM temp.og_batch_keys)")
            try connection.run("DELETE FROM temp.og_batch_keys")
        }
        for (root, group) in Dictionary(grouping: cascaded, by: { ObjectIdentifier($0.entity.root) }).map({ ($0.value[0].entity.root, $0.value) }) {
            let table = coordinator.mapping(for: root).table.name
            for chunk in group.chunks(500) {
                try connection.run("DELETE FROM \(table) WHERE Z_PK IN (\(Self.marks(chunk.count)))", chunk.map { .integer($0.key) })
            }
        }
        return count
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
                let destinations = "SELECT d.Z_PK, d.Z_ENT FROM \(destination.table.name) d WHERE"
                if case .rows(let mapping, let sub) = keys {
                    let condition = mapping.entityCondition(includesSubentities: sub)
                    if condition == nil, destination.table !== owner.table, try lastKey(destination.table) <= lastKey(owner.table) {
                        // Every row of the table, and no more destinations than that (keys
                        // bound the counts): look each destination up in the column's index
                        // rather than read the column of every row.
                        sql = "\(destinations) EXISTS (SELECT 1 FROM \(owner.table.name) t WHERE t.\(column) = d.Z_PK)"
                    } else {
                        sql = "\(destinations) d.Z_PK IN (SELECT t.\(column) FROM \(owner.table.name) t\(Self.whereClause(condition)))"
                    }
                } else {
                    sql = "\(destinations) d.Z_PK IN (SELECT t.\(column) FROM \(owner.table.name) t WHERE t.Z_PK IN (\(marks)))"
                }
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
            let blocking = found.filter { !isDeleted($0) }
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
