import Foundation

/// Reads transactions of persistent history, with their changes, into
/// ``HistoryTransaction`` values: the same statements on either store
/// (``HistoryDatabase``), on a store written by Core Data too (only the columns it has).
struct HistoryReader {
    let database: any HistoryDatabase
    let schema: HistorySchema
    let layout: StoreLayout
    let store: StoreIdentity

    /// The transactions after transaction `number` (and, with `date`, committed after it),
    /// oldest first, with their changes; at most `limit` (0: all). Inside the connection's
    /// transaction when it has one (the transactions of one snapshot).
    ///
    /// With `checkingExpiry` and a `number` above 0 (a token's), first makes sure that every
    /// transaction after it is still there (``checkNothingMissing(after:)``): else
    /// ``HistoryError`` `.expiredToken`, never a list with holes.
    func transactions(after number: Int64, since date: Date? = nil, limit: Int = 0, checkingExpiry: Bool = false) throws -> [HistoryTransaction] {
        if checkingExpiry && number > 0 { try checkNothingMissing(after: number) }
        var selects = ["t.Z_PK", schema.transactionColumns.contains("ZTIMESTAMP") ? "t.ZTIMESTAMP" : "NULL"]
        var joins: [String] = []
        for (index, field) in HistorySchema.stringFields.enumerated() {
            let expression = schema.stringExpression(field, alias: "s\(index)")
            selects.append(expression.select)
            if let join = expression.join { joins.append(join) }
        }
        var arguments: [SQLValue] = [.integer(number)]
        var condition = "t.Z_PK > ?"
        if let date, schema.transactionColumns.contains("ZTIMESTAMP") {
            condition += " AND t.ZTIMESTAMP > ?"
            arguments.append(.real(date.timeIntervalSinceReferenceDate))
        }
        var sql = "SELECT \(selects.joined(separator: ", ")) FROM ATRANSACTION t \(joins.joined(separator: " ")) WHERE \(condition) ORDER BY t.Z_PK"
        if limit > 0 { sql += " LIMIT \(limit)" }
        let rows = try database.historyRows(sql, arguments, columns: 6)
        guard let first = rows.first?[0].integerValue, let last = rows.last?[0].integerValue else { return [] }
        let columnsSQL = schema.changeColumns.contains("ZCOLUMNS") ? "ZCOLUMNS" : "NULL"
        var changes: [Int64: [HistoryChange]] = [:]
        for row in try database.historyRows("SELECT ZTRANSACTIONID, ZCHANGETYPE, ZENTITY, ZENTITYPK, \(columnsSQL) FROM ACHANGE WHERE ZTRANSACTIONID BETWEEN ? AND ? ORDER BY Z_PK",
                                             [.integer(first), .integer(last)], columns: 5) {
            guard let transaction = row[0].integerValue, let type = row[1].integerValue.flatMap(HistoryChangeType.init(rawValue:)),
                  let entity = row[2].integerValue.flatMap({ layout.entitiesByNumber[$0] }), let key = row[3].integerValue else { continue }
            var keys: Set<String>?
            if type == .update, let bitmap = Self.data(row[4]) { keys = HistoryColumns.decode(bitmap, of: entity) }
            changes[transaction, default: []].append(HistoryChange(changedObjectID: ObjectID(entity: entity, store: store, primaryKey: key),
                                                                   changeType: type, updatedProperties: keys))
        }
        return rows.compactMap { row in
            guard let number = row[0].integerValue else { return nil }
            let strings = (2..<6).map { Self.text(row[$0]) }
            return HistoryTransaction(token: HistoryToken(storeIdentifier: store.uuid, transactionNumber: number),
                                      timestamp: Date(timeIntervalSinceReferenceDate: Self.seconds(row[1]) ?? 0),
                                      author: strings[0], contextName: strings[2], bundleID: strings[1],
                                      processID: strings[3], changes: changes[number] ?? [])
        }
    }

    /// The number of the last transaction ever recorded (0 when none), pruned or not
    /// (``HistoryDatabase/lastIssuedHistoryNumber()``).
    func lastNumber() throws -> Int64 {
        try database.lastIssuedHistoryNumber()
    }

    /// Throws ``HistoryError`` `.expiredToken` unless every transaction numbered after
    /// `number` is still in `ATRANSACTION`. Numbers are handed out one after the other
    /// (``HistoryWriter``) up to ``lastNumber()``, so the transactions after `number` are all
    /// there exactly when `ATRANSACTION` holds `lastNumber() - number` of them: whatever
    /// removed some (pruning by token or by date, in any order) or left a gap (a restore,
    /// which moves the history past the replaced store's numbers) is caught, and a token past the last
    /// number (a store restored or recreated under it) too. One statement each, in the
    /// reader's snapshot.
    func checkNothingMissing(after number: Int64) throws {
        let last = try lastNumber()
        let present = try database.historyScalar("SELECT COUNT(*) FROM ATRANSACTION WHERE Z_PK > ?", [.integer(number)])?.integerValue ?? 0
        guard present != last - number else { return }
        let oldest = try database.historyScalar("SELECT MIN(Z_PK) FROM ATRANSACTION")?.integerValue
        let left = oldest.map { "the oldest transaction left is \($0)" } ?? "no transaction is left"
        if number > last {
            throw HistoryError(.expiredToken, "the token names transaction \(number), but this store's history ends at transaction \(last) (\(left)): the store was restored from a backup or replaced since the token was taken, so what the token's reader has read is not this store's history; read the history again from the start (history(after: nil)), rebuild what was derived from it, and keep the new last token")
        }
        throw HistoryError(.expiredToken, "\(last - number - present) of the \(last - number) transactions after transaction \(number) are gone (\(left)): the history was pruned past the token (deleteHistory(before:)), or the store was restored from a backup, which expires every older token; read the history again from the start (history(after: nil)), rebuild what was derived from it, and keep the new last token")
    }

    // A store written elsewhere may hold another storage class than the column's (SQLite).

    private static func seconds(_ value: SQLValue) -> Double? {
        switch value {
        case .real(let seconds): seconds
        case .integer(let seconds): Double(seconds)
        default: nil
        }
    }

    private static func text(_ value: SQLValue) -> String? {
        switch value {
        case .text(let text): text
        case .integer(let number): String(number)
        case .real(let number): String(number)
        case .blob(let data): String(decoding: data, as: UTF8.self)
        case .null: nil
        }
    }

    private static func data(_ value: SQLValue) -> Data? {
        switch value {
        case .blob(let data): data
        case .text(let text): Data(text.utf8)
        default: nil
        }
    }
}
