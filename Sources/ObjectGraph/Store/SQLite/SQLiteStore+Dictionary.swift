import Foundation

// Dictionary fetches (columns, aggregates, GROUP BY, HAVING, DISTINCT) in SQLite.
extension SQLiteStore {
    func dictionaryRows(_ request: DictionaryQuery) throws -> [[SlotValue]] {
        let (sql, arguments) = try SQLSelect<SQLiteDialect>.dictionarySQL(request, layout: layout)
        var rows: [[SlotValue]] = []
        try read { connection in
            try connection.query(sql, arguments) { statement in
                rows.append(request.row(
                    aggregate: { aggregateResult($2, type: $1.path.attributeType, statement, column: Int32($0), kind: $1.kind, path: $1.path) },
                    value: { slotValue(statement, Int32($0), kind: $1.kind, path: $1.path) }))
            }
        }
        return rows
    }
}

