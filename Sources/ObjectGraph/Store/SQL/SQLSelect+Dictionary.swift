import Foundation

// The statement of a dictionary fetch (columns, aggregates, GROUP BY, HAVING, DISTINCT).
extension SQLSelect {
    /// The statement reading `request`'s rows: column `i` aliased `c<i>`.
    static func dictionarySQL(_ request: DictionaryQuery, layout: StoreLayout) throws -> (sql: String, arguments: [SQLValue]) {
        let select = SQLSelect(request.query, layout: layout)
        var compiler = SQLPredicateCompiler<Dialect>(layout: layout)
        var terms: [String] = []
        var expressions: [(sql: String, parameters: [SQLValue])] = []
        for (index, column) in request.columns.enumerated() {
            let mark = compiler.arguments.count
            let value = compiler.expression(column.path)
            expressions.append((value, Array(compiler.arguments[mark...])))
            if let function = column.function {
                terms.append("\(Dialect.aggregate(function, of: value, type: column.path.attributeType, comparable: false)) AS c\(index)")
            } else {
                terms.append("\(value) AS c\(index)")
            }
        }
        var groupCompiler = SQLPredicateCompiler<Dialect>(layout: layout)
        let groups = request.groupBy.map { groupCompiler.expression($0) }
        var sql = "SELECT \(request.distinct ? "DISTINCT " : "")\(terms.joined(separator: ", ")) FROM \(select.table) t" + select.whereClause
        var arguments = compiler.arguments + select.arguments
        if !groups.isEmpty {
            sql += " GROUP BY " + groups.joined(separator: ", ")
            arguments += groupCompiler.arguments
        }
        // A column as HAVING compares it: aggregates as numbers. A Decimal's sum or average
        // is exact text in the select list: SQLite casts it to REAL, other dialects compute
        // the aggregate again (PostgreSQL: in `numeric`).
        func isDecimalText(_ index: Int) -> Bool {
            let column = request.columns[index]
            return column.path.attributeType == .decimal && (column.function == .sum || column.function == .average)
        }
        func comparable(_ index: Int) -> (sql: String, parameters: [SQLValue]) {
            let column = request.columns[index]
            if Dialect.namesSelectAliases { return (isDecimalText(index) ? "CAST(c\(index) AS REAL)" : "c\(index)", []) }
            var sql = expressions[index].sql
            if let function = column.function {
                sql = Dialect.aggregate(function, of: sql, type: column.path.attributeType, comparable: true)
            }
            return ("(\(sql))", expressions[index].parameters)
        }
        if let having = request.having {
            var names: [String: (sql: String, parameters: [SQLValue])] = [:]
            for (index, column) in request.columns.enumerated() { names[column.name] = comparable(index) }
            var havingCompiler = SQLHavingCompiler<Dialect>(names: names, entity: request.query.entity)
            sql += " HAVING " + (try havingCompiler.compile(having))
            arguments += havingCompiler.arguments
        }
        if !request.order.isEmpty {
            var terms: [String] = []
            for order in request.order {
                switch order {
                case .column(let index, let key):
                    let column = request.columns[index]
                    let isText = column.function == nil && column.path.endsAtText
                    // A Decimal's sum or average sorted as a number, not as its text (with
                    // DISTINCT, PostgreSQL sorts only by what is selected).
                    var term = (sql: "c\(index)", parameters: [SQLValue]())
                    if isDecimalText(index) && (Dialect.namesSelectAliases || !request.distinct) { term = comparable(index) }
                    terms.append(Dialect.sortTerm(term.sql, isText: isText, comparison: key.comparison, ascending: key.ascending))
                    arguments += term.parameters
                case .path(let key):
                    var sortCompiler = SQLPredicateCompiler<Dialect>(layout: layout)
                    terms.append(Dialect.sortTerm(sortCompiler.expression(key.path), key))
                    arguments += sortCompiler.arguments
                }
            }
            sql += " ORDER BY " + terms.joined(separator: ", ")
        }
        sql += Dialect.pagingClause(limit: request.query.limit, offset: request.query.offset, arguments: &arguments)
        return (sql, arguments)
    }
}

extension DictionaryQuery {
    /// One result row: each column's value, read by `aggregate` (for a column with a
    /// function) or `value`, given the column's index.
    func row(aggregate: (Int, Column, AggregateFunction) -> SlotValue, value: (Int, Column) -> SlotValue) -> [SlotValue] {
        columns.enumerated().map { index, column in
            column.function.map { aggregate(index, column, $0) } ?? value(index, column)
        }
    }
}
