import Foundation

/// The statements of a batch request (``SQLBatchDeleter``) in a PostgreSQL session, inside
/// its transaction (``PostgresDialect``). The selection is kept in a
/// temporary table of the session (`og_batch_keys`, emptied at commit); other keys go as
/// `bigint[]` parameters, 5000 at a time. Deleting every row of whole entities reports the
/// rows it removed, for the change notification: other processes learn the keys, not a key
/// bound, since keys are reserved outside the saving transactions here, so a row with a key
/// below the bound may be committed after this delete and must not be taken for deleted.
struct PostgresBatchDeleteSQL: SQLBatchDeleteBackend {
    let store: PostgresStore
    let session: PostgresSession
    typealias Dialect = PostgresDialect
    var layout: StoreLayout { store.layout }

    func ids(_ sql: String, _ arguments: [SQLValue]) throws -> [ObjectID] {
        try session.objectIDs(sql, arguments, layout: layout, store: store.identity)
    }

    /// The deleted keys come back as one row per entity, the keys joined into one text
    /// (`string_agg`): reading 10,000 one-key rows through the driver cost several times the
    /// `DELETE` itself (docs/performance.md, "Delete all").
    func deleteRows(_ table: String, _ whereClause: String) throws -> (count: Int, ids: [ObjectID]) {
        let sql = "WITH d AS (DELETE FROM \(table)" + whereClause + " RETURNING Z_PK, Z_ENT) "
            + "SELECT Z_ENT, string_agg(Z_PK::text, ',') FROM d GROUP BY Z_ENT"
        var ids: [ObjectID] = []
        try session.query(sql, []) { row in
            guard let number = row[0].integerValue, let entity = layout.entitiesByNumber[number],
                  let keys = row[1].textValue else { return }
            for key in keys.split(separator: ",") {
                guard let key = Int64(key) else {
                    throw StoreError(.corruptMetadata, url: store.url, "a deleted row of \(entity.name) came back with the key \(key), which is not a number")
                }
                ids.append(ObjectID(entity: entity, store: store.identity, primaryKey: key))
            }
        }
        return (ids.count, ids)
    }

    func keep(_ select: String, _ arguments: [SQLValue]) throws {
        try session.execute("CREATE TEMP TABLE IF NOT EXISTS og_batch_keys (pk bigint PRIMARY KEY) ON COMMIT DELETE ROWS")
        try session.execute("DELETE FROM \(Dialect.keptKeys)")
        try session.execute("INSERT INTO \(Dialect.keptKeys) " + select, arguments)
    }

    @discardableResult func run(_ sql: String, _ arguments: [SQLValue]) throws -> Int {
        try session.execute(sql, arguments)
    }

    func scalar(_ sql: String) throws -> SQLValue? {
        try session.scalar(sql)
    }

    func lastReservedKey(root: EntityDescription) throws -> Int64 {
        try store.reserve(0, root: root, session)
    }

    func readRows(_ sql: String, _ arguments: [SQLValue], into rows: inout [StoreRow]) throws {
        let codec = store.rowCodec
        try session.query(sql, arguments) { columns in
            if let row = codec.decode(columns) { rows.append(row) }
        }
    }
}
