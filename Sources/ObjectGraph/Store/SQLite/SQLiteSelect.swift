import Foundation

/// A ``StoreQuery`` compiled for SQLite: the root table aliased `t`, the `WHERE` clause
/// (entity condition and predicate) and `ORDER BY` terms, with every value a parameter.
struct SQLiteSelect {
    let mapping: EntityMapping
    /// `" WHERE ..."` or empty.
    let whereClause: String
    /// The `ORDER BY` terms, or empty.
    let orderBy: String
    /// Parameters of the `WHERE` clause, then of the `ORDER BY` terms.
    let arguments: [SQLValue]
    let query: StoreQuery

    init(_ query: StoreQuery, layout: StoreLayout) {
        self.query = query
        mapping = layout.mappings[query.entity.index]
        var compiler = SQLitePredicateCompiler(layout: layout)
        var conditions: [String] = []
        if let condition = mapping.entityCondition(includesSubentities: query.includesSubentities) { conditions.append(condition) }
        if let predicate = query.predicate, !query.admitsEveryRow { conditions.append("(" + compiler.condition(predicate) + ")") }
        orderBy = query.sortKeys.map { compiler.expression($0.path) + Self.suffix($0) }.joined(separator: ", ")
        whereClause = conditions.isEmpty ? "" : " WHERE " + conditions.joined(separator: " AND ")
        arguments = compiler.arguments
    }

    /// The collation and direction that follow a sort key's expression.
    static func suffix(_ key: BoundSortKey) -> String {
        suffix(comparison: key.comparison, ascending: key.ascending)
    }

    static func suffix(comparison: SortKey.Comparison, ascending: Bool) -> String {
        var suffix = ""
        switch comparison {
        case .binary: break
        case .caseInsensitive: suffix += " COLLATE OG_NOCASE"
        case .localizedStandard: suffix += " COLLATE OG_LOCALIZED"
        }
        return suffix + (ascending ? " ASC" : " DESC")
    }

    /// `LIMIT ? OFFSET ?` with its two values appended to `arguments` (bound, so every page
    /// of a request shares one SQL text and one prepared statement), or nothing.
    static func pagingClause(limit: Int, offset: Int, arguments: inout [SQLValue]) -> String {
        guard limit > 0 || offset > 0 else { return "" }
        arguments += [.integer(Int64(limit > 0 ? limit : -1)), .integer(Int64(max(0, offset)))]
        return " LIMIT ? OFFSET ?"
    }
}
