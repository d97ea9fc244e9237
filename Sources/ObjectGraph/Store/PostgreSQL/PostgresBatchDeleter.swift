import Foundation

/// The PostgreSQL work of a batch delete, inside its transaction: selects, follows delete
/// rules, deletes rows and join-table rows, and reads back rows that nullify rules changed
/// (``SQLiteBatchDeleter``'s semantics). The selection is kept in a temporary table of the
/// session (`og_batch_keys`, emptied at commit); cascaded keys go as `bigint[]` parameters.
struct PostgresBatchDeleter {
    let store: PostgresStore
    let session: PostgresSession
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

    init(store: PostgresStore, session: PostgresSession) {
        self.store = store
        self.session = session
    }

    /// The IDs a plan selects.
    func selectIDs(_ plan: PostgresSelect) throws -> [ObjectID] {
        try ids("SELECT t.Z_PK, t.Z_ENT FROM \(plan.table) t" + plan.whereClause, plan.arguments)
    }

    /// Selects what `plan` selects, keeping the keys in `temp.og_batch_keys` so that the
    /// statements that follow name them with one subquery (and nullify updates cannot change
    /// the selection); returns their IDs.
    mutating func selectAndKeepIDs(_ plan: PostgresSelect) throws -> [ObjectID] {
        try session.execute("CREATE TEMP TABLE IF NOT EXISTS og_batch_keys (pk bigint PRIMARY KEY) ON COMMIT DELETE ROWS")
        try session.execute("DELETE FROM pg_temp.og_batch_keys")
        try session.execute("INSERT INTO pg_temp.og_batch_keys SELECT t.Z_PK FROM \(plan.table) t" + plan.whereClause, plan.arguments)
        let selected = try ids("SELECT t.Z_PK, t.Z_ENT FROM \(plan.table) t WHERE t.Z_PK IN (SELECT pk FROM pg_temp.og_batch_keys)", [])
        deleted = Set(selected)
        selectedEntities = Array(Set(selected.map(\.entity)))
        selection = .kept
        return selected
    }

    /// Selects every object of the plan's entity (and its sub-entities when included) without
    /// reading a row, for a plan whose predicate admits every row. The statements that follow
    /// name them by `Z_ENT`, which nullify updates leave alone; contexts are told an
    /// ``EntityDeletion`` up to the last key handed out, which later keys exceed.
    mutating func selectEntities(_ plan: PostgresSelect, includesSubentities: Bool) throws {
        let entity = plan.query.entity
        let entities = includesSubentities ? entity.selfAndDescendants : [entity]
        let last = try store.reserve(0, root: entity.root, session)
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
            case .kept: return [("SELECT pk FROM pg_temp.og_batch_keys", [])]
            case .rows(let mapping, let sub): return [("SELECT t.Z_PK FROM \(mapping.table.name) t" + PostgresBatchDeleter.whereClause(mapping.entityCondition(includesSubentities: sub)), [])]
            case .list(let keys): return keys.chunks(5000).map { ("SELECT unnest(?::bigint[])", [.text(PostgresStore.keyArray($0))]) }
            }
        }
    }

    private static func whereClause(_ condition: String?) -> String { condition.map { " WHERE " + $0 } ?? "" }

    private func ids(_ sql: String, _ arguments: [SQLiteValue]) throws -> [ObjectID] {
        let layout = store.layout
        let store = store.identity
        var result: [ObjectID] = []
        try session.query(sql, arguments) { row in
            guard case .integer(let key) = row[0], case .integer(let number) = row[1], let entity = layout.entitiesByNumber[number] else { return }
            result.append(ObjectID(entity: entity, store: store, primaryKey: key))
        }
        return result
    }

    /// The largest primary key in `table` (0 when empty): a bound on its number of rows,
    /// read from the end of its B-tree.
    private func lastKey(_ table: TableMapping) throws -> Int64 {
        if case .integer(let key)? = try session.scalar("SELECT MAX(Z_PK) FROM \(table.name)") { return key }
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
    mutating func delete(_ plan: PostgresSelect) throws -> Int {
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
            let table = store.layout.mappings[root.index].table.name
            for chunk in group.chunks(5000) {
                try session.execute("UPDATE \(table) SET Z_OPT = Z_OPT + 1 WHERE Z_PK = ANY(?::bigint[])", [.text(PostgresStore.keyArray(chunk.lazy.map(\.key)))])
            }
        }
        // The selection with one statement, then what cascaded.
        let table = plan.table
        let count: Int
        if case .rows(let mapping, let sub) = selection {
            count = try session.execute("DELETE FROM \(table)" + Self.whereClause(mapping.entityCondition(includesSubentities: sub, alias: nil)))
        } else {
            count = try session.execute("DELETE FROM \(table) WHERE Z_PK IN (SELECT pk FROM pg_temp.og_batch_keys)")
            try session.execute("DELETE FROM pg_temp.og_batch_keys")
        }
        for (root, group) in Dictionary(grouping: cascaded, by: { ObjectIdentifier($0.entity.root) }).map({ ($0.value[0].entity.root, $0.value) }) {
            let table = store.layout.mappings[root.index].table.name
            for chunk in group.chunks(5000) {
                try session.execute("DELETE FROM \(table) WHERE Z_PK = ANY(?::bigint[])", [.text(PostgresStore.keyArray(chunk.lazy.map(\.key)))])
            }
        }
        return count
    }

    /// Applies `relationship`'s delete rule for the owners `keys` name; returns destinations
    /// to cascade to.
    private mutating func apply(_ relationship: RelationshipDescription, _ keys: KeySource) throws -> [ObjectID] {
        let entity = relationship.entity
        let owner = store.layout.mappings[entity.index]
        let destination = store.layout.mappings[relationship.destinationEntity.index]
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
            } else if let inverse = relationship.inverseRelationship, let column = store.layout.mappings[inverse.entity.index].columnBySlot[inverse.slot] {
                sql = "SELECT d.Z_PK, d.Z_ENT FROM \(destination.table.name) d WHERE d.\(column) IN (\(marks))"
            } else {
                continue
            }
            found += try ids(sql, arguments)
            if let join = owner.joinTableBySlot[relationship.slot] {
                try session.execute("DELETE FROM \(join.name) WHERE \(join.ownerColumn) IN (\(marks))", arguments)
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
               let column = store.layout.mappings[inverse.entity.index].columnBySlot[inverse.slot] {
                var sets = "\(column) = NULL"
                if let entityColumn = store.layout.mappings[inverse.entity.index].entityColumnBySlot[inverse.slot] { sets += ", \(entityColumn) = NULL" }
                for (marks, arguments) in keys.chunks {
                    try session.execute("UPDATE \(destination.table.name) SET \(sets) WHERE \(column) IN (\(marks))", arguments)
                }
            }
        case .noAction:
            break
        }
        return []
    }

    /// The rows of `ids` as written now, for other contexts to merge.
    func readRows(_ ids: some Collection<ObjectID>) throws -> [StoreRow] {
        var rows: [StoreRow] = []
        let codec = store.rowCodec
        for (root, group) in Dictionary(grouping: Array(ids), by: { ObjectIdentifier($0.entity.root) }).map({ ($0.value[0].entity.root, $0.value) }) {
            let mapping = store.layout.mappings[root.index]
            for chunk in group.chunks(5000) {
                let sql = "SELECT \(mapping.table.selectList) FROM \(mapping.table.name) t WHERE t.Z_PK = ANY(?::bigint[])"
                try session.query(sql, [.text(PostgresStore.keyArray(chunk.lazy.map(\.key)))]) { columns in
                    if let row = codec.decode(columns) { rows.append(row) }
                }
            }
        }
        return rows
    }
}
