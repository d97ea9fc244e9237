import Foundation

/// How a ``PostgresStore``'s schema folds diacritics for `[d]` (chosen when it is created).
struct PostgresFunctions {
    /// `unaccent` (the extension, when the database let the store create it) or `translate`
    /// (a table of the Latin, Greek and Cyrillic letters Foundation folds).
    let diacriticFolding: String
}

/// Creates a store's schema in a PostgreSQL database, or checks an existing one against the
/// model: Core Data's layout (``StoreLayout``) with PostgreSQL's column types, in a schema
/// of its own, plus the SQL functions the predicate compiler calls.
///
/// Two processes opening the same new database at once do not both create it: the check
/// and the creation run in one transaction holding an advisory lock on the schema's name.
/// A schema written with another version of the model is migrated to it under the same lock
/// (``PostgresMigrator``), unless the store is opened read-only or without a migrator: then
/// it is refused. An existing schema is otherwise never altered (but for recording the
/// model's version hashes and unique indexes in a schema that lacks them).
struct PostgresSchema {
    let model: ManagedObjectModel
    let schema: String
    let url: URL?
    /// Migrates a schema of another model version; nil refuses it.
    var migrator: PostgresMigrator? = nil

    /// The name whose hash keys the schema's advisory lock.
    static func lockKey(_ schema: String) -> String { "managedrecord.schema.\(schema)" }

    struct Opened {
        var layout: StoreLayout
        var metadata: StoreMetadata
        var functions: PostgresFunctions
    }

    func open(driver: any DatabaseServerDriver, readOnly: Bool) throws -> Opened {
        try driver.withSession { connection in
            let session = PostgresSession(connection: connection, trace: nil)
            try session.execute("BEGIN")
            do {
                // Taken for the transaction: a second opener waits here until the first commits.
                try session.execute("SELECT pg_advisory_xact_lock(hashtext(?))", [.text(Self.lockKey(schema))])
                let exists = try session.scalar("SELECT to_regclass(?) IS NOT NULL", [.text("\(schema).z_metadata")]) == .integer(1)
                let opened: Opened
                if exists {
                    opened = try openExisting(session, readOnly: readOnly)
                } else {
                    if readOnly {
                        throw StoreError(.readOnly, url: url, "the schema \(schema) holds no store yet, and a store opened with options: [.readOnly] cannot create Core Data's tables; open it without .readOnly once")
                    }
                    opened = try create(session)
                }
                try session.execute("COMMIT")
                return opened
            } catch {
                _ = try? session.execute("ROLLBACK")
                throw error
            }
        }
    }

    // MARK: Creating

    private func create(_ session: PostgresSession) throws -> Opened {
        let foreign = try session.scalar("SELECT count(*) FROM pg_catalog.pg_tables WHERE schemaname = ?", [.text(schema)])
        if let foreign, foreign != .integer(0) {
            throw StoreError(.notACoreDataStore, url: url, "the schema \(schema) has tables but no Z_METADATA: it was not written by Core Data or ManagedRecord, so it is left untouched; choose another schema with ?schema=<name>")
        }
        try session.executeStep("CREATE SCHEMA IF NOT EXISTS \(schema)")
        try session.execute("SET LOCAL search_path TO \(schema)")
        let layout = StoreLayout(model: model, numbers: StoreLayout.defaultNumbers(for: model))
        let metadata = StoreMetadata(uuid: UUID().uuidString, model: model)
        for statement in Self.createStatements(layout) { try session.executeStep(statement) }
        let functions = try createFunctions(session)
        for row in layout.primaryKeyRows() {
            try session.executeStep("INSERT INTO Z_PRIMARYKEY (Z_ENT, Z_NAME, Z_SUPER, Z_MAX) VALUES (?, ?, ?, 0)",
                                [.integer(row.number), .text(row.name), .integer(row.parent)])
        }
        try session.executeStep("INSERT INTO Z_METADATA (Z_VERSION, Z_UUID, Z_PLIST) VALUES (1, ?, ?)",
                            [.text(metadata.uuid), .blob(try metadata.plist(storeType: "PostgreSQL"))])
        return Opened(layout: layout, metadata: metadata, functions: functions)
    }

    /// PostgreSQL's type for a SQLite column type of the layout. Decimals are `numeric`,
    /// which holds every finite Decimal exactly (schemas written before kept them as
    /// `double precision`: ``convertDecimalColumns(_:_:)``).
    static func columnType(_ sqliteType: String) -> String {
        switch sqliteType.uppercased() {
        case "INTEGER": return "bigint"
        case "DECIMAL": return "numeric"
        case "FLOAT", "REAL", "TIMESTAMP": return "double precision"
        case "BLOB": return "bytea"
        default: return "text COLLATE \"C\""     // VARCHAR: code-point order, as SQLite's BINARY
        }
    }

    /// The statements creating `layout`'s tables, indexes, join tables and unique indexes.
    static func createStatements(_ layout: StoreLayout) -> [String] {
        var statements: [String] = []
        for table in layout.tables {
            let columns = ["Z_PK bigint PRIMARY KEY", "Z_ENT bigint", "Z_OPT bigint"] + table.columns.map { "\($0.name) \(columnType($0.type))" }
            statements.append("CREATE TABLE \(table.name) ( \(columns.joined(separator: ", ")) )")
            statements += layout.indexStatements(for: table)
        }
        for (join, ownerColumn, memberColumn, orderColumns) in layout.joinTables {
            let columns = ["\(ownerColumn) bigint", "\(memberColumn) bigint"] + orderColumns.map { "\($0) bigint" }
            statements.append("CREATE TABLE IF NOT EXISTS \(join.name) ( \(columns.joined(separator: ", ")), PRIMARY KEY (\(ownerColumn), \(memberColumn)) )")
            statements.append("CREATE INDEX IF NOT EXISTS \(join.name)_\(memberColumn)_INDEX ON \(join.name) (\(memberColumn), \(ownerColumn))")
        }
        statements += uniqueIndexStatements(layout)
        statements.append("CREATE TABLE Z_PRIMARYKEY (Z_ENT bigint PRIMARY KEY, Z_NAME text, Z_SUPER bigint, Z_MAX bigint)")
        statements.append("CREATE TABLE Z_METADATA (Z_VERSION bigint PRIMARY KEY, Z_UUID varchar(255), Z_PLIST bytea)")
        statements.append("CREATE TABLE Z_MODELCACHE (Z_CONTENT bytea)")
        return statements
    }

    /// Core Data's unique index per uniqueness constraint (`IF NOT EXISTS`); text columns are
    /// already in code-point order, so without SQLite's `COLLATE BINARY`.
    static func uniqueIndexStatements(_ layout: StoreLayout) -> [String] {
        layout.uniqueIndexStatements().map { $0.replacingOccurrences(of: " COLLATE BINARY", with: "") }
    }

    // MARK: Opening

    /// Opens the schema with the model that wrote it: its version hashes (`Z_METADATA`'s
    /// plist, as in a SQLite store) must be the model's, or the schema is migrated to the
    /// model first (when there is a migrator and the store is not read-only). A schema whose metadata records no hashes opens when its tables and
    /// columns (with their types) fit the model; it then gets the model's unique indexes and
    /// hashes (unless opened read-only).
    private func openExisting(_ session: PostgresSession, readOnly: Bool) throws -> Opened {
        try session.execute("SET LOCAL search_path TO \(schema)")
        var found: StoreMetadata?
        var failure: Error?
        try PostgresSchemaStep.during("reading the store's metadata (Z_METADATA)") {
            try session.query("SELECT Z_UUID, Z_PLIST FROM Z_METADATA ORDER BY Z_VERSION LIMIT 1") { row in
                guard case .text(let uuid) = row[0], case .blob(let plist) = row[1] else { return }
                do { found = try StoreMetadata(uuid: uuid, plist: plist) } catch { failure = error }
            }
        }
        guard var metadata = found else {
            throw StoreError(.corruptMetadata, url: url, "Z_METADATA of the schema \(schema) has no readable row\(failure.map { ": \($0)" } ?? "")")
        }
        let recordsHashes = !metadata.versionHashes.isEmpty
        if recordsHashes && !model.matchesStoreVersionHashes(metadata.versionHashes) {
            if let migrator, !readOnly {
                try migrator.migrate(session, schema: schema, model: model, url: url, location: url)
                var migrated = self
                migrated.migrator = nil
                return try migrated.openExisting(session, readOnly: readOnly)
            }
            let why = readOnly ? "A store opened read-only is not migrated: open it without .readOnly to migrate it to the model"
                               : "This store was opened without migration, so it opens only with the model it was written with"
            throw StoreError(.incompatibleModel, url: url, "the store in the schema \(schema) was written with another version of the model: \(metadata.differences(from: model).prefix(8).joined(separator: "; ")). \(why); nothing was changed")
        }
        var rows: [StoredEntity] = []
        try PostgresSchemaStep.during("reading the store's entities (Z_PRIMARYKEY)") {
            try session.query("SELECT Z_ENT, Z_NAME, Z_SUPER FROM Z_PRIMARYKEY") { row in
                guard case .integer(let number) = row[0], case .text(let name) = row[1] else { return }
                var parent: Int64 = 0
                if case .integer(let value) = row[2] { parent = value }
                rows.append(StoredEntity(number: number, name: name, parent: parent))
            }
        }
        let numbering = StoredNumbering(model: model, rows: rows, writtenWithModel: recordsHashes)
        let numbers = numbering.numbers
        var problems: [String] = numbering.missing.map { "the entity \($0.name) has no table rows in the store (Z_PRIMARYKEY)" }
        for entity in model.entities where numbering.parents[entity.name] != nil {
            let expectedParent = entity.superentity.flatMap { numbers[$0.name] } ?? 0
            if numbering.parents[entity.name] != expectedParent { problems.append("\(entity.name) has another parent entity in the store") }
        }
        problems += numbering.unmatched.filter { !HistorySchema.isFrameworkEntity($0.number) }.map { "the store has the entity \($0.name), which the model lacks" }
        if problems.isEmpty {
            let layout = StoreLayout(model: model, numbers: numbers)
            if !readOnly { try convertDecimalColumns(layout, session) }
            problems += try missingColumns(layout, session)
            if problems.isEmpty {
                let folding = try session.scalar("SELECT obj_description(p.oid, 'pg_proc') FROM pg_catalog.pg_proc p JOIN pg_catalog.pg_namespace n ON n.oid = p.pronamespace WHERE n.nspname = ? AND p.proname = 'og_fold' LIMIT 1",
                                                 [.text(schema)])
                guard case .text(let comment)? = folding else {
                    throw StoreError(.incompatibleModel, url: url, "the schema \(schema) has Core Data's tables but not the functions ManagedRecord's PostgreSQL store creates (og_fold): it was written by other software; use another schema")
                }
                if !recordsHashes && !readOnly { try recordModel(layout, into: &metadata, over: session) }
                return Opened(layout: layout, metadata: metadata, functions: PostgresFunctions(diacriticFolding: comment))
            }
        }
        throw StoreError(.incompatibleModel, url: url, "the store in the schema \(schema) does not fit the model: \(problems.prefix(8).joined(separator: "; ")). Its metadata records no model version, so it cannot be migrated: it is opened only with a model of the same tables and columns; nothing was changed")
    }

    /// Makes a schema whose metadata records no version hashes (and whose tables fit the
    /// model) the model's: its unique indexes, then its hashes and model in `Z_METADATA`.
    private func recordModel(_ layout: StoreLayout, into metadata: inout StoreMetadata, over session: PostgresSession) throws {
        for statement in Self.uniqueIndexStatements(layout) {
            do {
                try session.executeStep(statement)
            } catch let error as StoreError where (error.underlying as? DatabaseServerError)?.sqlState == "23505" {
                throw StoreError(.incompatibleModel, url: url, "the schema \(schema) holds rows that break a uniqueness constraint of the model (\((error.underlying as? DatabaseServerError)?.message ?? "a unique index")), so the model does not fit it; nothing was changed", underlying: error.underlying)
            }
        }
        metadata.record(model)
        try session.executeStep("UPDATE Z_METADATA SET Z_PLIST = ?", [.blob(try metadata.plist(storeType: "PostgreSQL"))])
    }

    /// Converts the Decimal columns of a schema written before they were `numeric` (with
    /// `double precision` ones), once, in the opening transaction: each value becomes the
    /// `numeric` of its 15 significant digits (PostgreSQL's cast), the Decimal the store read
    /// from it before (`Decimal.fromStored`), so no value changes. A store opened read-only
    /// is read as it is.
    private func convertDecimalColumns(_ layout: StoreLayout, _ session: PostgresSession) throws {
        var decimalColumns: [String: Set<String>] = [:]
        for table in layout.tables {
            for column in table.columns where column.type.uppercased() == "DECIMAL" {
                decimalColumns[table.name.lowercased(), default: []].insert(column.name.lowercased())
            }
        }
        guard !decimalColumns.isEmpty else { return }
        var conversions: [(table: String, column: String)] = []
        try session.query("SELECT table_name, column_name FROM information_schema.columns WHERE table_schema = ? AND data_type = 'double precision'",
                          [.text(schema)]) { row in
            guard case .text(let table) = row[0], case .text(let column) = row[1],
                  decimalColumns[table.lowercased()]?.contains(column.lowercased()) == true else { return }
            conversions.append((table, column))
        }
        for (table, column) in conversions.sorted(by: { ($0.table, $0.column) < ($1.table, $1.column) }) {
            try session.execute("ALTER TABLE \(table) ALTER COLUMN \(column) TYPE numeric USING \(column)::numeric")
        }
    }

    /// The tables and columns the layout needs that the schema lacks, and the columns of
    /// another type than the layout's.
    private func missingColumns(_ layout: StoreLayout, _ session: PostgresSession) throws -> [String] {
        var existing: [String: [String: String]] = [:]
        try session.query("SELECT table_name, column_name, data_type FROM information_schema.columns WHERE table_schema = ?", [.text(schema)]) { row in
            guard case .text(let table) = row[0], case .text(let column) = row[1], case .text(let type) = row[2] else { return }
            existing[table.lowercased(), default: [:]][column.lowercased()] = type
        }
        var problems: [String] = []
        for table in layout.tables {
            guard let columns = existing[table.name.lowercased()] else {
                problems.append("the table \(table.name) is missing")
                continue
            }
            for column in ["Z_PK", "Z_ENT", "Z_OPT"] where columns[column.lowercased()] == nil {
                problems.append("the column \(table.name).\(column) is missing")
            }
            for column in table.columns {
                guard let type = columns[column.name.lowercased()] else {
                    problems.append("the column \(table.name).\(column.name) is missing")
                    continue
                }
                let expected = Self.columnType(column.type).components(separatedBy: " COLLATE").first!
                // A Decimal column of an older schema opened read-only (else converted on opening).
                let legacyDecimal = expected == "numeric" && type == "double precision"
                if type != expected && !legacyDecimal { problems.append("the column \(table.name).\(column.name) is \(type), the model needs \(expected)") }
            }
        }
        for (join, ownerColumn, memberColumn, orderColumns) in layout.joinTables {
            guard let columns = existing[join.name.lowercased()] else {
                problems.append("the join table \(join.name) is missing")
                continue
            }
            for column in [ownerColumn, memberColumn] + orderColumns where columns[column.lowercased()] == nil {
                problems.append("the column \(join.name).\(column) is missing")
            }
        }
        return problems
    }
}

extension StoreMetadata {
    /// The metadata plist with `storeType` as `NSStoreType`.
    func plist(storeType: String) throws -> Data {
        guard var dictionary = try PropertyListSerialization.propertyList(from: plist(), format: nil) as? [String: Any] else {
            throw CocoaError(.propertyListWriteInvalid)
        }
        dictionary["NSStoreType"] = storeType
        return try PropertyListSerialization.data(fromPropertyList: dictionary, format: .binary, options: 0)
    }
}
