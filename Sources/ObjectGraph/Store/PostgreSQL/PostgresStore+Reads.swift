import Foundation

// The reads of ``PersistentStore`` in PostgreSQL: one statement each (one per chunk of keys),
// with the SQLite store's answers.
extension PostgresStore {
    var rowCodec: PostgresRowCodec { PostgresRowCodec(layout: layout, store: identity) }

    func fetchRows(_ query: StoreQuery, _ row: (StoreRow) throws -> Void) throws {
        let select = SQLSelect<PostgresDialect>(try answeringNULArguments(query), layout: layout)
        // Rows are decoded as they arrive; `row` is called after the statement finished, so a
        // caller that reads the store again from `row` never needs a second connection.
        var rows: [StoreRow] = []
        let (codec, entity) = (rowCodec, query.entity)
        let (sql, arguments) = select.rowsSQL
        try session { session in
            try session.query(sql, arguments) { columns in
                guard let decoded = codec.decode(columns) else { return }
                guard decoded.id.entity.isKind(of: entity) else { throw codec.misplaced(decoded, table: select.table, url: url) }
                rows.append(decoded)
            }
        }
        for decoded in rows { try row(decoded) }
    }

    func fetchObjectIDs(_ query: StoreQuery) throws -> [ObjectID] {
        let (sql, arguments) = SQLSelect<PostgresDialect>(try answeringNULArguments(query), layout: layout).sql("t.Z_PK, t.Z_ENT")
        return try session { try $0.objectIDs(sql, arguments, layout: layout, store: identity) }
    }

    func count(_ query: StoreQuery, excluding excluded: [Int64]) throws -> Int {
        let (sql, arguments) = SQLSelect<PostgresDialect>(try answeringNULArguments(query), layout: layout).countSQL(excluding: excluded)
        return try session { Int(try $0.scalar(sql, arguments)?.integerValue ?? 0) }
    }

    func rows(of ids: [ObjectID], _ row: (StoreRow) throws -> Void) throws {
        let codec = rowCodec
        var rows: [StoreRow] = []
        try session { session in
            for (table, sql, arguments) in layout.rowsSQL(of: ids, in: PostgresDialect.self) {
                try session.query(sql, arguments) { columns in
                    guard let decoded = codec.decode(columns) else { return }
                    rows.append(try codec.checked(decoded, from: table, url: url))
                }
            }
        }
        for decoded in rows { try row(decoded) }
    }

    func relatedRows(_ relationship: RelationshipDescription, owners: [Int64],
                     _ row: (_ owner: Int64, _ destination: StoreRow) throws -> Void) throws {
        guard let related = layout.relatedRowsSQL(relationship, owners: owners, in: PostgresDialect.self) else { return }
        let table = related.table
        let codec = rowCodec
        let width = table.columns.count + 3
        var rows: [(Int64, StoreRow)] = []
        try session { session in
            for (sql, arguments) in related.statements {
                try session.query(sql, arguments) { columns in
                    guard let decoded = codec.decode(columns), case .integer(let owner) = columns[width] else { return }
                    rows.append((owner, try codec.checked(decoded, from: table, url: url)))
                }
            }
        }
        for (owner, decoded) in rows { try row(owner, decoded) }
    }

    func aggregate(_ function: AggregateFunction, of path: BoundPath, kind: ValueKind, _ query: StoreQuery) throws -> SlotValue {
        let (sql, arguments) = SQLSelect<PostgresDialect>(try answeringNULArguments(query), layout: layout).aggregateSQL(function, of: path)
        var result: SlotValue = .null
        try session { session in
            try session.query(sql, arguments) { row in
                result = aggregateResult(function, type: path.attributeType, row[0], kind: kind, path: path)
            }
        }
        return result
    }

    /// A cell of an aggregate query, in the stored form of the result.
    func aggregateResult(_ function: AggregateFunction, type: AttributeType?, _ cell: SQLValue,
                         kind: ValueKind, path: BoundPath) -> SlotValue {
        if case .null = cell { return .null }
        switch function {
        case .count:
            if case .integer(let v) = cell { return .int(v) }
            return PostgresRowCodec.untyped(cell)
        case .sum where type == .decimal:
            guard case .text(let text) = cell, let value = Decimal(string: text) else { return PostgresRowCodec.untyped(cell) }
            return .decimal(value)
        case .average where type == .decimal:
            let parts = (cell.textValue ?? "").split(separator: " ")
            guard parts.count == 2, let sum = Decimal(string: String(parts[0])), let count = Decimal(string: String(parts[1])), count != 0 else {
                return PostgresRowCodec.untyped(cell)
            }
            return .decimal(sum / count)
        case .average:
            if case .integer(let v) = cell { return .double(Double(v)) }
            return PostgresRowCodec.untyped(cell)
        case .sum: return PostgresRowCodec.untyped(cell)
        case .min, .max: return slotValue(cell, kind: kind, path: path)
        }
    }

    func distinctValues(of path: BoundPath, kind: ValueKind, _ query: StoreQuery) throws -> [SlotValue] {
        let (sql, arguments) = SQLSelect<PostgresDialect>(try answeringNULArguments(query), layout: layout).distinctSQL(of: path)
        var values: [SlotValue] = []
        try session { session in
            try session.query(sql, arguments) { row in values.append(slotValue(row[0], kind: kind, path: path)) }
        }
        return values
    }

    /// A cell read as the stored form of what `path` ends at.
    func slotValue(_ cell: SQLValue, kind: ValueKind, path: BoundPath?) -> SlotValue {
        if case .null = cell { return .null }
        if let path {
            switch path.terminal {
            case .attribute(let attribute):
                if kind == ValueKind(attribute.attributeType) { return PostgresRowCodec.value(attribute.attributeType, cell) }
            case .toOne(let relationship):
                if case .integer(let key) = cell {
                    return .object(ObjectID(entity: relationship.destinationEntity, store: identity, primaryKey: key))
                }
            case .identity: break
            }
        }
        // A number computed from a Decimal column (`numeric`, which the driver reads as its text).
        if kind == .number, case .text(let text) = cell, let number = Double(text) { return .double(number) }
        return PostgresRowCodec.untyped(cell)
    }
}
