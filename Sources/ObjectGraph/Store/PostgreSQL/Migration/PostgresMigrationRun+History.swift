import Foundation

// Persistent history kept across a PostgreSQL migration, as `StoreMigrator.carryHistory` keeps
// it for SQLite: a move writes the new version into a new schema and drops the old one, which
// would take the history tables with it.
extension PostgresMigrationRun {
    /// Carries the persistent history of the store's schema into `target` (the migrated
    /// schema being written, in the migration's transaction): Core Data's
    /// `ATRANSACTIONSTRING`, `ATRANSACTION` and `ACHANGE` with their rows and their
    /// `Z_PRIMARYKEY` rows, so tokens taken before the migration read what comes after it.
    /// Changes name their entities by the migrated schema's numbers; those of an entity the
    /// new model no longer has are dropped with it, and an update's changed properties are
    /// cleared (`StoreMigrator.historyRenumbering`). A schema without history copies nothing.
    func carryHistory(into target: String, plan: MigrationPlan) throws {
        guard try !columnNames(of: "atransaction", in: schema).isEmpty else { return }
        try session.execute("SET LOCAL search_path TO \(target)")
        for statement in PostgresSchema.historyCreateStatements { try session.execute(statement) }
        for table in HistorySchema.tables.map({ $0.name.lowercased() }) {
            let shared = try columnNames(of: table, in: schema).intersection(columnNames(of: table, in: target))
            guard !shared.isEmpty else { continue }
            let list = shared.sorted().joined(separator: ", ")
            try session.execute("INSERT INTO \(target).\(table) (\(list)) SELECT \(list) FROM \(schema).\(table)")
        }
        try session.execute("""
            INSERT INTO \(target).Z_PRIMARYKEY (Z_ENT, Z_NAME, Z_SUPER, Z_MAX)
            SELECT Z_ENT, Z_NAME, Z_SUPER, Z_MAX FROM \(schema).Z_PRIMARYKEY WHERE Z_ENT >= 16000
            ON CONFLICT (Z_ENT) DO UPDATE SET Z_MAX = EXCLUDED.Z_MAX
            """)
        let changeColumns = try columnNames(of: "achange", in: target)
        for statement in StoreMigrator.historyRenumbering(plan, table: "\(target).achange", hasChangedColumns: changeColumns.contains("zcolumns")) {
            try session.execute(statement)
        }
    }

    /// The (lower-case) column names of `table` in `schema`; empty when it has no such table.
    private func columnNames(of table: String, in schema: String) throws -> Set<String> {
        var names = Set<String>()
        try session.query("SELECT column_name FROM information_schema.columns WHERE table_schema = ? AND table_name = ?",
                          [.text(schema.lowercased()), .text(table)]) { row in
            if let name = row.first?.textValue { names.insert(name) }
        }
        return names
    }
}
