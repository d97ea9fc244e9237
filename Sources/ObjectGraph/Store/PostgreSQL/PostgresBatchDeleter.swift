import Foundation

/// The PostgreSQL work of a batch delete, inside its transaction (``SQLBatchDeleter``).
typealias PostgresBatchDeleter = SQLBatchDeleter<PostgresBatchDeleteSQL>

extension SQLBatchDeleter where Backend == PostgresBatchDeleteSQL {
    init(store: PostgresStore, session: PostgresSession) {
        self.init(PostgresBatchDeleteSQL(store: store, session: session))
    }
}

/// The statements of a batch delete in a PostgreSQL session. The selection is kept in a
/// temporary table of the session (`og_batch_keys`, emptied at commit); other keys go as
/// `bigint[]` parameters, 5000 at a time. Deleting every row of whole entities reports the
/// rows it removed, for the change notification: other processes learn the keys, not a key
/// bound, since keys are reserved outside the saving transactions here, so a row with a key
/// below the bound may be committed after this delete and must not be taken for deleted.
struct PostgresBatchDeleteSQL: SQLBatchDeleteBackend {
    typealias Dialect = PostgresDialect
    let store: PostgresStore
    let session: PostgresSession

    var layout: StoreLayout { store.layout }

    func ids(_ sql: String, _ arguments: [SQLValue]) throws -> [ObjectID] {
        let layout = store.layout
        let store = store.identity
        var result: [ObjectID] = []
        try session.query(sql, arguments) { row in
            guard case .integer(let key) = row[0], case .integer(let number) = row[1], let entity = layout.entitiesByNumber[number] else { return }
            result.append(ObjectID(entity: entity, store: store, primaryKey: key))
        }
        return result
    }

    @discardableResult func run(_ sql: String, _ arguments: [SQLValue]) throws -> Int {
        try session.execute(sql, arguments)
    }

    func scalar(_ sql: String) throws -> SQLValue? {
        try session.scalar(sql)
    }

    func keep(_ select: String, _ arguments: [SQLValue]) throws {
        try session.execute("CREATE TEMP TABLE IF NOT EXISTS og_batch_keys (pk bigint PRIMARY KEY) ON COMMIT DELETE ROWS")
        try session.execute("DELETE FROM \(Dialect.keptKeys)")
        try session.execute("INSERT INTO \(Dialect.keptKeys) " + select, arguments)
    }

    func lastReservedKey(root: EntityDescription) throws -> Int64 {
        try store.reserve(0, root: root, session)
    }

    func deleteRows(_ table: String, _ whereClause: String) throws -> (count: Int, ids: [ObjectID]) {
        let ids = try ids("WITH d AS (DELETE FROM \(table)" + whereClause + " RETURNING Z_PK, Z_ENT) SELECT Z_PK, Z_ENT FROM d", [])
        return (ids.count, ids)
    }

    func readRows(_ sql: String, _ arguments: [SQLValue], into rows: inout [StoreRow]) throws {
        let codec = store.rowCodec
        try session.query(sql, arguments) { columns in
            if let row = codec.decode(columns) { rows.append(row) }
        }
    }
}
