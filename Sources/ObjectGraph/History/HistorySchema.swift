import Foundation

/// Core Data's persistent-history tables (SQLite, and PostgreSQL with its types), as `NSPersistentHistoryTrackingKey`
/// creates them: `ATRANSACTION` (one row a commit), `ACHANGE` (one row a changed object) and
/// `ATRANSACTIONSTRING` (the strings transactions name, each stored once), numbered 16002,
/// 16001 and 16003 in `Z_PRIMARYKEY` under the names `TRANSACTION`, `CHANGE` and
/// `TRANSACTIONSTRING`. See docs/history.md for every column and what is not known of them.
///
/// A store written by Core Data may lack columns that later framework versions added, so
/// the columns present are read once and statements name only those.
struct HistorySchema: Sendable {
    static let changeEntity: Int64 = 16001
    static let transactionEntity: Int64 = 16002
    static let stringEntity: Int64 = 16003

    /// The four strings of a transaction: each an `…TS` reference into `ATRANSACTIONSTRING`
    /// and a plain `VARCHAR` twin (Core Data fills the reference and leaves the twin NULL).
    static let stringFields = ["AUTHOR", "BUNDLEID", "CONTEXTNAME", "PROCESSID"]

    /// The tables' own columns (after `Z_PK`, `Z_ENT`, `Z_OPT`) with their SQLite types, as
    /// Core Data declares them; the PostgreSQL store translates the types as it does for
    /// entity tables (``PostgresSchema/columnType(_:)``).
    static let tables: [(name: String, columns: [(name: String, type: String)])] = [
        ("ACHANGE", [("ZCHANGETYPE", "INTEGER"), ("ZENTITY", "INTEGER"), ("ZENTITYPK", "INTEGER"), ("ZTRANSACTIONID", "INTEGER"),
                     ("ZCOLUMNS", "BLOB")]),
        ("ATRANSACTION", [("ZAUTHORTS", "INTEGER"), ("ZBUNDLEIDTS", "INTEGER"), ("ZCONTEXTNAMETS", "INTEGER"), ("ZPROCESSIDTS", "INTEGER"),
                          ("ZTIMESTAMP", "FLOAT"), ("ZAUTHOR", "VARCHAR"), ("ZBUNDLEID", "VARCHAR"), ("ZCONTEXTNAME", "VARCHAR"),
                          ("ZPROCESSID", "VARCHAR"), ("ZQUERYGEN", "BLOB")]),
        ("ATRANSACTIONSTRING", [("ZNAME", "VARCHAR")]),
    ]

    /// The tables' indexes: name, table, column, whether unique.
    static let indexes: [(name: String, table: String, column: String, unique: Bool)] = [
        ("ACHANGE_ZTRANSACTIONID_INDEX", "ACHANGE", "ZTRANSACTIONID", false),
        ("ATRANSACTION_ZTIMESTAMP_INDEX", "ATRANSACTION", "ZTIMESTAMP", false),
        ("Z_TRANSACTIONSTRING_UNIQUE_NAME", "ATRANSACTIONSTRING", "ZNAME", true),
    ]

    /// The statements that create the tables in a SQLite store that has none (in a write
    /// transaction): Core Data's own text.
    static let createStatements: [String] = {
        var statements = tables.map { table in
            let columns = ["Z_PK INTEGER PRIMARY KEY", "Z_ENT INTEGER", "Z_OPT INTEGER"] + table.columns.map { "\($0.name) \($0.type)" }
            return "CREATE TABLE IF NOT EXISTS \(table.name) ( \(columns.joined(separator: ", ")) )"
        }
        for index in indexes {
            let column = index.unique ? "\(index.column) COLLATE BINARY ASC" : index.column
            statements.append("CREATE \(index.unique ? "UNIQUE " : "")INDEX IF NOT EXISTS \(index.name) ON \(index.table) (\(column))")
        }
        return statements
    }()

    /// The `Z_PRIMARYKEY` rows of the three tables: number, name, table.
    static let numbering: [(number: Int64, name: String, table: String)] = [
        (changeEntity, "CHANGE", "ACHANGE"),
        (transactionEntity, "TRANSACTION", "ATRANSACTION"),
        (stringEntity, "TRANSACTIONSTRING", "ATRANSACTIONSTRING"),
    ]

    /// Whether a `Z_PRIMARYKEY` row is one of Core Data's own (history, 16000s; CloudKit
    /// mirroring, 17000s) rather than a model entity's.
    static func isFrameworkEntity(_ number: Int64) -> Bool { number >= 16000 }

    /// Columns of `ATRANSACTION` and of `ACHANGE`, upper-cased.
    let transactionColumns: Set<String>
    let changeColumns: Set<String>

    /// The schema of the store `database` reads, or nil when it has no history tables.
    static func read(_ database: any HistoryDatabase) throws -> HistorySchema? {
        let transaction = try database.historyColumns(of: "ATRANSACTION")
        let change = try database.historyColumns(of: "ACHANGE")
        guard !transaction.isEmpty, !change.isEmpty, try !database.historyColumns(of: "ATRANSACTIONSTRING").isEmpty else { return nil }
        return HistorySchema(transactionColumns: transaction, changeColumns: change)
    }

    /// Creates the tables and their `Z_PRIMARYKEY` rows where missing, in a write transaction.
    static func create(_ connection: SQLiteConnection) throws {
        for statement in createStatements { try connection.execute(statement) }
        for row in numbering {
            try connection.run("INSERT OR IGNORE INTO Z_PRIMARYKEY (Z_ENT, Z_NAME, Z_SUPER, Z_MAX) VALUES (?, ?, 0, 0)",
                               [.integer(row.number), .text(row.name)])
        }
    }

    /// The expression that reads string field `field` of transaction alias `t`, joining
    /// `ATRANSACTIONSTRING` as `alias` when the reference column exists.
    func stringExpression(_ field: String, alias: String) -> (select: String, join: String?) {
        var parts: [String] = []
        var join: String?
        if transactionColumns.contains("Z\(field)TS") {
            parts.append("\(alias).ZNAME")
            join = "LEFT JOIN ATRANSACTIONSTRING \(alias) ON \(alias).Z_PK = t.Z\(field)TS"
        }
        if transactionColumns.contains("Z\(field)") { parts.append("t.Z\(field)") }
        switch parts.count {
        case 0: return ("NULL", join)
        case 1: return (parts[0], join)
        default: return ("COALESCE(\(parts.joined(separator: ", ")))", join)
        }
    }
}
