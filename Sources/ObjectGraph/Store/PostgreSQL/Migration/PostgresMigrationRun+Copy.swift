import Foundation

/// One lightweight step of a PostgreSQL migration: the plan inferred from the schema (as for
/// SQLite), then the new version's tables in a new schema, filled with the plan's
/// `INSERT ... SELECT` statements from the old one, in the migration's transaction.
extension PostgresMigrationRun {
    /// Writes the schema's rows migrated to `model` into a new schema and returns its name
    /// and the rows copied; the store's schema is left as it is. With `refusingDrops`, data
    /// the model has no place for throws ``MigrationError/Code/wouldDropData`` first.
    func copy(to model: ManagedObjectModel, writtenWith: ManagedObjectModel?, refusingDrops: Bool) throws -> (schema: String, rows: Int) {
        try session.execute("SET LOCAL search_path TO \(schema)")
        let metadata = try readMetadata()
        try SQLiteStore.refuseAnotherModel(storedEntities: Set(metadata.versionHashes.keys), model: model, url: url)
        let target = "og_migrating_" + UUID().uuidString.prefix(8).lowercased()
        let plan: MigrationPlan
        do {
            let source = try PostgresMigrationSource(session: session, sourceSchema: schema, targetSchema: target, metadata: metadata)
            plan = try MigrationPlan(source: SourceSchema(connection: source, metadata: metadata, model: model, writtenWith: writtenWith),
                                     model: model, connection: source, url: url)
            if refusingDrops { try StoreMigrator.refuseDropping(plan.droppedData(), url: url) }
        } catch let error as StoreError {
            throw MigrationError.planningFailed(error, url: url)
        }
        do {
            try write(plan, model: model, metadata: metadata, into: target, refusingDrops: refusingDrops)
        } catch let error as StoreError {
            throw failure(error, plan: plan)
        }
        return (target, plan.totalRows)
    }

    private func write(_ plan: MigrationPlan, model: ManagedObjectModel, metadata: StoreMetadata, into target: String, refusingDrops: Bool) throws {
        try session.execute("CREATE SCHEMA \(target)")
        try session.execute("SET LOCAL search_path TO \(target)")
        let layout = plan.layout
        for statement in PostgresSchema.createStatements(layout) { try session.execute(statement) }
        _ = try PostgresSchema(model: model, schema: target, url: url).createFunctions(session)
        try installConversions(plan.converter)
        var completed = 0
        let total = plan.totalRows
        for copy in plan.copies where copy.rowCount > 0 {
            var low = copy.minKey - 1
            while low < copy.maxKey {
                let high = min(copy.maxKey, low + migrator.chunkSize)
                completed += try run(copy.sql, [.integer(copy.sourceNumber), .integer(low), .integer(high)] + copy.arguments)
                migrator.progress?(MigrationProgress(completedRows: completed, totalRows: total, entity: copy.entity))
                low = high
            }
        }
        for statement in plan.joinCopies { try run(statement) }
        if refusingDrops { try StoreMigrator.refuseDropping(plan.lostLinks(scalar: { try session.scalar($0) }), url: url) }
        for statement in plan.fixUps { try run(statement) }
        try plan.writePrimaryKeys(in: target, scalar: { try session.scalar($0) }, run: { _ = try session.execute($0, $1) })
        try carryHistory(into: target, plan: plan)
        var migrated = metadata
        migrated.record(model)
        try session.execute("INSERT INTO \(target).Z_METADATA (Z_VERSION, Z_UUID, Z_PLIST) VALUES (1, ?, ?)",
                            [.text(migrated.uuid), .blob(try migrated.plist(storeType: "PostgreSQL"))])
    }

    /// Runs one of the plan's statements (already numbered `$1`, `$2`...).
    @discardableResult
    private func run(_ sql: String, _ parameters: [SQLValue] = []) throws -> Int {
        session.trace?(sql)
        return try session.connection.execute(sql, parameters)
    }

    /// The error for a failed write: a value the conversion functions refused (the same
    /// typed error as SQLite's), a unique index the rows break, or the server's error.
    private func failure(_ error: StoreError, plan: MigrationPlan) -> MigrationError {
        let server = error.underlying as? DatabaseServerError
        if let refusal = server.flatMap({ Self.conversionRefusal($0.message) }), refusal.target < plan.converter.targets.count {
            let failure = plan.converter.failure(refusal.code, target: refusal.target, key: refusal.key, value: refusal.value)
            return MigrationError(failure.code, url: url, entity: failure.entity, property: failure.property, failure.message)
        }
        if server?.sqlState == "23505" {
            return MigrationError(.writeFailed, url: url, "the store holds rows that break a uniqueness constraint of the new model (\(server?.message ?? "a unique index")); make the values unique, or drop the constraint, before migrating")
        }
        return MigrationError(.writeFailed, url: url, "writing the migrated tables in the schema \(schema) failed: \(error)")
    }
}
