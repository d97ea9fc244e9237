import Foundation

// Core Data's persistent-history tables (HistorySchema) in a PostgreSQL store's schema, with
// the column types the entity tables get (columnType), created on first use with
// `options: [.persistentHistory]`.
extension PostgresSchema {
    /// The statements creating the history tables and their indexes where missing.
    static var historyCreateStatements: [String] {
        var statements = HistorySchema.tables.map { table in
            let columns = ["Z_PK bigint PRIMARY KEY", "Z_ENT bigint", "Z_OPT bigint"] + table.columns.map { "\($0.name) \(columnType($0.type))" }
            return "CREATE TABLE IF NOT EXISTS \(table.name) ( \(columns.joined(separator: ", ")) )"
        }
        for index in HistorySchema.indexes {
            statements.append("CREATE \(index.unique ? "UNIQUE " : "")INDEX IF NOT EXISTS \(index.name) ON \(index.table) (\(index.column))")
        }
        return statements
    }

    /// Creates the history tables of `schema` and their `Z_PRIMARYKEY` rows where missing, in
    /// the transaction of `session`, under the lock that keeps two openers from creating
    /// the schema at once (see ``open(driver:readOnly:)``).
    static func createHistoryTables(_ session: PostgresSession, schema: String) throws {
        try session.execute("SELECT pg_advisory_xact_lock(hashtext(?))", [.text("managedrecord.schema.\(schema)")])
        for statement in historyCreateStatements { try session.executeStep(statement) }
        for row in HistorySchema.numbering {
            try session.execute("INSERT INTO Z_PRIMARYKEY (Z_ENT, Z_NAME, Z_SUPER, Z_MAX) VALUES (?, ?, 0, 0) ON CONFLICT (Z_ENT) DO NOTHING",
                                [.integer(row.number), .text(row.name)])
        }
    }
}
