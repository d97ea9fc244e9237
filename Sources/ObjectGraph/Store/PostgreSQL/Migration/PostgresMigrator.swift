import Foundation

/// Lightweight and staged migration of a PostgreSQL store, with the same inference, chain and
/// errors as a SQLite store's (``MigrationPlan``, ``MigrationChain``, ``MigrationError``),
/// using PostgreSQL's transactional DDL instead of a copy of a file:
///
/// - Each move of the chain (a stage, or a lightweight migration through one or more
///   versions) is one transaction: the rows are copied with `INSERT ... SELECT` into the new
///   version's tables in a new schema, the old schema is dropped and the new one renamed to
///   the store's name, and `Z_METADATA` records the new version. A failure or a killed
///   process rolls the transaction back: the schema is wholly at the version before the move.
/// - The whole migration holds the schema's advisory lock (the one ``PostgresSchema`` opens
///   under): a transaction-level lock for each move, and a session-level one from the first
///   move to the last so that no other process slips in between two moves. Another process
///   opening the schema meanwhile waits at the lock, then reads the metadata again, finds
///   the schema migrated and opens it: nothing is migrated twice.
/// - A custom stage's handlers get contexts on the store in the same transaction (their
///   saves are savepoints of it, see ``PostgresStageDriver``): `willMigrate` on the schema at
///   the source version, `didMigrate` on the new schema and, read-only, on the old one.
///
/// No other connection may use the store while it migrates (as for SQLite): a process with
/// the store open at the old version sees the new tables once the migration commits.
struct PostgresMigrator {
    /// The stages of a staged migration; nil for a lightweight migration.
    var stagedMigration: StagedMigrationManager?
    /// Drop entities and properties the model no longer has, with their values.
    var allowsDroppingData = false
    var progress: MigrationProgressHandler?
    /// Rows per `INSERT ... SELECT` range (by key).
    var chunkSize: Int64 = 10_000

    /// Migrates the schema `schema` to `model` when its metadata names another version. The
    /// caller's transaction on `session` holds the schema's transaction-level advisory lock;
    /// the migration commits each move and leaves a transaction open (holding the lock again)
    /// for the caller to open the schema in.
    func migrate(_ session: PostgresSession, schema: String, model: ManagedObjectModel, url: URL?, location: URL?) throws {
        let run = PostgresMigrationRun(migrator: self, session: session, schema: schema, url: url ?? URL(string: "postgres:")!,
                                       storeURL: location)
        try session.execute("SELECT pg_advisory_lock(hashtext(?))", [.text(PostgresSchema.lockKey(schema))])
        do {
            try run.migrate(to: model)
            try session.execute("SELECT pg_advisory_unlock(hashtext(?))", [.text(PostgresSchema.lockKey(schema))])
        } catch {
            _ = try? session.execute("ROLLBACK")
            _ = try? session.execute("SELECT pg_advisory_unlock(hashtext(?))", [.text(PostgresSchema.lockKey(schema))])
            throw error
        }
    }
}

/// One migration of one schema (see ``PostgresMigrator``).
struct PostgresMigrationRun {
    let migrator: PostgresMigrator
    let session: PostgresSession
    let schema: String
    /// The store, for errors.
    let url: URL
    /// The store's URL without a password, for the stage contexts' stores.
    let storeURL: URL?

    func migrate(to model: ManagedObjectModel) throws {
        let chain = MigrationChain(model: model, staged: migrator.stagedMigration)
        let stages = chain.stages
        var done = Set<Int>()
        // Each move changes the version once; a chain never needs more moves than this.
        for move in 0...(2 * stages.count + 1) {
            try session.execute("SET LOCAL search_path TO \(schema)")
            let hashes = try readMetadata().versionHashes
            if model.matchesStoreVersionHashes(hashes) { return }
            // Before the first move: the stages must lead the store to the model.
            if move == 0 { try chain.validate(storeVersionHashes: hashes, url: url) }
            let rows: Int
            switch chain.nextMove(from: hashes, done: done) {
            case .stage(let index):
                done.insert(index)
                let stage = stages[index]
                if stage.isCustom {
                    rows = try runCustomStage(stage)
                } else {
                    rows = try migrateLightweight(steps: [stage.destinationModel], writtenWith: stage.sourceModel, declared: true)
                }
            case .lightweight(let steps, let writtenWith, let declared):
                rows = try migrateLightweight(steps: steps, writtenWith: writtenWith, declared: declared)
            }
            try commitMove()
            // As for a file: the end of a move is reported once it is in place (committed).
            migrator.progress?(MigrationProgress(completedRows: rows, totalRows: rows, entity: nil))
        }
        throw MigrationError(.notInferable, url: url, "the migration stages do not lead the store to the model: after every stage that starts from the store's version, it is still not at the model's version; check each stage's source and destination models")
    }

    /// Commits one move and begins the next transaction, holding the schema's lock again.
    private func commitMove() throws {
        try session.execute("COMMIT")
        try session.execute("BEGIN")
        try session.execute("SELECT pg_advisory_xact_lock(hashtext(?))", [.text(PostgresSchema.lockKey(schema))])
    }

    /// The metadata of the schema on the search path.
    func readMetadata() throws -> StoreMetadata {
        guard let row = try session.rows("SELECT Z_UUID, Z_PLIST FROM Z_METADATA ORDER BY Z_VERSION LIMIT 1").first,
              case .text(let uuid) = row[0], case .blob(let plist) = row[1] else {
            throw MigrationError(.writeFailed, url: url, "Z_METADATA of the schema \(schema) has no readable row, so the store cannot be migrated")
        }
        return try StoreMetadata(uuid: uuid, plist: plist)
    }

    /// Migrates the schema through `steps` (each into a new schema that replaces it); returns
    /// the rows the last step copied.
    private func migrateLightweight(steps: [ManagedObjectModel], writtenWith: ManagedObjectModel?, declared: Bool) throws -> Int {
        var rows = 0
        for (index, model) in steps.enumerated() {
            let refusing = index == 0 && !migrator.allowsDroppingData && !declared
            let target: String
            (target, rows) = try copy(to: model, writtenWith: index == 0 ? writtenWith : steps[index - 1], refusingDrops: refusing)
            try replace(with: target)
        }
        return rows
    }

    /// Runs a custom stage: `willMigrate` on the schema, the lightweight step into a new
    /// schema, `didMigrate` on both, then the new schema replaces the old. Returns the rows the
    /// lightweight step copied.
    private func runCustomStage(_ stage: MigrationStage) throws -> Int {
        if let willMigrate = stage.willMigrate {
            try withStageContext(schema: schema, model: stage.sourceModel, readOnly: false) { try willMigrate($0) }
        }
        if stage.sourceModel.versionHash == stage.destinationModel.versionHash {
            if let didMigrate = stage.didMigrate {
                try withStageContext(schema: schema, model: stage.sourceModel, readOnly: true) { source in
                    try withStageContext(schema: schema, model: stage.destinationModel, readOnly: false) { try didMigrate($0, source) }
                }
            }
            return 0
        }
        try session.execute("SET LOCAL search_path TO \(schema)")
        let (target, rows) = try copy(to: stage.destinationModel, writtenWith: stage.sourceModel, refusingDrops: false)
        if let didMigrate = stage.didMigrate {
            try withStageContext(schema: schema, model: stage.sourceModel, readOnly: true) { source in
                try withStageContext(schema: target, model: stage.destinationModel, readOnly: false) { try didMigrate($0, source) }
            }
        }
        try replace(with: target)
        return rows
    }

    /// Runs `body` with a context on the store in `schema` at `model`'s version, in the
    /// migration's transaction, and saves what it changed.
    private func withStageContext(schema name: String, model: ManagedObjectModel, readOnly: Bool,
                                  _ body: (ManagedObjectContext) throws -> Void) throws {
        var components = storeURL.flatMap { URLComponents(url: $0, resolvingAgainstBaseURL: false) } ?? URLComponents(string: "postgres://migration")!
        components.queryItems = (components.queryItems ?? []).filter { $0.name != "schema" } + [URLQueryItem(name: "schema", value: name)]
        let driver = PostgresStageDriver(connection: session.connection)
        let location = DatabaseServerLocation(url: components.url!, connect: { _ in driver })
        let store = try PostgresStore(model: model, location: location, readOnly: readOnly)
        let coordinator = PersistentStoreCoordinator(model: model, store: store)
        defer { coordinator.close() }
        let context = ManagedObjectContext(coordinator: coordinator, concurrencyType: .confined, name: "migration stage")
        try body(context)
        if !readOnly && context.hasChanges { try context.save() }
        try session.execute("SET LOCAL search_path TO \(schema)")
    }

    /// Drops the store's schema and renames `target` (the migrated copy) to its name; the
    /// `unaccent` extension, when it lives in the old schema, moves to the new one first
    /// (the new schema's functions name it by the store's schema).
    private func replace(with target: String) throws {
        if case .text(let namespace)? = try session.scalar("SELECT n.nspname FROM pg_catalog.pg_extension e JOIN pg_catalog.pg_namespace n ON n.oid = e.extnamespace WHERE e.extname = 'unaccent'"),
           namespace == schema {
            try session.execute("ALTER EXTENSION unaccent SET SCHEMA \(target)")
        }
        try session.execute("DROP SCHEMA \(schema) CASCADE")
        try session.execute("ALTER SCHEMA \(target) RENAME TO \(schema)")
        try session.execute("SET LOCAL search_path TO \(schema)")
    }
}
