import Foundation

/// The mapping a lightweight migration infers from a store's schema (``SourceSchema``) to a
/// model, as SQL that copies the rows into a new store of the model's layout: one
/// `INSERT ... SELECT` per entity (run in key ranges), one per join table, then fix-ups that
/// drop references to rows that did not survive and fill the entity columns of to-ones.
///
/// Inference follows Core Data: entities and properties match by name, else by their
/// renaming identifier (an `elementID` in a model file, `@Attribute(originalName:)` in
/// Swift); what only the store has is dropped; what only the model has is added, empty or
/// with its default. Entities are renumbered as the new model numbers them. Building the plan
/// reads the store but never writes; a change it cannot infer throws before anything is
/// written.
struct MigrationPlan {
    /// The rows of one entity, copied from their old table into their new one.
    struct EntityCopy {
        /// The target entity (for progress and errors).
        let entity: String
        let sourceNumber: Int64
        /// Quoted source table name.
        let sourceTable: String
        /// Bound: `?1` source `Z_ENT`, `?2` and `?3` the key range (exclusive, inclusive).
        let sql: String
        /// Bound from `?4` on: default values.
        let arguments: [SQLValue]
        let rowCount: Int
        let minKey: Int64
        let maxKey: Int64
    }

    let url: URL
    let source: SourceSchema
    let layout: StoreLayout
    let converter = MigrationValueConverter()
    /// How the statements are written for the store that runs them.
    let dialect: MigrationDialect
    private(set) var copies: [EntityCopy] = []
    /// `INSERT ... SELECT` statements filling join tables.
    var joinCopies: [String] = []
    /// Run after every copy.
    var fixUps: [String] = []
    /// Counts, on the new file before the fix-ups run, the links they would remove.
    var lossChecks: [LossCheck] = []
    /// Added to the keys of a source table's rows in a target table, by "source>target".
    private var offsets: [String: Int64] = [:]
    /// The source entity of each target entity, by entity index.
    let sources: [SourceSchema.Entity?]
    /// The largest key of each source table, by quoted-free name.
    private var sourceMaxKeys: [String: Int64] = [:]
    /// What the plan's statements read of the old store (to tell what it would drop).
    let reads = SourceReads()

    var totalRows: Int { copies.reduce(0) { $0 + $1.rowCount } }

    init(source: SourceSchema, model: ManagedObjectModel, connection: any MigrationSource, url: URL) throws {
        self.url = url
        dialect = connection.dialect
        self.source = source
        layout = StoreLayout(model: model, numbers: StoreLayout.defaultNumbers(for: model))
        sources = model.entities.map { source.entity(for: $0) }
        try assignOffsets(connection: connection)
        for entity in model.entities {
            guard let from = sources[entity.index] else { continue }
            copies.append(try entityCopy(entity, from: from, connection: connection))
        }
        try planJoinTables()
        planFixUps()
        if let failure = source.usage.failure { throw MigrationError.planningFailed(failure, url: url) }
    }

    // MARK: Keys

    /// `identifier` as a quoted SQL identifier: names read from the old store are untrusted.
    static func quote(_ identifier: String) -> String { "\"" + identifier.replacingOccurrences(of: "\"", with: "\"\"") + "\"" }

    /// `identifier`, a name of the old store, quoted for the plan's store.
    func quote(_ identifier: String) -> String { dialect.quote(identifier) }

    /// Keys stay as they are unless rows of several old tables end up in one new table (an
    /// entity that moved into another hierarchy); then each later table's keys are shifted
    /// past the earlier ones'.
    private mutating func assignOffsets(connection: any MigrationSource) throws {
        var next: [String: Int64] = [:]
        for entity in layout.model.entities {
            guard let from = sources[entity.index] else { continue }
            let sourceTable = source.table(of: from)
            let targetTable = layout.mappings[entity.index].table.name
            let key = sourceTable + ">" + targetTable
            guard offsets[key] == nil else { continue }
            if sourceMaxKeys[sourceTable] == nil {
                guard source.columns[sourceTable] != nil else {
                    throw MigrationError(.notInferable, url: url, entity: entity.name,
                                         "the store lists \(from.name) in Z_PRIMARYKEY but has no table \(sourceTable); the store is damaged or was not written by Core Data")
                }
                if case .integer(let maximum)? = try connection.scalar("SELECT max(Z_PK) FROM \(quote(sourceTable))") {
                    sourceMaxKeys[sourceTable] = max(maximum, source.root(of: from).maxKey)
                } else {
                    sourceMaxKeys[sourceTable] = source.root(of: from).maxKey
                }
            }
            offsets[key] = next[targetTable] ?? 0
            next[targetTable] = (next[targetTable] ?? 0) + sourceMaxKeys[sourceTable]!
        }
    }

    /// What to add to keys of `entity`'s old rows to get their new keys.
    func offset(of entity: EntityDescription) -> Int64 {
        guard let from = sources[entity.index] else { return 0 }
        return offsets[source.table(of: from) + ">" + layout.mappings[entity.index].table.name] ?? 0
    }

    func sourceEntity(of entity: EntityDescription) -> SourceSchema.Entity? { sources[entity.index] }

    /// The largest key handed out in a new table: the old tables' largest keys, shifted.
    func maxKey(ofTargetTable table: String) -> Int64 {
        var result: Int64 = 0
        for entity in layout.model.entities where layout.mappings[entity.index].table.name == table {
            guard let from = sources[entity.index] else { continue }
            let sourceTable = source.table(of: from)
            result = max(result, (sourceMaxKeys[sourceTable] ?? 0) + offset(of: entity))
        }
        return result
    }

    /// Fills the migrated store's `Z_PRIMARYKEY`, in `schema` (`main` for SQLite): a root
    /// entity's highest key is the larger of the keys the copies handed out and the keys its
    /// table holds; a sub-entity's row keeps 0, as Core Data writes it.
    func writePrimaryKeys(in schema: String, scalar: (String) throws -> SQLValue?,
                          run: (String, [SQLValue]) throws -> Void) throws {
        for row in layout.primaryKeyRows() {
            let table = layout.entitiesByNumber[row.number].map { layout.mappings[$0.index].table.name }
            var maximum: Int64 = 0
            if row.parent == 0, let table {
                maximum = maxKey(ofTargetTable: table)
                if case .integer(let stored)? = try scalar("SELECT max(Z_PK) FROM \(schema).\(table)") { maximum = max(maximum, stored) }
            }
            try run("INSERT INTO \(schema).Z_PRIMARYKEY (Z_ENT, Z_NAME, Z_SUPER, Z_MAX) VALUES (?, ?, ?, ?)",
                    [.integer(row.number), .text(row.name), .integer(row.parent), .integer(maximum)])
        }
    }

    // MARK: Entities

    /// The old column holding `property` in the rows of the old entity `from` (found by its
    /// renaming identifier, else its name; see ``SourceSchema/column(of:in:)``). It is
    /// recorded as read for `from`'s rows, or, for a statement that reads the rows of a
    /// whole family (relationship storage), for the old entities of `family` and every
    /// entity below it: the rows that are kept.
    func sourceColumn(for property: PropertyDescription, of from: SourceSchema.Entity, family: EntityDescription? = nil) -> String? {
        var names: [String] = []
        if let old = property.fileDetails.renamingIdentifier { names.append(old) }
        names.append(property.name)
        guard let column = source.column(of: names, in: from) else { return nil }
        let table = source.table(of: from)
        let readers = family.map { $0.selfAndDescendants.compactMap { sourceEntity(of: $0)?.number } } ?? [from.number]
        for number in readers { reads.columns.insert(SourceReads.key(entity: number, table: table, column: column)) }
        return column
    }

    private mutating func entityCopy(_ entity: EntityDescription, from: SourceSchema.Entity, connection: any MigrationSource) throws -> EntityCopy {
        let mapping = layout.mappings[entity.index]
        let sourceTable = source.table(of: from)
        var columns = ["Z_PK", "Z_ENT", "Z_OPT"]
        var expressions = ["s.Z_PK + \(offset(of: entity))", String(layout.numbers[entity.name]!), "s.Z_OPT"]
        var arguments: [SQLValue] = []
        for slot in mapping.columnBySlot.indices {
            guard let column = mapping.columnBySlot[slot] else { continue }
            columns.append(column)
            if let attribute = entity.attributeAtSlot[slot] {
                expressions.append(try attributeExpression(attribute, entity: entity, from: from, arguments: &arguments))
            } else if let relationship = entity.relationshipAtSlot[slot] {
                expressions.append(toOneExpression(relationship, from: from))
            }
        }
        // Order columns of ordered one-to-many relationships, where the store has them.
        for (column, _) in mapping.table.columns where column.hasPrefix("Z_FOK_") && !columns.contains(column) {
            guard source.columnType(column, in: sourceTable) != nil else { continue }
            reads.columns.insert(SourceReads.key(entity: from.number, table: sourceTable, column: column))
            columns.append(column)
            expressions.append("s.\(quote(column))")
        }
        let (p1, p2, p3) = (dialect.parameter(1), dialect.parameter(2), dialect.parameter(3))
        let sql = "INSERT INTO \(dialect.target).\(mapping.table.name) (\(columns.joined(separator: ", "))) SELECT \(expressions.joined(separator: ", ")) FROM \(dialect.source).\(quote(sourceTable)) s WHERE s.Z_ENT = \(p1) AND s.Z_PK > \(p2) AND s.Z_PK <= \(p3)"
        var count = 0
        var low: Int64 = 0
        var high: Int64 = 0
        if let row = try connection.rows("SELECT count(*), min(Z_PK), max(Z_PK) FROM \(quote(sourceTable)) WHERE Z_ENT = ?", [.integer(from.number)]).first {
            count = Int(row[0].plannedInteger)
            low = row[1].plannedInteger
            high = row[2].plannedInteger
        }
        return EntityCopy(entity: entity.name, sourceNumber: from.number, sourceTable: sourceTable, sql: sql, arguments: arguments,
                          rowCount: count, minKey: low, maxKey: high)
    }

    /// The SQL giving `attribute`'s new value from an old row `s` of the old entity `from`:
    /// the old column converted, or the default for an attribute the old rows do not have. As
    /// in Core Data, a default never replaces a nil the old row holds unless the attribute is
    /// now required; a required attribute without a default stops at a missing value.
    private func attributeExpression(_ attribute: AttributeDescription, entity: EntityDescription, from: SourceSchema.Entity,
                                     arguments: inout [SQLValue]) throws -> String {
        let sourceTable = source.table(of: from)
        let defaultValue = attribute.defaultValue.map { $0().storedValue } ?? .null
        var expression = "NULL"
        var converted = false
        var hasColumn = false
        if let old = sourceColumn(for: attribute, of: from), let declared = source.columnType(old, in: sourceTable) {
            hasColumn = true
            if MigrationValueConverter.isInferable(from: declared, to: attribute.attributeType) {
                expression = "s.\(quote(old))"
                converted = !MigrationValueConverter.copiesUnchanged(from: declared, to: attribute.attributeType)
            } else if !isGuessedAndEmpty(old, of: from) {
                throw MigrationError(.notInferable, url: url, entity: entity.name, property: attribute.name,
                                     "the store holds it as \(declared.isEmpty ? "an untyped column" : declared) (column \(old)) and the model makes it \(attribute.attributeType.rawValue), a type change Core Data's lightweight migration does not infer; keep the old type, or add a new attribute and copy the values yourself")
            }
        }
        if defaultValue != .null && (!hasColumn || !attribute.isOptional) {
            arguments.append(defaultValue)
            let parameter = dialect.parameter(arguments.count + 3)
            expression = hasColumn ? "COALESCE(\(converted ? wrap(expression, converting: attribute, of: entity, required: false) : expression), \(parameter))"
                                   : parameter
        } else if !attribute.isOptional {
            expression = wrap(expression, converting: attribute, of: entity, required: true)
        } else if converted {
            expression = wrap(expression, converting: attribute, of: entity, required: false)
        }
        return expression
    }

    /// Whether `column` was chosen without the store's model (a store of Apple's Core Data)
    /// and holds no value in `from`'s rows: it may be another entity's column of the same
    /// name, so a type it cannot convert from does not stop the migration (its values are
    /// all nil, and stay nil).
    private func isGuessedAndEmpty(_ column: String, of from: SourceSchema.Entity) -> Bool {
        guard source.recordedLayout == nil else { return false }
        let family = source.family(of: from)
        return source.usage.valueCount(column: column, table: source.table(of: from)) { family.contains($0) } == 0
    }

    private func wrap(_ expression: String, converting attribute: AttributeDescription, of entity: EntityDescription, required: Bool) -> String {
        let index = converter.add(.init(entity: entity.name, property: attribute.name, type: attribute.attributeType, isRequired: required))
        return dialect.convert(expression, "s.Z_PK", index, attribute.attributeType)
    }
}
