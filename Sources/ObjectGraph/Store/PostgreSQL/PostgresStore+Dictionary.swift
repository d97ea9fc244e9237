import Foundation

// Dictionary fetches (columns, aggregates, GROUP BY, HAVING, DISTINCT) in PostgreSQL.
extension PostgresStore {
    func dictionaryRows(_ request: DictionaryQuery) throws -> [[SlotValue]] {
        let select = PostgresSelect(request.query, layout: layout)
        let entity = request.query.entity
        var compiler = PostgresPredicateCompiler(layout: layout)
        var terms: [String] = []
        var expressions: [(sql: String, parameters: [SQLValue])] = []
        for (index, column) in request.columns.enumerated() {
            let mark = compiler.arguments.count
            let value = compiler.expression(column.path)
            expressions.append((value, Array(compiler.arguments[mark...])))
            if let function = column.function {
                terms.append("\(Self.aggregateSQL(function, of: value, type: column.path.attributeType)) AS c\(index)")
            } else {
                terms.append("\(value) AS c\(index)")
            }
        }
        let selectArguments = compiler.arguments
        var groupCompiler = PostgresPredicateCompiler(layout: layout)
        let groups = request.groupBy.map { groupCompiler.expression($0) }
        var sql = "SELECT \(request.distinct ? "DISTINCT " : "")\(terms.joined(separator: ", ")) FROM \(select.table) t" + select.whereClause
        var arguments = selectArguments + select.arguments
        if !groups.isEmpty {
            sql += " GROUP BY " + groups.joined(separator: ", ")
            arguments += groupCompiler.arguments
        }
        if let having = request.having {
            // PostgreSQL's HAVING cannot name the select list's aliases: the columns' SQL again.
            var names: [String: (sql: String, parameters: [SQLValue])] = [:]
            for (index, column) in request.columns.enumerated() {
                var sql = expressions[index].sql
                if let function = column.function {
                    // Compared as numbers: a Decimal's exact sum stays numeric here.
                    sql = Self.aggregateSQL(function, of: sql, type: column.path.attributeType, comparable: true)
                }
                names[column.name] = ("(\(sql))", expressions[index].parameters)
            }
            var havingCompiler = SQLHavingCompiler(names: names, entity: entity, dialect: .postgres)
            sql += " HAVING " + (try havingCompiler.compile(having))
            arguments += havingCompiler.arguments
        }
        if !request.order.isEmpty {
            var terms: [String] = []
            for order in request.order {
                switch order {
                case .column(let index, let key):
                    let column = request.columns[index]
                    let isText = column.function == nil && PostgresSelect.isText(column.path)
                    terms.append(PostgresSelect.sortTerm("c\(index)", path: nil, isText: isText, comparison: key.comparison, ascending: key.ascending))
                case .path(let key):
                    var sortCompiler = PostgresPredicateCompiler(layout: layout)
                    terms.append(PostgresSelect.sortTerm(sortCompiler.expression(key.path), path: key.path, comparison: key.comparison, ascending: key.ascending))
                    arguments += sortCompiler.arguments
                }
            }
            sql += " ORDER BY " + terms.joined(separator: ", ")
        }
        sql += PostgresSelect.pagingClause(limit: request.query.limit, offset: request.query.offset, arguments: &arguments)

        var rows: [[SlotValue]] = []
        try session { session in
            try session.query(sql, arguments) { cells in
                var row: [SlotValue] = []
                row.reserveCapacity(request.columns.count)
                for (index, column) in request.columns.enumerated() {
                    if let function = column.function {
                        row.append(aggregateResult(function, column.path.attributeType, cells[index], kind: column.kind, path: column.path))
                    } else {
                        row.append(slotValue(cells[index], kind: column.kind, path: column.path))
                    }
                }
                rows.append(row)
            }
        }
        return rows
    }
}
