import Foundation

// Dictionary fetches (columns, aggregates, GROUP BY, HAVING, DISTINCT) in PostgreSQL.
extension PostgresStore {
    func dictionaryRows(_ request: DictionaryQuery) throws -> [[SlotValue]] {
        var request = request
        request.query = try answeringNULArguments(request.query)
        let (sql, arguments) = try SQLSelect<PostgresDialect>.dictionarySQL(request, layout: layout)
        return try session { session in
            var rows: [[SlotValue]] = []
            try session.query(sql, arguments) { rows.append(dictionaryRow(request, cells: $0)) }
            return rows
        }
    }

    /// One row of a dictionary fetch, from its cells (column `i` in cell `i`).
    private func dictionaryRow(_ request: DictionaryQuery, cells: [SQLValue]) -> [SlotValue] {
        request.row(aggregate: { aggregateResult($2, type: $1.path.attributeType, cells[$0], kind: $1.kind, path: $1.path) },
                    value: { slotValue(cells[$0], kind: $1.kind, path: $1.path) })
    }
}
