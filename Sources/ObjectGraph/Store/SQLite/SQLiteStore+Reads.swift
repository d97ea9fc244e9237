import Foundation

// The reads of ``PersistentStore`` in SQLite: one statement each, on a reader connection.
extension SQLiteStore {
    var rowCodec: SQLiteRowCodec { SQLiteRowCodec(layout: layout, store: identity) }

    func fetchRows(_ query: StoreQuery, _ row: (StoreRow) throws -> Void) throws {
        let select = SQLSelect<SQLiteDialect>(query, layout: layout)
        let (sql, arguments) = select.rowsSQL
        let codec = rowCodec
        let entity = query.entity
        try read { connection in
            let statement = try connection.cachedStatement(sql)
            defer { statement.reset() }
            try statement.bind(arguments)
            while try statement.step() {
                guard let decoded = codec.decode(statement) else { continue }
                guard decoded.id.entity.isKind(of: entity) else { throw codec.misplaced(decoded, table: select.table, url: url) }
                try row(decoded)
            }
        }
    }

    func fetchObjectIDs(_ query: StoreQuery) throws -> [ObjectID] {
        let (sql, arguments) = SQLSelect<SQLiteDialect>(query, layout: layout).sql("t.Z_PK, t.Z_ENT")
        return try read { try objectIDs(sql, arguments, on: $0) }
    }

    /// The IDs in the first two columns (`Z_PK`, `Z_ENT`) of `sql`'s rows.
    func objectIDs(_ sql: String, _ arguments: [SQLValue], on connection: SQLiteConnection) throws -> [ObjectID] {
        var ids: [ObjectID] = []
        let (layout, store) = (layout, identity)
        try connection.query(sql, arguments) { statement in
            if let id = layout.objectID(key: statement.int64(0), entityNumber: statement.int64(1), store: store) { ids.append(id) }
        }
        return ids
    }

    func count(_ query: StoreQuery, excluding excluded: [Int64]) throws -> Int {
        let (sql, arguments) = SQLSelect<SQLiteDialect>(query, layout: layout).countSQL(excluding: excluded)
        return try read { Int(try $0.scalar(sql, arguments)?.integerValue ?? 0) }
    }

    func rows(of ids: [ObjectID], _ row: (StoreRow) throws -> Void) throws {
        let codec = rowCodec
        for (table, sql, arguments) in layout.rowsSQL(of: ids, in: SQLiteDialect.self) {
            try read { connection in
                try connection.query(sql, arguments) { statement in
                    guard let decoded = codec.decode(statement) else { return }
                    try row(try codec.checked(decoded, from: table, url: url))
                }
            }
        }
    }

    func relatedRows(_ relationship: RelationshipDescription, owners: [Int64],
                     _ row: (_ owner: Int64, _ destination: StoreRow) throws -> Void) throws {
        // SQLite reads `IN (?)` with one value as `= ?`.
        guard let related = layout.relatedRowsSQL(relationship, owners: owners, in: SQLiteDialect.self) else { return }
        let table = related.table
        let codec = rowCodec
        let width = Int32(table.columns.count + 3)
        for (sql, arguments) in related.statements {
            try read { connection in
                try connection.query(sql, arguments) { statement in
                    guard let decoded = codec.decode(statement) else { return }
                    try row(statement.int64(width), try codec.checked(decoded, from: table, url: url))
                }
            }
        }
    }

    func aggregate(_ function: AggregateFunction, of path: BoundPath, kind: ValueKind, _ query: StoreQuery) throws -> SlotValue {
        let (sql, arguments) = SQLSelect<SQLiteDialect>(query, layout: layout).aggregateSQL(function, of: path)
        var result: SlotValue = .null
        try read { connection in
            try connection.query(sql, arguments) { statement in
                result = aggregateResult(function, type: path.attributeType, statement, column: 0, kind: kind, path: path)
            }
        }
        return result
    }

    /// Column `column` of an aggregate query, in the stored form of the result.
    func aggregateResult(_ function: AggregateFunction, type: AttributeType?, _ statement: SQLiteStatement, column: Int32,
                         kind: ValueKind, path: BoundPath) -> SlotValue {
        if statement.isNull(column) { return .null }
        switch function {
        case .count: return .int(statement.int64(column))
        case .sum where type == .decimal, .average where type == .decimal: return .decimal(Self.exactDecimal(statement, column))
        // An average is a fraction whatever the attribute's type (AVG gives a REAL).
        case .average: return .double(statement.double(column))
        // SUM gives an INTEGER over integers, a REAL over anything else.
        case .sum: return statement.columnType(column) == 1 ? .int(statement.int64(column)) : .double(statement.double(column))
        case .min, .max: return slotValue(statement, column, kind: kind, path: path)
        }
    }

    /// The text `og_decimal_sum` / `og_decimal_avg` return, as the Decimal it spells.
    static func exactDecimal(_ statement: SQLiteStatement, _ column: Int32) -> Decimal {
        let text = statement.text(column)
        guard let value = Decimal(string: text) else {
            preconditionFailure("ManagedRecord: a Decimal aggregate returned '\(text)', which is not a number; report this as a bug")
        }
        return value
    }

    func distinctValues(of path: BoundPath, kind: ValueKind, _ query: StoreQuery) throws -> [SlotValue] {
        let (sql, arguments) = SQLSelect<SQLiteDialect>(query, layout: layout).distinctSQL(of: path)
        var values: [SlotValue] = []
        try read { connection in
            try connection.query(sql, arguments) { statement in
                values.append(slotValue(statement, 0, kind: kind, path: path))
            }
        }
        return values
    }

    /// A column read as the stored form of what `path` ends at.
    func slotValue(_ statement: SQLiteStatement, _ column: Int32, kind: ValueKind, path: BoundPath?) -> SlotValue {
        if statement.isNull(column) { return .null }
        if let path {
            switch path.terminal {
            case .attribute(let attribute):
                if kind == ValueKind(attribute.attributeType) { return SQLiteRowCodec.read(attribute.attributeType, from: statement, at: column) }
            case .toOne(let relationship):
                return .object(ObjectID(entity: relationship.destinationEntity, store: identity, primaryKey: statement.int64(column)))
            case .identity: break
            }
        }
        switch statement.value(column) {
        case .integer(let v): return .int(v)
        case .real(let v): return .double(v)
        case .text(let v): return .text(v)
        case .blob(let v): return .blob(v)
        case .null: return .null
        }
    }
}
