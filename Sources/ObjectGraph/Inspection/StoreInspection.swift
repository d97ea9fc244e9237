import Foundation

/// What a store file holds, checked against a model: SQLite's integrity check, the tables
/// and columns the model's layout needs, whether the store's version hashes are the model's
/// (or a migration is needed), and row counts per entity.
///
/// Made through a read-only connection: inspecting a store never changes its bytes. The
/// result is a plain value, safe to share between threads.
///
/// For example:
///
/// ```swift
/// let model = try ManagedObjectModel(storeURL: url)          // or from its .xcdatamodeld
/// let inspection = try StoreInspection(storeURL: url, model: model)
/// print(inspection.isHealthy, inspection.rowCounts["Employee"] ?? 0)
/// ```
public struct StoreInspection: Sendable {
    /// What `PRAGMA integrity_check` reported other than `ok` (empty for a sound file).
    public let integrityProblems: [String]
    /// Tables the model's layout needs that the store lacks (`ZEMPLOYEE`, `Z_2TAGS`).
    public let missingTables: [String]
    /// Columns the model's layout needs that the store's tables lack (`ZEMPLOYEE.ZAGE`).
    public let missingColumns: [String]
    /// Entities of the model the store's `Z_PRIMARYKEY` does not number.
    public let entitiesMissingFromStore: [String]
    /// Entities whose version hash in the store's metadata differs from the model's, or that
    /// the metadata lacks.
    public let entitiesWithOtherVersionHashes: [String]
    /// Whether opening the store with the model would migrate it (its version hashes are not
    /// the model's).
    public let needsMigration: Bool
    /// Whether the store keeps its own model in its metadata (stores written here do).
    public let describesOwnModel: Bool
    /// Whether the model kept in the store has the version hashes the store records: nil
    /// when the store keeps none.
    public let ownModelAgrees: Bool?
    /// The store's UUID (`Z_METADATA.Z_UUID`).
    public let storeUUID: String
    /// Rows of each entity of the model (its own rows, not its sub-entities'), by name; 0
    /// for an entity the store lacks.
    public let rowCounts: [String: Int]

    /// Whether nothing is wrong: a sound file whose layout and version hashes are the
    /// model's, and whose own model (when it keeps one) agrees with it.
    public var isHealthy: Bool {
        integrityProblems.isEmpty && missingTables.isEmpty && missingColumns.isEmpty && entitiesMissingFromStore.isEmpty
            && !needsMigration && ownModelAgrees != false
    }

    /// Inspects the store at `storeURL` against `model`, reading only.
    ///
    /// Cost: one pass of SQLite's integrity check over the whole file, and one `COUNT(*)`
    /// per entity.
    ///
    /// - Throws: ``StoreError`` when the file cannot be read or is not a Core Data store.
    public init(storeURL url: URL, model: ManagedObjectModel) throws {
        let metadata = try ManagedObjectModel.storeMetadata(at: url)
        let connection = try SQLiteFileAccess.openReadOnly(url).connection
        defer { connection.close() }
        do {
            var problems: [String] = []
            try connection.query("PRAGMA integrity_check") { row in
                let line = row.text(0)
                if line != "ok" { problems.append(line) }
            }
            integrityProblems = problems

            // Entities found as opening finds them (renamed ones by renaming identifier or number).
            let stored = try SQLiteStore.storedEntities(connection)
            let numbering = StoredNumbering(model: model, rows: stored, writtenWithModel: model.matchesStoreVersionHashes(metadata.versionHashes))
            let numbers = numbering.numbersWithNewEntities
            let missingEntities = numbering.missing.map(\.name)
            entitiesMissingFromStore = missingEntities

            let layout = StoreLayout(model: model, numbers: numbers)
            var tables: [String] = []
            var columns: [String] = []
            var counts: [String: Int] = [:]
            for table in layout.tables {
                let existing = try connection.columns(of: table.name)
                if existing.isEmpty {
                    tables.append(table.name)
                    continue
                }
                columns += table.columns.filter { !existing.contains($0.name) }.map { "\(table.name).\($0.name)" }
                for entity in table.root.selfAndDescendants where !missingEntities.contains(entity.name) {
                    let count = try connection.scalar("SELECT count(*) FROM \(table.name) WHERE Z_ENT = ?", [.integer(numbers[entity.name]!)])
                    if case .integer(let n)? = count { counts[entity.name] = Int(n) }
                }
            }
            for (join, _, _, _) in layout.joinTables where try !connection.tableExists(join.name) {
                tables.append(join.name)
            }
            for entity in model.entities where counts[entity.name] == nil { counts[entity.name] = 0 }
            missingTables = tables
            missingColumns = columns
            rowCounts = counts
        } catch let error as SQLiteError {
            throw StoreError(.notADatabase, url: url, "the store cannot be read to the end", underlying: error)
        }

        entitiesWithOtherVersionHashes = model.entities.map(\.name).filter { metadata.versionHashes[$0] != model.entityVersionHashesByName[$0] }
        needsMigration = !model.matchesStoreVersionHashes(metadata.versionHashes)
        storeUUID = metadata.uuid
        if metadata.modelContentsXML != nil {
            describesOwnModel = true
            let own = try? ManagedObjectModel(storeURL: url)
            ownModelAgrees = own.map { $0.matchesStoreVersionHashes(metadata.versionHashes) } ?? false
        } else {
            describesOwnModel = false
            ownModelAgrees = nil
        }
    }
}
