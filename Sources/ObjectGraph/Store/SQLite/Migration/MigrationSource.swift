import CSQLite
import Foundation

/// Where a ``MigrationPlan`` reads the old store from, and how its statements are written
/// for the store that runs them: a SQLite connection (the old file attached as `src`, the
/// copy as `main`) or a PostgreSQL session (the old and new schemas). The plan's inference
/// is the same for both; only this differs.
protocol MigrationSource {
    /// The rows `sql` reads (`?` placeholders) from the old store.
    func rows(_ sql: String, _ parameters: [SQLValue]) throws -> [[SQLValue]]
    /// Every table of the old store: its columns' declared types (SQLite's names, such as
    /// `INTEGER` or `VARCHAR`, uppercased), by column name (uppercased), by table name
    /// (uppercased).
    func tableColumns() throws -> [String: [String: String]]
    /// How the plan's statements are written for this store.
    var dialect: MigrationDialect { get }
}

extension MigrationSource {
    /// The first column of the first row `sql` reads, or nil.
    func scalar(_ sql: String, _ parameters: [SQLValue] = []) throws -> SQLValue? {
        try rows(sql, parameters).first?.first
    }
}

extension SQLValue {
    /// The value as an integer, as SQLite's `sqlite3_column_int64` reads any column (NULL
    /// and text that is no number give 0), so a plan reads a store the same way through
    /// either source.
    var plannedInteger: Int64 {
        switch self {
        case .integer(let value): return value
        case .real(let value): return value.isFinite && abs(value) < 9.2e18 ? Int64(value) : 0
        case .text(let text): return Int64(text.prefix { $0.isNumber || $0 == "-" }) ?? 0
        case .null, .blob: return 0
        }
    }

    /// The value as text, as `sqlite3_column_text` reads it (NULL gives "").
    var plannedText: String {
        switch self {
        case .text(let text): return text
        case .integer(let value): return String(value)
        case .real(let value): return String(value)
        case .null: return ""
        case .blob(let data): return String(decoding: data, as: UTF8.self)
        }
    }
}

extension MigrationError {
    /// The error for an old store that could not be read while its migration was planned.
    static func planningFailed(_ failure: any Error, url: URL) -> MigrationError {
        let sqlite = failure as? SQLiteError
        return MigrationError(.writeFailed, url: url, "the store cannot be read to plan its migration\(sqlite == nil ? ": \(failure)" : "")",
                              underlying: sqlite)
    }
}

/// The SQL of one store that a ``MigrationPlan``'s statements differ in.
struct MigrationDialect: Sendable {
    /// The prefix of the new tables (`main` for the SQLite copy).
    let target: String
    /// The prefix of the old tables (`src`, the attached store).
    let source: String
    /// A name read from the old store, quoted.
    let quote: @Sendable (String) -> String
    /// The `n`th (1-based) parameter of a statement.
    let parameter: @Sendable (Int) -> String
    /// `INSERT ... SELECT` into `table` (`columns` listed) that skips rows already there.
    let insertIgnoring: @Sendable (_ table: String, _ columns: String, _ select: String) -> String
    /// `expression` converted for `target` (the index the converter gave it) of `type`,
    /// checked by `key` (``MigrationValueConverter``).
    let convert: @Sendable (_ expression: String, _ key: String, _ target: Int, _ type: AttributeType) -> String

    /// SQLite's: `og_migrate` is the converter registered on the migration's connection.
    static let sqlite = MigrationDialect(
        target: "main", source: "src", quote: MigrationPlan.quote, parameter: { "?\($0)" },
        insertIgnoring: { table, columns, select in "INSERT OR IGNORE INTO \(table) (\(columns)) \(select)" },
        convert: { expression, key, target, _ in "og_migrate(\(expression), \(key), \(target))" })
}

/// A SQLite connection on the old store reads it for a plan.
extension SQLiteConnection: MigrationSource {
    func rows(_ sql: String, _ parameters: [SQLValue]) throws -> [[SQLValue]] {
        var rows: [[SQLValue]] = []
        try query(sql, parameters) { statement in
            rows.append((0..<sqlite3_column_count(statement.handle)).map { statement.value($0) })
        }
        return rows
    }

    func tableColumns() throws -> [String: [String: String]] {
        var tables: [String] = []
        try query("SELECT name FROM sqlite_master WHERE type = 'table'") { tables.append($0.text(0)) }
        var columns: [String: [String: String]] = [:]
        for table in tables {
            var types: [String: String] = [:]
            try query("SELECT name, type FROM pragma_table_info(?)", [.text(table)]) { row in
                types[row.text(0).uppercased()] = row.text(1).uppercased()
            }
            columns[table.uppercased()] = types
        }
        return columns
    }

    var dialect: MigrationDialect { .sqlite }
}
