import Foundation

/// What an existing store holds, read from the file itself: its entities (from
/// `Z_PRIMARYKEY`), every table's columns with their declared types, its metadata, and the
/// model that wrote it when the store records it (stores written here do). A migration
/// infers its mapping from this and the new model, so a store migrates whether or not the
/// model that wrote it is at hand.
struct SourceSchema {
    struct Entity {
        let number: Int64
        let name: String
        let parent: Int64
        let maxKey: Int64
    }

    let metadata: StoreMetadata
    let entitiesByNumber: [Int64: Entity]
    let entitiesByName: [String: Entity]
    /// Declared column types (uppercased), by column name (uppercased), by table name.
    let columns: [String: [String: String]]
    /// The layout of the model the store records in its metadata, in the store's numbering,
    /// when that model is the one that wrote the store (its version hashes are the store's):
    /// it says exactly which column holds which entity's property. Nil for a store of Apple's
    /// Core Data, whose compiled model cannot be read here.
    let recordedLayout: StoreLayout?
    /// Which columns hold values in which entity's rows, read when first needed.
    let usage: ColumnUsage

    init(connection: SQLiteConnection, metadata: StoreMetadata) throws {
        self.metadata = metadata
        var byNumber: [Int64: Entity] = [:]
        try connection.query("SELECT Z_ENT, Z_NAME, Z_SUPER, Z_MAX FROM Z_PRIMARYKEY") { row in
            let entity = Entity(number: row.int64(0), name: row.text(1), parent: row.int64(2), maxKey: row.int64(3))
            byNumber[entity.number] = entity
        }
        entitiesByNumber = byNumber
        entitiesByName = Dictionary(byNumber.values.map { ($0.name, $0) }, uniquingKeysWith: { first, _ in first })
        var tables: [String] = []
        try connection.query("SELECT name FROM sqlite_master WHERE type = 'table'") { tables.append($0.text(0)) }
        var columns: [String: [String: String]] = [:]
        for table in tables {
            var types: [String: String] = [:]
            try connection.query("SELECT name, type FROM pragma_table_info(?)", [.text(table)]) { row in
                types[row.text(0).uppercased()] = row.text(1).uppercased()
            }
            columns[table.uppercased()] = types
        }
        self.columns = columns
        recordedLayout = Self.recordedLayout(metadata: metadata, numbers: byNumber)
        usage = ColumnUsage(connection: connection)
    }

    /// The layout of the model recorded in `metadata`, numbered as the store numbers its
    /// entities; nil when there is none, it cannot be read, or it did not write the store.
    private static func recordedLayout(metadata: StoreMetadata, numbers: [Int64: Entity]) -> StoreLayout? {
        guard let xml = metadata.modelContentsXML else { return nil }
        let file = URL(fileURLWithPath: "/recorded-model")
        guard let root = try? ModelFileElement.parse(Data(xml.utf8), file: file),
              let parsed = try? ModelFileReader(file: file).specifications(of: root),
              let model = try? ManagedObjectModel(specifications: parsed.entities, versionIdentifiers: []),
              model.matchesStoreVersionHashes(metadata.versionHashes) else { return nil }
        let byName = Dictionary(numbers.values.map { ($0.name, $0.number) }, uniquingKeysWith: { first, _ in first })
        var storeNumbers: [String: Int64] = [:]
        for entity in model.entities {
            guard let number = byName[entity.name] else { return nil }
            storeNumbers[entity.name] = number
        }
        return StoreLayout(model: model, numbers: storeNumbers)
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

    /// The table holding `entity`'s rows: `Z` + its root's uppercased name.
    func table(of entity: Entity) -> String { "Z" + root(of: entity).name.uppercased() }

    /// The declared type of `column` in `table`, or nil when the table has no such column.
    func columnType(_ column: String, in table: String) -> String? {
        columns[table.uppercased()]?[column.uppercased()]
    }

    /// The store's entity for a model entity: by name, else by its renaming identifier.
    func entity(for target: EntityDescription) -> Entity? {
        if let entity = entitiesByName[target.name] { return entity }
        return target.fileDetails.renamingIdentifier.flatMap { entitiesByName[$0] }
    }
}
