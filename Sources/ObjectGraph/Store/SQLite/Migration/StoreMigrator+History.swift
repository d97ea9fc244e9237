import Foundation

// Persistent history kept across a migration.
extension StoreMigrator {
    /// Carries the source store's persistent history into the migrated copy (attached as
    /// `src`): Core Data's `ATRANSACTIONSTRING`, `ATRANSACTION` and `ACHANGE` as the source
    /// defined them, their rows, and their `Z_PRIMARYKEY` rows, so tokens taken before the
    /// migration still read what came after them. Each change names its entity by the
    /// number the migrated store gives it (entities are renumbered as the new model numbers
    /// them); the changes of an entity the new model no longer has are dropped with it, and
    /// an update's `ZCOLUMNS` is cleared (its bits stand for the old entity's properties), so
    /// its changed properties read as not known. A store without history copies nothing.
    static func carryHistory(over connection: SQLiteConnection, plan: MigrationPlan) throws {
        let tables = ["ATRANSACTIONSTRING", "ATRANSACTION", "ACHANGE"]
        var definitions: [String] = []
        try connection.query("SELECT sql FROM src.sqlite_master WHERE tbl_name IN ('ATRANSACTIONSTRING', 'ATRANSACTION', 'ACHANGE') AND sql IS NOT NULL ORDER BY type = 'index', name") { row in
            definitions.append(row.text(0))
        }
        guard !definitions.isEmpty else { return }
        for definition in definitions { try connection.execute(definition) }
        for table in tables where try connection.scalar("SELECT count(*) FROM src.sqlite_master WHERE type = 'table' AND name = ?", [.text(table)]) != .integer(0) {
            _ = try connection.run("INSERT INTO main.\(table) SELECT * FROM src.\(table)")
        }
        _ = try connection.run("INSERT OR REPLACE INTO main.Z_PRIMARYKEY (Z_ENT, Z_NAME, Z_SUPER, Z_MAX) SELECT Z_ENT, Z_NAME, Z_SUPER, Z_MAX FROM src.Z_PRIMARYKEY WHERE Z_ENT >= 16000")
        guard try connection.scalar("SELECT count(*) FROM main.sqlite_master WHERE type = 'table' AND name = 'ACHANGE'") != .integer(0) else { return }
        let columns = try connection.columns(of: "ACHANGE")
        for statement in historyRenumbering(plan, table: "main.ACHANGE", hasChangedColumns: columns.contains("ZCOLUMNS")) {
            _ = try connection.run(statement)
        }
    }

    /// The statements that make the carried-over change rows of `table` (`ACHANGE` in the
    /// migrated store) name their entities by the migrated store's numbers: the changes of an
    /// entity the new model no longer has are deleted, the others renumbered, and an update's
    /// `ZCOLUMNS` (when `hasChangedColumns`) cleared. The same on both stores.
    static func historyRenumbering(_ plan: MigrationPlan, table: String, hasChangedColumns: Bool) -> [String] {
        var numbers: [String: Int64] = [:]
        for row in plan.layout.primaryKeyRows() { numbers[row.name] = row.number }
        let renumbered = plan.copies.compactMap { copy in numbers[copy.entity].map { (old: copy.sourceNumber, new: $0) } }
        let kept = renumbered.map { String($0.old) }.joined(separator: ", ")
        var statements = ["DELETE FROM \(table) WHERE ZENTITY NOT IN (\(kept.isEmpty ? "NULL" : kept))"]
        guard !renumbered.isEmpty else { return statements }
        let cases = renumbered.map { "WHEN \($0.old) THEN \($0.new)" }.joined(separator: " ")
        statements.append("UPDATE \(table) SET ZENTITY = CASE ZENTITY \(cases) END\(hasChangedColumns ? ", ZCOLUMNS = NULL" : "")")
        return statements
    }
}
