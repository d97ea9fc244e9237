import Foundation

/// Core Data's persistent-history tables in a SQLite store, as `NSPersistentHistoryTrackingKey`
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

    /// The statements that create the tables in a store that has none (in a write transaction).
    static let createStatements = [
        "CREATE TABLE IF NOT EXISTS ACHANGE ( Z_PK INTEGER PRIMARY KEY, Z_ENT INTEGER, Z_OPT INTEGER, ZCHANGETYPE INTEGER, ZENTITY INTEGER, ZENTITYPK INTEGER, ZTRANSACTIONID INTEGER, ZCOLUMNS BLOB )",
        "CREATE TABLE IF NOT EXISTS ATRANSACTION ( Z_PK INTEGER PRIMARY KEY, Z_ENT INTEGER, Z_OPT INTEGER, ZAUTHORTS INTEGER, ZBUNDLEIDTS INTEGER, ZCONTEXTNAMETS INTEGER, ZPROCESSIDTS INTEGER, ZTIMESTAMP FLOAT, ZAUTHOR VARCHAR, ZBUNDLEID VARCHAR, ZCONTEXTNAME VARCHAR, ZPROCESSID VARCHAR, ZQUERYGEN BLOB )",
        "CREATE TABLE IF NOT EXISTS ATRANSACTIONSTRING ( Z_PK INTEGER PRIMARY KEY, Z_ENT INTEGER, Z_OPT INTEGER, ZNAME VARCHAR )",
        "CREATE INDEX IF NOT EXISTS ACHANGE_ZTRANSACTIONID_INDEX ON ACHANGE (ZTRANSACTIONID)",
        "CREATE INDEX IF NOT EXISTS ATRANSACTION_ZTIMESTAMP_INDEX ON ATRANSACTION (ZTIMESTAMP)",
        "CREATE UNIQUE INDEX IF NOT EXISTS Z_TRANSACTIONSTRING_UNIQUE_NAME ON ATRANSACTIONSTRING (ZNAME COLLATE BINARY ASC)",
    ]

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

    /// The schema of the store `connection` reads, or nil when it has no history tables.
    static func read(_ connection: SQLiteConnection) throws -> HistorySchema? {
        let transaction = try connection.columns(of: "ATRANSACTION")
        let change = try connection.columns(of: "ACHANGE")
        guard !transaction.isEmpty, !change.isEmpty, try connection.tableExists("ATRANSACTIONSTRING") else { return nil }
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

extension SQLiteConnection {
    /// Reserves `count` keys of history table `table` (entity `number` in `Z_PRIMARYKEY`)
    /// and returns the last key before them, past any key already in the table. In a write
    /// transaction.
    func reserveHistoryKeys(_ count: Int, number: Int64, name: String, table: String) throws -> Int64 {
        var stored: Int64?
        try query("SELECT Z_MAX FROM Z_PRIMARYKEY WHERE Z_ENT = ?", [.integer(number)]) { stored = $0.int64(0) }
        var last = stored ?? 0
        if case .integer(let maximum)? = try scalar("SELECT MAX(Z_PK) FROM \(table)") { last = max(last, maximum) }
        if stored == nil {
            try run("INSERT INTO Z_PRIMARYKEY (Z_ENT, Z_NAME, Z_SUPER, Z_MAX) VALUES (?, ?, 0, ?)",
                    [.integer(number), .text(name), .integer(last + Int64(count))])
        } else {
            try run("UPDATE Z_PRIMARYKEY SET Z_MAX = ? WHERE Z_ENT = ?", [.integer(last + Int64(count)), .integer(number)])
        }
        return last
    }
}
