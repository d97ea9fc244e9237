import CSQLite
import Foundation

/// Reads rows of a SQLite table's select list into slot buffers, and binds slot values to
/// statements. Type-directed by the model: no dictionaries keyed by names, no boxing.
struct SQLiteRowCodec {
    let layout: StoreLayout
    let store: StoreIdentity

    typealias Row = StoreRow

    /// Decodes the current row of `statement`, whose columns are the table's select list
    /// starting at `offset`. Returns nil for a row whose `Z_ENT` is not in the model.
    @inline(__always)
    func decode(_ statement: SQLiteStatement, offset: Int32 = 0) -> Row? {
        let pk = statement.int64(offset)
        let number = Int(statement.int64(offset + 1))
        let byNumber = layout.entityByNumber
        guard number >= 0, number < byNumber.count, let entity = byNumber[number] else { return nil }
        let mapping = layout.mappings[entity.index]
        let template = mapping.readTemplate
        // A new buffer built in slot order: each stored slot from its column, the others from
        // the template (unloaded to-many, transient defaults). `reserveCapacity` allocates
        // through code specialized here, where a copy-on-write copy of the shared template or
        // `init(repeating:count:)` would look the storage type's metadata up at run time.
        let plan = mapping.readPlan      // one step per stored slot, in slot order
        var values = ContiguousArray<SlotValue>()
        values.reserveCapacity(template.count)
        var next = 0
        for slot in template.indices {
            guard next < plan.count, plan[next].slot == slot else {
                values.append(template[slot])
                continue
            }
            let step = plan[next]
            next += 1
            let column = offset + step.column
            if let destination = step.destination {
                let key = statement.int64(column)
                if key == 0 && statement.isNull(column) {
                    values.append(.null)
                } else {
                    values.append(.object(ObjectID(entity: concreteEntity(destination, step: step, statement: statement, offset: offset, byNumber: byNumber),
                                                   store: store, primaryKey: key)))
                }
            } else {
                values.append(Self.readUnlessNull(step.type, from: statement, at: column) ?? .null)
            }
        }
        return Row(id: ObjectID(entity: entity, store: store, primaryKey: pk), version: statement.int64(offset + 2), values: values)
    }

    /// The destination entity of a to-one: from its `Z<n>_` column when the destination
    /// has sub-entities, else the declared one.
    @inline(__always)
    private func concreteEntity(_ declared: EntityDescription, step: EntityMapping.ReadStep, statement: SQLiteStatement,
                                offset: Int32, byNumber: [EntityDescription?]) -> EntityDescription {
        guard step.entityColumn >= 0, !statement.isNull(offset + step.entityColumn) else { return declared }
        let number = Int(statement.int64(offset + step.entityColumn))
        // A number of an entity that is not the declared one or below it (a file changed by
        // another program) keeps the declared entity: the object must be of the declared class.
        guard number >= 0, number < byNumber.count, let concrete = byNumber[number], concrete.isKind(of: declared) else { return declared }
        return concrete
    }

    /// `row`, read from `table`; throws ``misplaced(_:table:url:)`` when its `Z_ENT` names an
    /// entity stored in another table.
    @inline(__always)
    func checked(_ row: Row, from table: TableMapping, url: URL?) throws -> Row {
        guard row.id.entity.isKind(of: table.root) else { throw misplaced(row, table: table.name, url: url) }
        return row
    }

    /// The error for `row`, read from `table`, whose `Z_ENT` names an entity stored in
    /// another table: decoding it as that entity would read the wrong columns.
    func misplaced(_ row: Row, table: String, url: URL?) -> StoreError {
        StoreError(.corruptRow, url: url, "the row Z_PK = \(row.id.key) of \(table) has Z_ENT = \(layout.numbers[row.id.entity.name] ?? -1), the number of \(row.id.entity.name), which is not stored in \(table): the file was changed by a program other than Core Data; restore it from a backup, or correct that row's Z_ENT")
    }

    /// The column's value, or nil for NULL. The type is asked only when the value could be
    /// NULL: `sqlite3_column_int64` and `_double` give 0 for NULL, `_text` a null pointer.
    @inline(__always)
    static func readUnlessNull(_ type: AttributeType, from statement: SQLiteStatement, at column: Int32) -> SlotValue? {
        switch type {
        case .integer16, .integer32, .integer64, .boolean:
            let value = statement.int64(column)
            return value == 0 && statement.isNull(column) ? nil : .int(value)
        case .double, .float, .date:
            let value = statement.double(column)
            return value == 0 && statement.isNull(column) ? nil : .double(value)
        case .string:
            return statement.textUnlessNull(column).map { .text($0) }
        default:
            return statement.isNull(column) ? nil : read(type, from: statement, at: column)
        }
    }

    @inline(__always)
    static func read(_ type: AttributeType, from statement: SQLiteStatement, at column: Int32) -> SlotValue {
        switch type {
        case .integer16, .integer32, .integer64, .boolean:
            return .int(statement.int64(column))
        case .double, .float, .date:
            return .double(statement.double(column))
        case .decimal:
            return .decimal(Decimal.fromStored(statement.double(column)))
        case .string:
            return .text(statement.text(column))
        case .uri:
            let text = statement.text(column)
            return URL(string: text).map { .url($0) } ?? .text(text)
        case .binary, .transformable:
            return .blob(statement.data(column))
        case .uuid:
            if statement.columnType(column) == SQLITE_TEXT { return UUID(uuidString: statement.text(column)).map { .uuid($0) } ?? .null }
            let data = statement.data(column)
            return data.count == 16 ? .uuid(UUID(blobData: data)) : .blob(data)
        }
    }

    /// Binds a slot value; object IDs bind their primary key (temporary ones through `keys`).
    @inline(__always)
    static func bind(_ value: SlotValue, to statement: SQLiteStatement, at index: Int32, keys: [ObjectID: Int64]) throws {
        switch value {
        case .null, .unloaded, .objects: try statement.bind(.null, at: index)
        case .int(let v): try statement.bindInt64(v, at: index)
        case .double(let v): try statement.bind(.real(v), at: index)
        case .text(let v): try statement.bind(.text(v), at: index)
        case .blob(let v): try statement.bind(.blob(v), at: index)
        case .uuid(let v): try statement.bind(.blob(v.blobData), at: index)
        case .decimal(let v): try statement.bind(.real(v.storedDouble), at: index)
        case .url(let v): try statement.bind(.text(v.absoluteString), at: index)
        case .object(let id): try statement.bindInt64(id.isTemporaryID ? keys[id]! : id.key, at: index)
        }
    }
}
