import Foundation

/// What a SQL store runs for a batch request, inside its write transaction, in its
/// ``SQLDialect`` (which spells the statements).
protocol SQLBatchDeleteBackend {
    associatedtype Dialect: SQLDialect
    var layout: StoreLayout { get }
    /// The IDs a statement selecting `Z_PK, Z_ENT` reads.
    func ids(_ sql: String, _ arguments: [SQLValue]) throws -> [ObjectID]
    /// Runs a statement; returns how many rows it changed.
    @discardableResult func run(_ sql: String, _ arguments: [SQLValue]) throws -> Int
    /// The value of a statement's first column in its first row.
    func scalar(_ sql: String) throws -> SQLValue?
    /// Empties the dialect's `keptKeys` table (creating it when needed) and fills it with the keys `select` reads.
    func keep(_ select: String, _ arguments: [SQLValue]) throws
    /// The last primary key handed out for `root`'s table.
    func lastReservedKey(root: EntityDescription) throws -> Int64
    /// Deletes the rows of `table` that `whereClause` admits; returns how many, and their IDs
    /// when the store reports them.
    func deleteRows(_ table: String, _ whereClause: String) throws -> (count: Int, ids: [ObjectID])
    /// Appends the rows a statement selecting a table's `selectList` reads.
    func readRows(_ sql: String, _ arguments: [SQLValue], into rows: inout [StoreRow]) throws
}

/// The work of a batch delete in a SQL store: selects, follows delete rules (cascade, nullify,
/// deny), deletes rows and join-table rows, and reads back rows that nullify rules changed.
/// Generic over the store's ``SQLBatchDeleteBackend``, which runs the statements.
struct SQLBatchDeleter<Backend: SQLBatchDeleteBackend> {
    typealias Dialect = Backend.Dialect
    typealias Select = SQLSelect<Dialect>

    let backend: Backend
    /// Objects deleted by ID: the selection of a predicate, then what cascaded.
    private(set) var deleted = Set<ObjectID>()
    /// Objects deleted by cascade rules beyond the selection, in the order found.
    private(set) var cascaded: [ObjectID] = []
    /// Objects whose relationships nullify rules changed; after ``delete(_:)``, only those
    /// still in the store.
    private(set) var nullified = Set<ObjectID>()
    /// The selection when it is every object of whole entities (no predicate).
    private(set) var deletedEntities: EntityDeletion?
    /// With ``deletedEntities``: the rows the one `DELETE` removed, when the backend reports
    /// them (PostgreSQL, for its change notification).
    private(set) var emptiedRows: [ObjectID] = []
    /// The entities of the selected objects, whose relationships' delete rules apply.
    private var selectedEntities: [EntityDescription] = []
    private var selection = KeySource.kept

    init(_ backend: Backend) {
        self.backend = backend
    }

    private var layout: StoreLayout { backend.layout }

    /// The IDs a plan selects, with their rows locked until the transaction ends (a batch
    /// update then writes only rows that still match).
    func selectIDs(_ plan: Select) throws -> [ObjectID] {
        try backend.ids("SELECT t.Z_PK, t.Z_ENT FROM \(plan.table) t" + plan.whereClause + Dialect.rowLock("t"), plan.arguments)
    }

    /// Selects what `plan` selects (every object of whole entities, without reading a row, when
    /// its predicate admits every row) and deletes it with what its delete rules reach. Returns
    /// how many selected objects were deleted, and their IDs (when whole entities are selected,
    /// only with `listingIDs`).
    mutating func deleteSelection(_ plan: Select, listingIDs: Bool) throws -> (count: Int, listed: [ObjectID]) {
        let listed: [ObjectID]
        if plan.query.admitsEveryRow {
            listed = listingIDs ? try selectIDs(plan) : []
            try selectEntities(plan, includesSubentities: plan.query.includesSubentities)
        } else {
            listed = try selectAndKeepIDs(plan)
        }
        return (try delete(plan), listed)
    }

    /// Selects what `plan` selects, keeping the keys in the backend's temporary table so that
    /// the statements that follow name them with one subquery (and nullify updates cannot
    /// change the selection); returns their IDs. The rows stay locked until the transaction
    /// ends, so the selection is what gets deleted, and delete rules follow only those rows.
    private mutating func selectAndKeepIDs(_ plan: Select) throws -> [ObjectID] {
        try backend.keep("SELECT t.Z_PK FROM \(plan.table) t" + plan.whereClause + Dialect.rowLock("t"), plan.arguments)
        let selected = try backend.ids("SELECT t.Z_PK, t.Z_ENT FROM \(plan.table) t WHERE t.Z_PK IN (SELECT pk FROM \(Dialect.keptKeys))", [])
        deleted = Set(selected)
        selectedEntities = Array(Set(selected.map(\.entity)))
        selection = .kept
        return selected
    }

    /// Selects every object of the plan's entity (and its sub-entities when included) without
    /// reading a row, for a plan whose predicate admits every row. The statements that follow
    /// name them by `Z_ENT`, which nullify updates leave alone; contexts are told an
    /// ``EntityDeletion`` up to the last key handed out, which later keys exceed.
    private mutating func selectEntities(_ plan: Select, includesSubentities: Bool) throws {
        let entity = plan.query.entity
        let entities = includesSubentities ? entity.selfAndDescendants : [entity]
        let last = try backend.lastReservedKey(root: entity.root)
        deletedEntities = EntityDeletion(entities: entities, maxKey: last)
        selectedEntities = entities
        selection = .rows(plan.mapping, includesSubentities: includesSubentities)
    }

    /// Which owners a statement is about: the request's selection (kept keys, or every row
    /// of whole entities), or cascaded objects' keys bound a chunk at a time.
    enum KeySource {
        case kept
        /// Every object of the mapping's entity (and its sub-entities when included).
        case rows(EntityMapping, includesSubentities: Bool)
        case list([Int64])
    }

    /// The contents of `IN (...)` naming `keys` and its arguments, per chunk.
    private func chunks(_ keys: KeySource) -> [(sql: String, arguments: [SQLValue])] {
        switch keys {
        case .kept: return [("SELECT pk FROM \(Dialect.keptKeys)", [])]
        case .rows(let mapping, let sub): return [("SELECT t.Z_PK FROM \(mapping.table.name) t" + Self.whereClause(mapping.entityCondition(includesSubentities: sub)), [])]
        case .list(let keys): return Dialect.keyLists(keys)
        }
    }

    private static func whereClause(_ condition: String?) -> String { condition.map { " WHERE " + $0 } ?? "" }

    /// The largest primary key in `table` (0 when empty): a bound on its number of rows,
    /// read from the end of its B-tree.
    private func lastKey(_ table: TableMapping) throws -> Int64 {
        if case .integer(let key)? = try backend.scalar("SELECT MAX(Z_PK) FROM \(table.name)") { return key }
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

    /// `ids` grouped by root entity, with the name of the root's table.
    private func byTable(_ ids: [ObjectID]) -> [(table: String, keys: [Int64])] {
        Dictionary(grouping: ids, by: { ObjectIdentifier($0.entity.root) }).map { (layout.mappings[$0.value[0].entity.root.index].table.name, $0.value.map(\.key)) }
    }

    /// Deletes the selection (made by ``selectAndKeepIDs(_:)`` or ``selectEntities(_:includesSubentities:)``
    /// from `plan`) and, by cascade rules, their destinations; applies nullify and deny.
    /// Returns how many selected objects were deleted.
    private mutating func delete(_ plan: Select) throws -> Int {
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
        for (table, keys) in byTable(Array(nullified)) {
            for (condition, arguments) in Dialect.keyConditions("Z_PK", keys) {
                try backend.run("UPDATE \(table) SET Z_OPT = Z_OPT + 1 WHERE \(condition)", arguments)
            }
        }
        // The selection with one statement, then what cascaded.
        let table = plan.table
        let count: Int
        if case .rows(let mapping, let sub) = selection {
            (count, emptiedRows) = try backend.deleteRows(table, Self.whereClause(mapping.entityCondition(includesSubentities: sub, alias: nil)))
        } else {
            count = try backend.run("DELETE FROM \(table) WHERE Z_PK IN (SELECT pk FROM \(Dialect.keptKeys))", [])
            try backend.run("DELETE FROM \(Dialect.keptKeys)", [])
        }
        for (table, keys) in byTable(cascaded) {
            for (condition, arguments) in Dialect.keyConditions("Z_PK", keys) {
                try backend.run("DELETE FROM \(table) WHERE \(condition)", arguments)
            }
        }
        return count
    }

    /// Applies `relationship`'s delete rule for the owners `keys` name; returns destinations
    /// to cascade to.
    private mutating func apply(_ relationship: RelationshipDescription, _ keys: KeySource) throws -> [ObjectID] {
        let entity = relationship.entity
        let owner = layout.mappings[entity.index]
        let destination = layout.mappings[relationship.destinationEntity.index]
        let chunks = chunks(keys)
        // Cascaded destinations are deleted by key: locked as they are found, one another
        // transaction re-pointed elsewhere meanwhile is no longer found.
        let lock = relationship.deleteRule == .cascade ? Dialect.rowLock("d") : ""
        var found: [ObjectID] = []
        for (marks, arguments) in chunks {
            var sql: String
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
            } else if let inverse = relationship.inverseRelationship, let column = layout.mappings[inverse.entity.index].columnBySlot[inverse.slot] {
                sql = "SELECT d.Z_PK, d.Z_ENT FROM \(destination.table.name) d WHERE d.\(column) IN (\(marks))"
            } else {
                continue
            }
            sql += lock
            found += try backend.ids(sql, arguments)
            if let join = owner.joinTableBySlot[relationship.slot] {
                try backend.run("DELETE FROM \(join.name) WHERE \(join.ownerColumn) IN (\(marks))", arguments)
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
               let column = layout.mappings[inverse.entity.index].columnBySlot[inverse.slot] {
                var sets = "\(column) = NULL"
                if let entityColumn = layout.mappings[inverse.entity.index].entityColumnBySlot[inverse.slot] { sets += ", \(entityColumn) = NULL" }
                for (marks, arguments) in chunks {
                    try backend.run("UPDATE \(destination.table.name) SET \(sets) WHERE \(column) IN (\(marks))", arguments)
                }
            }
        case .noAction:
            break
        }
        return []
    }

    /// Sets `values` in the rows `plan` selects (locked, as ``selectIDs(_:)`` locks them),
    /// each a version more; returns the rows as written now.
    func update(_ plan: Select, _ values: [(attribute: AttributeDescription, value: SlotValue)]) throws -> [StoreRow] {
        let selected = try selectIDs(plan)
        if !values.isEmpty {
            let assignments = values.map { "\(plan.mapping.columnBySlot[$0.attribute.slot]!) = \(Dialect.columnPlaceholder($0.attribute.attributeType))" }
                .joined(separator: ", ")
            let arguments = values.map { Dialect.columnValue($0.value) }
            for (condition, keys) in Dialect.keyConditions("Z_PK", selected.map(\.key)) {
                try backend.run("UPDATE \(plan.table) SET \(assignments), Z_OPT = Z_OPT + 1 WHERE \(condition)", arguments + keys)
            }
        }
        return try readRows(selected)
    }

    /// The rows of `ids` as written now, for other contexts to merge.
    func readRows(_ ids: some Collection<ObjectID>) throws -> [StoreRow] {
        var rows: [StoreRow] = []
        for (root, group) in Dictionary(grouping: Array(ids), by: { ObjectIdentifier($0.entity.root) }).map({ ($0.value[0].entity.root, $0.value) }) {
            let mapping = layout.mappings[root.index]
            for (condition, arguments) in Dialect.keyConditions("t.Z_PK", group.map(\.key)) {
                try backend.readRows("SELECT \(mapping.table.selectList) FROM \(mapping.table.name) t WHERE \(condition)", arguments, into: &rows)
            }
        }
        return rows
    }
}
