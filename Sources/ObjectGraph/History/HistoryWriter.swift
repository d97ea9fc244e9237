import Foundation

/// Writes one transaction of persistent history, with its changes, in the transaction of the
/// save or batch request it describes (on either store, through ``HistoryDatabase``): both
/// commit together or not at all, so no transaction is without its changes and no change
/// without its save.
struct HistoryWriter {
    let database: any HistoryDatabase
    let layout: StoreLayout
    let schema: HistorySchema

    /// The bundle identifier recorded: the executable's name (there are no bundles here).
    static let bundleID = ProcessInfo.processInfo.processName
    /// The process recorded: its process ID in decimal.
    static let processID = String(ProcessInfo.processInfo.processIdentifier)

    /// Records `changes` as one transaction and returns its number; nil (nothing written)
    /// when there are none. Takes the store's numbering lock first
    /// (``HistoryDatabase/lockHistoryNumbering()``).
    func record(_ changes: [RecordedChange], author: String?, contextName: String?, at date: Date = Date()) throws -> Int64? {
        guard !changes.isEmpty else { return nil }
        try database.lockHistoryNumbering()
        let number = try database.reserveHistoryKeys(1, number: HistorySchema.transactionEntity, name: "TRANSACTION",
                                                     table: "ATRANSACTION") + 1
        var columns = ["Z_PK", "Z_ENT"]
        var values: [SQLValue] = [.integer(number), .integer(HistorySchema.transactionEntity)]
        let strings = ["AUTHOR": author, "BUNDLEID": Self.bundleID, "CONTEXTNAME": contextName, "PROCESSID": Self.processID]
        for field in HistorySchema.stringFields {
            guard let text = strings[field] ?? nil else { continue }
            if schema.transactionColumns.contains("Z\(field)TS") {
                columns.append("Z\(field)TS")
                values.append(.integer(try intern(text)))
            } else if schema.transactionColumns.contains("Z\(field)") {
                columns.append("Z\(field)")
                values.append(.text(text))
            }
        }
        if schema.transactionColumns.contains("ZTIMESTAMP") {
            columns.append("ZTIMESTAMP")
            values.append(.real(date.timeIntervalSinceReferenceDate))
        }
        try database.historyRun("INSERT INTO ATRANSACTION (\(columns.joined(separator: ", "))) VALUES (\(columns.map { _ in "?" }.joined(separator: ", ")))",
                                values)
        try insertChanges(changes, transaction: number)
        return number
    }

    private func insertChanges(_ changes: [RecordedChange], transaction: Int64) throws {
        var key = try database.reserveHistoryKeys(changes.count, number: HistorySchema.changeEntity, name: "CHANGE", table: "ACHANGE")
        let hasColumns = schema.changeColumns.contains("ZCOLUMNS")
        let sql = hasColumns
            ? "INSERT INTO ACHANGE (Z_PK, Z_ENT, ZCHANGETYPE, ZENTITY, ZENTITYPK, ZTRANSACTIONID, ZCOLUMNS) VALUES (?, ?, ?, ?, ?, ?, ?)"
            : "INSERT INTO ACHANGE (Z_PK, Z_ENT, ZCHANGETYPE, ZENTITY, ZENTITYPK, ZTRANSACTIONID) VALUES (?, ?, ?, ?, ?, ?)"
        for change in changes {
            key += 1
            var values: [SQLValue] = [.integer(key), .integer(HistorySchema.changeEntity), .integer(change.type.rawValue),
                                      .integer(layout.numbers[change.entity.name]!), .integer(change.key), .integer(transaction)]
            if hasColumns { values.append(change.columns.map { .blob($0) } ?? .null) }
            try database.historyRun(sql, values)
        }
    }

    /// The key of `text` in `ATRANSACTIONSTRING`, adding it when new.
    private func intern(_ text: String) throws -> Int64 {
        if let key = try database.historyScalar("SELECT Z_PK FROM ATRANSACTIONSTRING WHERE ZNAME = ?", [.text(text)])?.integerValue {
            return key
        }
        let key = try database.reserveHistoryKeys(1, number: HistorySchema.stringEntity, name: "TRANSACTIONSTRING",
                                                  table: "ATRANSACTIONSTRING") + 1
        try database.historyRun("INSERT INTO ATRANSACTIONSTRING (Z_PK, Z_ENT, ZNAME) VALUES (?, ?, ?)",
                                [.integer(key), .integer(HistorySchema.stringEntity), .text(text)])
        return key
    }
}
