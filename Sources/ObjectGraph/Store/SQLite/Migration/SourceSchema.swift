import Foundation

/// What an existing store holds, read from the file itself: its entities (from
/// `Z_PRIMARYKEY`), every table's columns with their declared types, its metadata, and the
/// model that wrote it when the store records it (stores written here do). A migration
/// infers its mapping from this and the new model, so a store migrates whether or not the
/// model that wrote it is at hand.
struct SourceSchema {
    struct Entity {
        let number: Int64
        /// The name `Z_PRIMARYKEY` gives it (`Z_NAME`).
        let name: String
        let parent: Int64
        let maxKey: Int64
        /// Its name in the model that wrote the store (the name its version hash is under),
        /// when that differs from ``name``: Core Data keeps an entity's old name in
        /// `Z_PRIMARYKEY` after renaming it by renaming identifier. Else ``name``.
        var modelName: String
    }

    let metadata: StoreMetadata
    let entitiesByNumber: [Int64: Entity]
    /// By ``Entity/name`` (`Z_NAME`).
    let entitiesByName: [String: Entity]
    /// By ``Entity/modelName``.
    let entitiesByModelName: [String: Entity]
    /// Declared column types (uppercased), by column name (uppercased), by table name.
    let columns: [String: [String: String]]
    /// The layout of the model the store records in its metadata, in the store's numbering,
    /// when that model is the one that wrote the store (its version hashes are the store's):
    /// it says exactly which column holds which entity's property. Nil for a store of Apple's
    /// Core Data, whose compiled model cannot be read here.
    let recordedLayout: StoreLayout?
    /// Whether the tables are named after ``Entity/modelName`` first (the model that wrote
    /// the store is known) rather than after `Z_NAME`.
    private let tablesFollowModelNames: Bool
    /// Which columns hold values in which entity's rows, read when first needed.
    let usage: ColumnUsage

    /// Reads the store `connection` opens. `model` is the model it migrates to, and
    /// `writtenWith` the model that wrote it when known (an earlier version of `model`):
    /// they tell, as opening the store does (``StoredNumbering``), which `Z_PRIMARYKEY` row
    /// is which entity when the rows keep names the entities no longer have.
    init(connection: any MigrationSource, metadata: StoreMetadata, model: ManagedObjectModel, writtenWith: ManagedObjectModel? = nil) throws {
        self.metadata = metadata
        var rows: [StoredEntity] = []
        var maxKeys: [Int64: Int64] = [:]
        for row in try connection.rows("SELECT Z_ENT, Z_NAME, Z_SUPER, Z_MAX FROM Z_PRIMARYKEY", []) {
            let number = row[0].plannedInteger
            rows.append(StoredEntity(number: number, name: row[1].plannedText, parent: row[2].plannedInteger))
            maxKeys[number] = row[3].plannedInteger
        }
        let recorded = Self.recordedModel(metadata: metadata)
        // The model that wrote the store numbers its rows exactly; without it, the model
        // migrated to matches them by name and renaming identifier, and by its numbering too
        // when it names the very entities the version hashes name.
        let writer = recorded ?? writtenWith.flatMap { $0.matchesStoreVersionHashes(metadata.versionHashes) ? $0 : nil }
        let namesTheStoredEntities = Set(model.entities.map(\.name)) == Set(metadata.versionHashes.keys)
        let numbering = StoredNumbering(model: writer ?? model, rows: rows, writtenWithModel: writer != nil || namesTheStoredEntities)
        let modelNames = Dictionary(numbering.numbers.map { ($0.value, $0.key) }, uniquingKeysWith: { first, _ in first })
        var byNumber: [Int64: Entity] = [:]
        for row in rows {
            byNumber[row.number] = Entity(number: row.number, name: row.name, parent: row.parent, maxKey: maxKeys[row.number] ?? 0,
                                          modelName: modelNames[row.number] ?? row.name)
        }
        entitiesByNumber = byNumber
        entitiesByName = Dictionary(byNumber.values.map { ($0.name, $0) }, uniquingKeysWith: { first, _ in first })
        entitiesByModelName = Dictionary(byNumber.values.map { ($0.modelName, $0) }, uniquingKeysWith: { first, _ in first })
        tablesFollowModelNames = writer != nil || namesTheStoredEntities
        columns = try connection.tableColumns()
        recordedLayout = recorded.flatMap { model in
            // Every entity of the recorded model numbered, or the layout would misplace columns.
            numbering.missing.isEmpty ? StoreLayout(model: model, numbers: numbering.numbers) : nil
        }
        usage = ColumnUsage(connection: connection, columns: columns)
    }

    /// The model recorded in `metadata` when it wrote the store (its version hashes are the
    /// store's); nil when there is none or it cannot be read.
    private static func recordedModel(metadata: StoreMetadata) -> ManagedObjectModel? {
        guard let model = metadata.writtenModel, model.matchesStoreVersionHashes(metadata.versionHashes) else { return nil }
        return model
    }

    /// `entity` and every entity below it in the store.
    func family(of entity: Entity) -> Set<Int64> {
        var result: Set<Int64> = [entity.number]
        var grew = true
        while grew {
            grew = false
            for candidate in entitiesByNumber.values where !result.contains(candidate.number) && result.contains(candidate.parent) {
                result.insert(candidate.number)
                grew = true
            }
        }
        return result
    }

    /// `entity`'s family and every entity above it: the rows that may hold values in the
    /// columns of `entity`'s properties.
    func lineage(of entity: Entity) -> Set<Int64> {
        var result = family(of: entity)
        var current = entity
        while current.parent != 0, let parent = entitiesByNumber[current.parent], result.insert(parent.number).inserted {
            current = parent
        }
        return result
    }

    /// The topmost entity above `entity` (itself for a root).
    func root(of entity: Entity) -> Entity {
        var current = entity
        var seen = Set<Int64>()
        while current.parent != 0, let parent = entitiesByNumber[current.parent], seen.insert(current.number).inserted {
            current = parent
        }
        return current
    }

    /// The table holding `entity`'s rows: `Z` + its root's uppercased name, the name in the
    /// model that wrote the store (Core Data names a renamed entity's table after its new
    /// name) or the `Z_PRIMARYKEY` one, whichever the store has; when the writing model is
    /// not known, the `Z_PRIMARYKEY` name first.
    func table(of entity: Entity) -> String {
        let root = root(of: entity)
        let names = tablesFollowModelNames ? [root.modelName, root.name] : [root.name, root.modelName]
        let tables = names.map { "Z" + $0.uppercased() }
        return tables.first { columns[$0] != nil } ?? tables[0]
    }

    /// The declared type of `column` in `table`, or nil when the table has no such column.
    func columnType(_ column: String, in table: String) -> String? {
        columns[table.uppercased()]?[column.uppercased()]
    }

    /// The store's entity for a model entity: by name (as the model that wrote the store
    /// names it), else by its renaming identifier (that name, else the `Z_PRIMARYKEY` one).
    func entity(for target: EntityDescription) -> Entity? {
        if let entity = entitiesByModelName[target.name] { return entity }
        guard let identifier = target.fileDetails.renamingIdentifier else { return nil }
        return entitiesByModelName[identifier] ?? entitiesByName[identifier]
    }
}
