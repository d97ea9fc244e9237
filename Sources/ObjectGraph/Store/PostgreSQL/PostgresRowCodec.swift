import Foundation

/// Reads rows of a table's select list (`Z_PK, Z_ENT, Z_OPT, <columns>`), as the driver
/// hands them over (``SQLValue``s), into stored rows: the PostgreSQL counterpart of
/// ``SQLiteRowCodec``, with the same values (dates and doubles as `.double`, Decimals exactly
/// from their `numeric` text, or rounded to 15 digits from the `double precision` column of
/// a schema written before and opened read-only, UUIDs from 16 bytes, booleans as 0 or 1).
struct PostgresRowCodec {
    let layout: StoreLayout
    let store: StoreIdentity

    /// The row in `columns` from `offset`; nil when its `Z_ENT` is not in the model.
    func decode(_ columns: [SQLValue], offset: Int = 0) -> StoreRow? {
        guard case .integer(let pk) = columns[offset], case .integer(let number) = columns[offset + 1] else { return nil }
        let byNumber = layout.entityByNumber
        guard number >= 0, number < byNumber.count, let entity = byNumber[Int(number)] else { return nil }
        let mapping = layout.mappings[entity.index]
        var values = mapping.readTemplate
        for step in mapping.readPlan {
            let cell = columns[offset + Int(step.column)]
            if let destination = step.destination {
                guard case .integer(let key) = cell else {
                    values[step.slot] = .null
                    continue
                }
                var concrete = destination
                if step.entityColumn >= 0, case .integer(let entityNumber) = columns[offset + Int(step.entityColumn)],
                   entityNumber >= 0, entityNumber < byNumber.count, let found = byNumber[Int(entityNumber)], found.isKind(of: destination) {
                    concrete = found
                }
                values[step.slot] = .object(ObjectID(entity: concrete, store: store, primaryKey: key))
            } else {
                values[step.slot] = Self.value(step.type, cell)
            }
        }
        var version: Int64 = 0
        if case .integer(let opt) = columns[offset + 2] { version = opt }
        return StoreRow(id: ObjectID(entity: entity, store: store, primaryKey: pk), version: version, values: values)
    }

    /// A column of an attribute of `type`, as a slot value.
    static func value(_ type: AttributeType, _ cell: SQLValue) -> SlotValue {
        switch (type, cell) {
        case (_, .null): return .null
        case (.integer16, .integer(let v)), (.integer32, .integer(let v)), (.integer64, .integer(let v)), (.boolean, .integer(let v)):
            return .int(v)
        case (.integer16, .real(let v)), (.integer32, .real(let v)), (.integer64, .real(let v)), (.boolean, .real(let v)):
            return Int64(exactly: v).map { .int($0) } ?? .double(v)
        case (.double, .real(let v)), (.float, .real(let v)), (.date, .real(let v)): return .double(v)
        case (.double, .integer(let v)), (.float, .integer(let v)), (.date, .integer(let v)): return .double(Double(v))
        case (.decimal, .real(let v)): return .decimal(Decimal.fromStored(v))
        case (.decimal, .integer(let v)): return .decimal(Decimal(v))
        case (.decimal, .text(let v)): return v == "NaN" ? .decimal(.nan) : Decimal(string: v).map { .decimal($0) } ?? .null
        case (.string, .text(let v)): return .text(v)
        case (.uri, .text(let v)): return URL(string: v).map { .url($0) } ?? .text(v)
        case (.binary, .blob(let v)), (.transformable, .blob(let v)): return .blob(v)
        case (.uuid, .blob(let v)): return v.count == 16 ? .uuid(UUID(blobData: v)) : .blob(v)
        case (.uuid, .text(let v)): return UUID(uuidString: v).map { .uuid($0) } ?? .null
        case (_, let other): return untyped(other)
        }
    }

    /// A cell as the slot value of its own kind.
    static func untyped(_ cell: SQLValue) -> SlotValue {
        switch cell {
        case .integer(let v): return .int(v)
        case .real(let v): return .double(v)
        case .text(let v): return .text(v)
        case .blob(let v): return .blob(v)
        case .null: return .null
        }
    }

    /// `row`, read from `table`; throws when its `Z_ENT` names an entity of another table.
    func checked(_ row: StoreRow, from table: TableMapping, url: URL?) throws -> StoreRow {
        guard row.id.entity.isKind(of: table.root) else { throw misplaced(row, table: table.name, url: url) }
        return row
    }

    func misplaced(_ row: StoreRow, table: String, url: URL?) -> StoreError {
        StoreError(.corruptRow, url: url, "the row Z_PK = \(row.id.key) of \(table) has Z_ENT = \(layout.numbers[row.id.entity.name] ?? -1), the number of \(row.id.entity.name), which is not stored in \(table): the database was changed by a program other than ManagedRecord; correct that row's Z_ENT")
    }
}
