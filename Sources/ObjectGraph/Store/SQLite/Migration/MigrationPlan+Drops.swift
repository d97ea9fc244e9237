import Foundation

/// What the plan's statements read of the old store: columns, by the entity whose rows they
/// are read from, and join tables.
///
/// Not thread-safe: filled while one plan is built, on the thread that builds it.
final class SourceReads {
    /// ``key(_:_:_:)`` of every column read.
    var columns: Set<String> = []
    /// Join tables read (uppercased).
    var tables: Set<String> = []

    static func key(entity: Int64, table: String, column: String) -> String {
        "\(entity)|\(table.uppercased())|\(column.uppercased())"
    }
}

/// A query counting, on the migrated copy before its fix-ups, the links of one relationship
/// that the fix-ups would remove: references to rows that are no longer of the
/// relationship's destination (an entity moved out of the destination's hierarchy).
struct LossCheck {
    let entity: String
    let property: String
    /// `SELECT count(*) ...` on the new file.
    let sql: String
}

/// What a migration would drop: the old store's data that none of the plan's statements
/// reads. An entity whose rows have no entity in the model, an attribute or to-one whose
/// column holds values in rows of an entity that is kept but is not copied, a join table
/// with rows that is not copied. Empty entities, and columns where every row is nil, are not
/// data and are left out.
extension MigrationPlan {
    func droppedData() throws -> [MigrationError.DroppedData] {
        var dropped: [MigrationError.DroppedData] = []
        let kept = Set(sources.compactMap { $0?.number })
        for entity in source.entitiesByNumber.values.sorted(by: { $0.number < $1.number }) {
            let table = source.table(of: entity)
            guard source.columns[table] != nil else { continue }
            let rows = source.usage.rowCount(table: table, entity: entity.number)
            guard rows > 0 else { continue }
            guard kept.contains(entity.number) else {
                dropped.append(.init(entity: entity.name, property: nil, rowCount: rows))
                continue
            }
            let values = source.usage.valueCounts(table: table, entity: entity.number)
            for (column, count) in values.sorted(by: { $0.key < $1.key })
            where !Self.isBookkeeping(column) && !reads.columns.contains(SourceReads.key(entity: entity.number, table: table, column: column)) {
                dropped.append(.init(entity: entity.name, property: recordedName(ofColumn: column, in: entity) ?? column, rowCount: count))
            }
        }
        for (table, columns) in source.columns.sorted(by: { $0.key < $1.key }) where !reads.tables.contains(table) {
            guard let (number, name) = Self.splitNumbered(table),
                  columns.keys.filter({ Self.splitNumbered($0) != nil }).count == 2 else { continue }
            let rows = source.usage.rowCount(of: table)
            guard rows > 0 else { continue }
            let owner = source.entitiesByNumber[number]
            dropped.append(.init(entity: owner?.name ?? table, property: owner.flatMap { recordedName(ofRelationship: name, in: $0) } ?? name.lowercased(),
                                 rowCount: rows))
        }
        if let failure = source.usage.failure { throw MigrationError.planningFailed(failure, url: url) }
        return dropped
    }

    /// The links the fix-ups would remove, counted by `scalar` in the migrated store (after
    /// the copies): references to rows that are no longer of the relationship's destination
    /// (or that the old store did not hold at all). Rows of dropped entities were refused
    /// before the copy, so they are not among them.
    func lostLinks(scalar: (String) throws -> SQLValue?) throws -> [MigrationError.DroppedData] {
        var lost: [MigrationError.DroppedData] = []
        for check in lossChecks {
            guard case .integer(let count)? = try scalar(check.sql), count > 0 else { continue }
            lost.append(.init(entity: check.entity, property: check.property, rowCount: Int(count)))
        }
        return lost
    }

    /// Columns that only accompany another: the order of an ordered relationship
    /// (`Z_FOK_...`) and the entity of a to-one's destination (`Z<n>_...`).
    private static func isBookkeeping(_ column: String) -> Bool {
        if column.hasPrefix("Z_FOK_") { return true }
        let rest = column.dropFirst()
        let digits = rest.prefix { $0.isNumber }
        return column.hasPrefix("Z") && !digits.isEmpty && rest.dropFirst(digits.count).hasPrefix("_")
    }

    /// The name of the property whose column `column` is, from the model the store records.
    private func recordedName(ofColumn column: String, in entity: SourceSchema.Entity) -> String? {
        guard let layout = source.recordedLayout,
              let recorded = layout.model.entitiesByName[entity.modelName] else { return nil }
        let mapping = layout.mappings[recorded.index]
        return recorded.properties.first { mapping.columnBySlot[$0.slot]?.uppercased() == column.uppercased() }?.name
    }

    /// The name of `entity`'s relationship whose uppercased name is `name`, from the model the
    /// store records.
    private func recordedName(ofRelationship name: String, in entity: SourceSchema.Entity) -> String? {
        guard let recorded = source.recordedLayout?.model.entitiesByName[entity.modelName] else { return nil }
        return recorded.relationships.first { $0.name.uppercased() == name }?.name
    }
}
