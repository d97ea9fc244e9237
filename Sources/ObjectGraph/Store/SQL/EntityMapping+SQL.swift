import Foundation

// The SQL text of one entity's rows that the stores reuse: the condition selecting the
// entity's rows in its table, the UPDATE of a set of changed slots, and the locked re-read
// of a row in a save's conflict check. (Table and column names come from the layout,
// `EntityMapping.swift`; the statements that differ per store are in each store.)
extension EntityMapping {
    /// Persistent slots in `slots`, as the SET list of an UPDATE with the version check.
    func updateSQL(for slots: [Int]) -> String {
        var mask = [UInt64](repeating: 0, count: (columnBySlot.count + 63) / 64)
        for slot in slots { mask[slot / 64] |= 1 << UInt64(slot % 64) }
        if let sql = updateSQLCache[mask] { return sql }
        var assignments = ["Z_OPT = ?"]
        for slot in slots {
            guard let column = columnBySlot[slot] else { continue }
            assignments.append("\(column) = ?")
            if let entityColumn = entityColumnBySlot[slot] { assignments.append("\(entityColumn) = ?") }
        }
        let sql = "UPDATE \(table.name) SET \(assignments.joined(separator: ", ")) WHERE Z_PK = ? AND Z_OPT = ?"
        updateSQLCache[mask] = sql
        return sql
    }

    /// `WHERE` condition selecting this entity's rows (and its sub-entities' when asked), on
    /// the table aliased `alias` (`Z_ENT` unqualified when nil); nil when every row qualifies.
    func entityCondition(includesSubentities: Bool, alias: String? = "t") -> String? {
        if entity.superentity == nil && (includesSubentities || entity.subentities.isEmpty) { return nil }
        let numbers = includesSubentities ? familyNumbers : [entityNumber]
        let column = alias.map { "\($0).Z_ENT" } ?? "Z_ENT"
        return numbers.count == 1 ? "\(column) = \(numbers[0])" : "\(column) IN (\(numbers.map(String.init).joined(separator: ", ")))"
    }

    /// The row of the key bound to `?`, locked until the transaction ends (the dialect's row
    /// lock): a save resolving a conflict reads the row as it is now.
    func lockedRowSQL<Dialect: SQLDialect>(in _: Dialect.Type) -> String {
        "SELECT \(table.selectList) FROM \(table.name) t WHERE t.Z_PK = ?" + Dialect.rowLock("t")
    }

    /// The version (`Z_OPT`) of the row of the key bound to `?`, locked like ``lockedRowSQL(in:)``.
    func lockedVersionSQL<Dialect: SQLDialect>(in _: Dialect.Type) -> String {
        "SELECT t.Z_OPT FROM \(table.name) t WHERE t.Z_PK = ?" + Dialect.rowLock("t")
    }
}
