import Foundation

/// What an existing store holds, read from the file itself: its entities (from
/// `Z_PRIMARYKEY`), every table's columns with their declared types, and its metadata. A
/// migration infers its mapping from this and the new model, so a store migrates whether or
/// not the model that wrote it is at hand.
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
