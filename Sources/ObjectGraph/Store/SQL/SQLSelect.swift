import Foundation

/// A ``StoreQuery`` compiled in `Dialect`: the root table aliased `t`, the `WHERE` clause
/// (entity condition and predicate) and `ORDER BY` terms, with every value a parameter.
struct SQLSelect<Dialect: SQLDialect> {
    let query: StoreQuery
    let layout: StoreLayout
    /// The mapping of the query's entity, whose table is aliased `t`.
    let mapping: EntityMapping
    /// `" WHERE ..."` or empty, and the `ORDER BY` terms or empty.
    let whereClause, orderBy: String
    /// Parameters of the `WHERE` clause, then of the `ORDER BY` terms.
    let arguments: [SQLValue]

    init(_ query: StoreQuery, layout: StoreLayout) {
        self.query = query
        self.layout = layout
        mapping = layout.mappings[query.entity.index]
        var compiler = SQLPredicateCompiler<Dialect>(layout: layout)
        var conditions: [String] = []
        if let condition = mapping.entityCondition(includesSubentities: query.includesSubentities) { conditions.append(condition) }
        if let predicate = query.predicate, !query.admitsEveryRow { conditions.append("(" + compiler.condition(predicate) + ")") }
        orderBy = query.sortKeys.map { Dialect.sortTerm(compiler.expression($0.path), $0) }.joined(separator: ", ")
        whereClause = conditions.isEmpty ? "" : " WHERE " + conditions.joined(separator: " AND ")
        arguments = compiler.arguments
    }

    /// The root table's name.
    var table: String { mapping.table.name }

    /// `SELECT columns FROM table t WHERE ...`, with the query's order when `ordered` and its
    /// page when `paged`, and the parameters.
    func sql(_ columns: String, ordered: Bool = true, paged: Bool = true) -> (sql: String, arguments: [SQLValue]) {
        var sql = "SELECT \(columns) FROM \(table) t" + whereClause
        if ordered && !orderBy.isEmpty { sql += " ORDER BY " + orderBy }
        var arguments = arguments
        if paged { sql += Dialect.pagingClause(limit: query.limit, offset: query.offset, arguments: &arguments) }
        return (sql, arguments)
    }

    /// The statement reading the selected rows (the table's select list), ordered and paged.
    var rowsSQL: (sql: String, arguments: [SQLValue]) { sql(mapping.table.selectList) }

    /// `whereClause` and `condition`.
    private func adding(_ condition: String) -> String {
        (whereClause.isEmpty ? " WHERE " : " AND ") + condition
    }

    /// Counts the selected rows, but for the keys `excluded`.
    func countSQL(excluding excluded: [Int64]) -> (sql: String, arguments: [SQLValue]) {
        var (sql, arguments) = self.sql("COUNT(*)", ordered: false, paged: false)
        if !excluded.isEmpty {
            let exclusion = Dialect.keyExclusion("t.Z_PK", excluded)
            sql += adding(exclusion.sql)
            arguments += exclusion.arguments
        }
        return (sql, arguments)
    }

    /// `function` over the values at `path` of the selected rows (one row, one column).
    func aggregateSQL(_ function: AggregateFunction, of path: BoundPath) -> (sql: String, arguments: [SQLValue]) {
        var compiler = SQLPredicateCompiler<Dialect>(layout: layout)
        let expression = compiler.expression(path)
        let (sql, arguments) = self.sql(Dialect.aggregate(function, of: expression, type: path.attributeType, comparable: false), ordered: false, paged: false)
        return (sql, compiler.arguments + arguments)
    }

    /// The distinct values at `path` of the selected rows, nil left out, sorted, paged.
    /// Duplicates are removed first, then only the distinct values are sorted: SQLite runs
    /// `SELECT DISTINCT … ORDER BY` by sorting every selected row (2.2× the time of the
    /// DISTINCT alone on 100,000 rows of 320 names), a subquery keeps the DISTINCT a
    /// temporary B-tree of the values alone.
    func distinctSQL(of path: BoundPath) -> (sql: String, arguments: [SQLValue]) {
        var compiler = SQLPredicateCompiler<Dialect>(layout: layout)
        let expression = compiler.expression(path)
        var distinct = self.sql("DISTINCT \(expression) AS value", ordered: false, paged: false).sql
        var arguments = compiler.arguments + self.arguments
        if Dialect.namesSelectAliases {
            distinct += adding("value IS NOT NULL")
        } else {
            // The expression again, with its parameters.
            distinct += adding("\(expression) IS NOT NULL")
            arguments += compiler.arguments
        }
        var sql = "SELECT value FROM (\(distinct)) AS d ORDER BY value"
        sql += Dialect.pagingClause(limit: query.limit, offset: query.offset, arguments: &arguments)
        return (sql, arguments)
    }
}

extension StoreLayout {
    /// The statements reading the rows of `ids`, per root table and chunk of keys.
    func rowsSQL<Dialect: SQLDialect>(of ids: [ObjectID], in _: Dialect.Type) -> [(table: TableMapping, sql: String, arguments: [SQLValue])] {
        var statements: [(table: TableMapping, sql: String, arguments: [SQLValue])] = []
        for group in Dictionary(grouping: ids, by: { ObjectIdentifier($0.entity.root) }).values {
            let table = mappings[group[0].entity.root.index].table
            for (condition, arguments) in Dialect.keyConditions("t.Z_PK", group.map(\.key)) {
                statements.append((table, "SELECT \(table.selectList) FROM \(table.name) t WHERE \(condition)", arguments))
            }
        }
        return statements
    }

    /// The statements reading the destinations of `relationship` for `owners`, per chunk of
    /// owners, each row ending with its owner's key (in the order of owners, then of an
    /// ordered relationship), and the destination table; nil when no column names the owner.
    func relatedRowsSQL<Dialect: SQLDialect>(_ relationship: RelationshipDescription, owners: [Int64], in _: Dialect.Type)
        -> (table: TableMapping, statements: [(sql: String, arguments: [SQLValue])])? {
        let destination = mappings[relationship.destinationEntity.index]
        guard let source = relatedRowsSource(relationship, orderSuffix: Dialect.nullsFirst) else { return nil }
        let (from, ownerColumn, order) = source
        let statements = Dialect.keyConditions(ownerColumn, owners).map { condition, arguments in
            ("SELECT \(destination.table.selectList), \(ownerColumn) FROM \(from) WHERE \(condition) ORDER BY \(ownerColumn)\(order)", arguments)
        }
        return (destination.table, statements)
    }
}
