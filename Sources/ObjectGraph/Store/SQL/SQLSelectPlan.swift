import Foundation

/// A ``StoreQuery`` compiled for a SQL store: the root table aliased `t`, the `WHERE` clause
/// (entity condition and predicate) and `ORDER BY` terms, with every value a parameter.
protocol SQLSelectPlan {
    var mapping: EntityMapping { get }
    /// `" WHERE ..."` or empty.
    var whereClause: String { get }
    /// The `ORDER BY` terms, or empty.
    var orderBy: String { get }
    /// Parameters of the `WHERE` clause, then of the `ORDER BY` terms.
    var arguments: [SQLValue] { get }
    var query: StoreQuery { get }
    /// The dialect's clause for a page (`limit` 0: no limit), its values appended to `arguments`.
    static func pagingClause(limit: Int, offset: Int, arguments: inout [SQLValue]) -> String
}

extension SQLSelectPlan {
    /// The root table's name.
    var table: String { mapping.table.name }

    /// `SELECT columns FROM table t WHERE ...`, with the query's order when `ordered` and its
    /// page when `paged`, and the parameters.
    func sql(_ columns: String, ordered: Bool = true, paged: Bool = true) -> (sql: String, arguments: [SQLValue]) {
        var sql = "SELECT \(columns) FROM \(table) t" + whereClause
        if ordered && !orderBy.isEmpty { sql += " ORDER BY " + orderBy }
        var arguments = arguments
        if paged { sql += Self.pagingClause(limit: query.limit, offset: query.offset, arguments: &arguments) }
        return (sql, arguments)
    }
}

extension SQLiteSelect: SQLSelectPlan {}
extension PostgresSelect: SQLSelectPlan {}
