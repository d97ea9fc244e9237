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
        guard try !session.columnNames(of: "ATRANSACTION", in: schema).isEmpty else { return }
        try session.execute("SET LOCAL search_path TO \(target)")
        for statement in PostgresSchema.historyCreateStatements { try session.execute(statement) }
        for table in HistorySchema.tables.map(\.name) {
            let shared = try session.columnNames(of: table, in: schema).intersection(session.columnNames(of: table, in: target))
            guard !shared.isEmpty else { continue }
            let list = shared.sorted().joined(separator: ", ")
            try session.execute("INSERT INTO \(target).\(table) (\(list)) SELECT \(list) FROM \(schema).\(table)")
        }
        try session.execute("""
            INSERT INTO \(target).Z_PRIMARYKEY (Z_ENT, Z_NAME, Z_SUPER, Z_MAX)
            SELECT Z_ENT, Z_NAME, Z_SUPER, Z_MAX FROM \(schema).Z_PRIMARYKEY WHERE Z_ENT >= 16000
            ON CONFLICT (Z_ENT) DO UPDATE SET Z_MAX = EXCLUDED.Z_MAX
            """)
        let changeColumns = try session.columnNames(of: "ACHANGE", in: target)
        for statement in StoreMigrator.historyRenumbering(plan, table: "\(target).achange", hasChangedColumns: changeColumns.contains("ZCOLUMNS")) {
            try session.execute(statement)
        }
    }
}
