import Foundation

/// The old schema of a PostgreSQL store, read for a ``MigrationPlan`` (the same inference as
/// a SQLite store's migration), and the plan's statements written for PostgreSQL: the old
/// tables in `sourceSchema`, the new ones in `targetSchema`.
///
/// The plan reads through the session's search path, which must be `sourceSchema`.
struct PostgresMigrationSource: MigrationSource {
    let session: PostgresSession
    let sourceSchema: String
    let targetSchema: String
    /// The declared (SQLite) types of the columns of the model that wrote the store, which
    /// tell a date from a number (both `double precision` here), by column, by table
    /// (uppercased).
    let recordedTypes: [String: [String: String]]

    init(session: PostgresSession, sourceSchema: String, targetSchema: String, metadata: StoreMetadata) throws {
        self.session = session
        self.sourceSchema = sourceSchema
        self.targetSchema = targetSchema
        var types: [String: [String: String]] = [:]
        if let written = metadata.writtenModel, written.matchesStoreVersionHashes(metadata.versionHashes) {
            var rows: [StoredEntity] = []
            for row in try session.rows("SELECT Z_ENT, Z_NAME, Z_SUPER FROM Z_PRIMARYKEY") {
                guard let number = row[0].integerValue, case .text(let name) = row[1] else { continue }
                rows.append(StoredEntity(number: number, name: name, parent: row[2].integerValue ?? 0))
            }
            let numbering = StoredNumbering(model: written, rows: rows, writtenWithModel: true)
            if numbering.missing.isEmpty {
                for table in StoreLayout(model: written, numbers: numbering.numbers).tables {
                    for column in table.columns { types[table.name.uppercased(), default: [:]][column.name.uppercased()] = column.type.uppercased() }
                }
            }
        }
        recordedTypes = types
    }

    func rows(_ sql: String, _ parameters: [SQLValue]) throws -> [[SQLValue]] {
        try session.rows(sql, parameters)
    }

    func tableColumns() throws -> [String: [String: String]] {
        var columns: [String: [String: String]] = [:]
        let rows = try session.rows("SELECT table_name, column_name, data_type FROM information_schema.columns WHERE table_schema = ?",
                                    [.text(sourceSchema)])
        for row in rows {
            guard case .text(let table) = row[0], case .text(let column) = row[1], case .text(let type) = row[2] else { continue }
            let (tableName, columnName) = (table.uppercased(), column.uppercased())
            columns[tableName, default: [:]][columnName] = recordedTypes[tableName]?[columnName] ?? Self.declaredType(type)
        }
        return columns
    }

    /// SQLite's declared type for a PostgreSQL column type of a store's table.
    static func declaredType(_ type: String) -> String {
        switch type {
        case "bigint", "integer", "smallint", "boolean": return "INTEGER"
        case "double precision", "real", "numeric": return "FLOAT"
        case "bytea": return "BLOB"
        case "text", "character varying": return "VARCHAR"
        default: return type.uppercased()
        }
    }

    var dialect: MigrationDialect { Self.dialect(source: sourceSchema, target: targetSchema) }

    /// PostgreSQL's statements: names of the old store in lower case (PostgreSQL folds the
    /// unquoted names the store was created with), `$n` parameters, `ON CONFLICT DO
    /// NOTHING`, and the conversion functions of ``PostgresMigrator/conversionStatements``.
    static func dialect(source: String, target: String) -> MigrationDialect {
        MigrationDialect(
            target: target, source: source,
            quote: { "\"" + $0.lowercased().replacingOccurrences(of: "\"", with: "\"\"") + "\"" },
            parameter: { "$\($0)" },
            insertIgnoring: { table, columns, select in "INSERT INTO \(table) (\(columns)) \(select) ON CONFLICT DO NOTHING" },
            convert: { expression, key, target, type in
                if MigrationValueConverter.kind(of: type) == .blob {
                    return "pg_temp.og_migrate_bytea(CAST(\(expression) AS bytea), \(key), \(target))"
                }
                let columnType = PostgresSchema.columnType(type.columnType).components(separatedBy: " COLLATE").first!
                return "CAST(pg_temp.og_migrate_text(CAST(\(expression) AS text), \(key), \(target)) AS \(columnType))"
            })
    }
}
