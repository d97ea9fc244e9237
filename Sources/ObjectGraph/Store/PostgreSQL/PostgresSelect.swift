import Foundation

/// A ``StoreQuery`` compiled for PostgreSQL: the root table aliased `t`, the `WHERE` clause
/// (entity condition and predicate) and `ORDER BY` terms, with every value a parameter.
/// NULL sorts first ascending and last descending, as in SQLite.
struct PostgresSelect {
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
        var compiler = PostgresPredicateCompiler(layout: layout)
        var conditions: [String] = []
        if let condition = mapping.entityCondition(includesSubentities: query.includesSubentities) { conditions.append(condition) }
        if let predicate = query.predicate, !query.admitsEveryRow { conditions.append("(" + compiler.condition(predicate) + ")") }
        orderBy = query.sortKeys.map { Self.sortTerm(compiler.expression($0.path), path: $0.path, comparison: $0.comparison, ascending: $0.ascending) }
            .joined(separator: ", ")
        whereClause = conditions.isEmpty ? "" : " WHERE " + conditions.joined(separator: " AND ")
        arguments = compiler.arguments
    }

    /// Whether `path` ends at a text attribute (the only values collations apply to).
    static func isText(_ path: BoundPath?) -> Bool {
        guard let path, case .attribute(let attribute) = path.terminal else { return false }
        return attribute.attributeType == .string || attribute.attributeType == .uri
    }

    /// One `ORDER BY` term: `expression` (of `path`, nil when unknown) in the order of
    /// `comparison`. Text is in code-point order (its columns are `COLLATE "C"`);
    /// case-insensitive order compares `og_fold`ed text (ties in no particular order, as
    /// with SQLite's OG_NOCASE); localized order uses ICU's root collation, numeric, ignoring
    /// case and diacritics (`og_localized`), close to Foundation's `localizedStandardCompare`.
    static func sortTerm(_ expression: String, path: BoundPath?, isText: Bool? = nil, comparison: SortKey.Comparison, ascending: Bool) -> String {
        var term = expression
        if isText ?? Self.isText(path) {
            switch comparison {
            case .binary: break
            case .caseInsensitive: term = "og_fold((\(expression))::text, 1)"
            case .localizedStandard: term = "(\(expression))::text COLLATE og_localized"
            }
        }
        return term + (ascending ? " ASC NULLS FIRST" : " DESC NULLS LAST")
    }

    /// `LIMIT ? OFFSET ?` with its two values appended to `arguments`, or nothing.
    static func pagingClause(limit: Int, offset: Int, arguments: inout [SQLValue]) -> String {
        guard limit > 0 || offset > 0 else { return "" }
        var clause = ""
        if limit > 0 {
            clause += " LIMIT ?"
            arguments.append(.integer(Int64(limit)))
        }
        clause += " OFFSET ?"
        arguments.append(.integer(Int64(max(0, offset))))
        return clause
    }
}
