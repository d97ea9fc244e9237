import Foundation

// Dictionary fetches (columns, aggregates, GROUP BY, HAVING, DISTINCT) in PostgreSQL.
extension PostgresStore {
    func dictionaryRows(_ request: DictionaryQuery) throws -> [[SlotValue]] {
        let (sql, arguments) = try SQLSelect<PostgresDialect>.dictionarySQL(request, layout: layout)
        var rows: [[SlotValue]] = []
        try session { session in
            try session.query(sql, arguments) { cells in
                rows.append(request.row(
                    aggregate: { aggregateResult($2, $1.path.attributeType, cells[$0], kind: $1.kind, path: $1.path) },
                    value: { slotValue(cells[$0], kind: $1.kind, path: $1.path) }))
            }
        }
        return rows
    }
}
