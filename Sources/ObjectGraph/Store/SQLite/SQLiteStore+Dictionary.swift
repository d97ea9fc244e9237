import Foundation

extension SQLiteStore {
    func dictionaryRows(_ request: DictionaryQuery) throws -> [[SlotValue]] {
        let select = SQLiteSelect(request.query, layout: layout)
        let entity = request.query.entity
        var compiler = SQLitePredicateCompiler(layout: layout)
        var terms: [String] = []
        for (index, column) in request.columns.enumerated() {
            let value = compiler.expression(column.path)
            if let function = column.function {
                terms.append("\(function.sql(of: value, type: column.path.attributeType)) AS c\(index)")
            } else {
                terms.append("\(value) AS c\(index)")
            }
        }
        let groups = request.groupBy.map { compiler.expression($0) }
        var sql = "SELECT \(request.distinct ? "DISTINCT " : "")\(terms.joined(separator: ", ")) FROM \(select.table) t" + select.whereClause
        var arguments = compiler.arguments + select.arguments
        if !groups.isEmpty { sql += " GROUP BY " + groups.joined(separator: ", ") }
        if let having = request.having {
            var havingCompiler = SQLHavingCompiler(names: Dictionary(uniqueKeysWithValues: request.columns.enumerated().map { ($1.name, ("c\($0)", [])) }),
                                                 entity: entity, dialect: .sqlite)
            sql += " HAVING " + (try havingCompiler.compile(having))
            arguments += havingCompiler.arguments
        }
        if !request.order.isEmpty {
            var terms: [String] = []
            for order in request.order {
                switch order {
                case .column(let index, let key):
                    terms.append("c\(index)" + SQLiteSelect.suffix(comparison: key.comparison, ascending: key.ascending))
                case .path(let key):
                    var sortCompiler = SQLitePredicateCompiler(layout: layout)
                    terms.append(sortCompiler.expression(key.path) + SQLiteSelect.suffix(key))
                }
            }
            sql += " ORDER BY " + terms.joined(separator: ", ")
        }
        sql += SQLiteSelect.pagingClause(limit: request.query.limit, offset: request.query.offset, arguments: &arguments)

        var rows: [[SlotValue]] = []
        try read { connection in
            try connection.query(sql, arguments) { statement in
                var row: [SlotValue] = []
                row.reserveCapacity(request.columns.count)
                for (index, column) in request.columns.enumerated() {
                    let i = Int32(index)
                    if let function = column.function {
                        row.append(aggregateResult(function, column.path.attributeType, statement, i, kind: column.kind, path: column.path))
                    } else {
                        row.append(slotValue(statement, i, kind: column.kind, path: column.path))
                    }
                }
                rows.append(row)
            }
        }
        return rows
    }
}

