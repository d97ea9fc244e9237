import Foundation

/// The statements of a batch request (``SQLBatchDeleter``) on the SQLite writer, inside the
/// write transaction (``SQLiteDialect``): the selection is kept in `temp.og_batch_keys`;
/// other keys are bound 500 at a time.
struct SQLiteBatchDeleteSQL: SQLBatchDeleteBackend {
    typealias Dialect = SQLiteDialect
    let store: SQLiteStore
    let connection: SQLiteConnection

    var layout: StoreLayout { store.layout }

    func ids(_ sql: String, _ arguments: [SQLValue]) throws -> [ObjectID] {
        try store.objectIDs(sql, arguments, on: connection)
    }

    @discardableResult func run(_ sql: String, _ arguments: [SQLValue]) throws -> Int {
        try connection.run(sql, arguments)
    }

    func scalar(_ sql: String) throws -> SQLValue? {
        try connection.scalar(sql)
    }

    func keep(_ select: String, _ arguments: [SQLValue]) throws {
        try connection.execute("CREATE TEMP TABLE IF NOT EXISTS og_batch_keys (pk INTEGER PRIMARY KEY)")
        try connection.run("DELETE FROM \(Dialect.keptKeys)")
        try connection.run("INSERT INTO \(Dialect.keptKeys) " + select, arguments)
    }

    func lastReservedKey(root: EntityDescription) throws -> Int64 {
        try connection.reservePrimaryKeys(0, root: root, layout: store.layout)
    }

    func deleteRows(_ table: String, _ whereClause: String) throws -> (count: Int, ids: [ObjectID]) {
        (try connection.run("DELETE FROM \(table)" + whereClause), [])
    }

    func readRows(_ sql: String, _ arguments: [SQLValue], into rows: inout [StoreRow]) throws {
        let codec = store.rowCodec
        try connection.query(sql, arguments) { statement in
            if let row = codec.decode(statement) { rows.append(row) }
        }
    }
}
