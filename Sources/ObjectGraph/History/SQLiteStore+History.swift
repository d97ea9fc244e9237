import Foundation

// The persistent history of a SQLite store: turning it on, reading it, pruning it.
extension SQLiteStore {
    /// Reads whether the store has Core Data's history tables; when `create` is set and it has
    /// none, creates them (so every save from now on records history). Returns whether saves
    /// record history.
    @discardableResult
    func startRecordingHistory(create: Bool) throws -> Bool {
        // On the writer, idle while the store opens (no reader connection is opened for it).
        var schema = try withIdleWriter { try HistorySchema.read($0) } ?? read { try HistorySchema.read($0) }
        if schema == nil && create {
            if isReadOnly {
                throw StoreError(.readOnly, url: url, "the store has no persistent-history tables, and a store opened with options: [.readOnly] cannot create them; open it once without .readOnly with options: [.persistentHistory]")
            }
            schema = try write { writer in
                try HistorySchema.create(writer)
                return try HistorySchema.read(writer)
            }
        }
        let lastNumber = schema == nil ? 0 : try lastHistoryNumber()
        history.state.withLock { state in
            state.schema = schema
            state.lastRead = lastNumber
        }
        return schema != nil
    }

    /// The number of the last transaction recorded (0 when none).
    func lastHistoryNumber() throws -> Int64 {
        try read { connection in
            try connection.scalar("SELECT MAX(Z_PK) FROM ATRANSACTION")?.integerValue ?? 0
        }
    }

    /// Records `changes` as one transaction in the write transaction on `writer`, noting it as
    /// this store's own; returns its number (nil when history is off or nothing changed).
    func recordHistory(_ changes: @autoclosure () -> [SQLiteHistoryWriter.Change], author: String?, contextName: String?,
                       on writer: SQLiteConnection) throws -> Int64? {
        guard let schema = history.schema else { return nil }
        let number = try SQLiteHistoryWriter(connection: writer, layout: layout, schema: schema)
            .record(changes(), author: author, contextName: contextName)
        if let number { history.noteOwn(number) }
        return number
    }

    /// The schema, or ``HistoryError`` `.notRecorded`.
    func requireHistorySchema() throws -> HistorySchema {
        if let schema = history.schema { return schema }
        if let schema = try read({ try HistorySchema.read($0) }) { return schema }
        throw HistoryError(.notRecorded, "the store \(url?.path ?? "in memory") records no persistent history (it has no ATRANSACTION table); open it with options: [.persistentHistory] to start recording")
    }

    /// The transactions after transaction `number` (and, with `date`, committed after it),
    /// oldest first, with their changes; at most `limit` (0: all).
    func historyTransactions(after number: Int64, since date: Date? = nil, limit: Int = 0) throws -> [HistoryTransaction] {
        let schema = try requireHistorySchema()
        return try read { try readHistory(on: $0, schema: schema, after: number, since: date, limit: limit) }
    }

    /// ``historyTransactions(after:since:limit:)`` on `connection` (inside its transaction,
    /// when it has one: the transactions of one snapshot).
    func readHistory(on connection: SQLiteConnection, schema: HistorySchema, after number: Int64, since date: Date? = nil,
                     limit: Int = 0) throws -> [HistoryTransaction] {
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
        let entities = Dictionary(layout.numbers.compactMap { name, number in model.entitiesByName[name].map { (number, $0) } },
                                  uniquingKeysWith: { first, _ in first })
        let columnsSQL = schema.changeColumns.contains("ZCOLUMNS") ? "ZCOLUMNS" : "NULL"
        do {
            var rows: [(number: Int64, timestamp: Double?, strings: [String?])] = []
            try connection.query(sql, arguments) { row in
                rows.append((row.int64(0), row.isNull(1) ? nil : row.double(1), (2..<6).map { row.textUnlessNull(Int32($0)) }))
            }
            guard let first = rows.first?.number, let last = rows.last?.number else { return [] }
            var changes: [Int64: [HistoryChange]] = [:]
            try connection.query("SELECT ZTRANSACTIONID, ZCHANGETYPE, ZENTITY, ZENTITYPK, \(columnsSQL) FROM ACHANGE WHERE ZTRANSACTIONID BETWEEN ? AND ? ORDER BY Z_PK",
                                 [.integer(first), .integer(last)]) { row in
                guard let type = HistoryChangeType(rawValue: row.int64(1)), let entity = entities[row.int64(2)] else { return }
                let id = ObjectID(entity: entity, store: identity, primaryKey: row.int64(3))
                var keys: Set<String>?
                if type == .update, !row.isNull(4) { keys = HistoryColumns.decode(row.data(4), of: entity) }
                changes[row.int64(0), default: []].append(HistoryChange(changedObjectID: id, changeType: type, updatedProperties: keys))
            }
            return rows.map { row in
                HistoryTransaction(token: HistoryToken(storeIdentifier: identity.uuid, transactionNumber: row.number),
                                   timestamp: Date(timeIntervalSinceReferenceDate: row.timestamp ?? 0),
                                   author: row.strings[0], contextName: row.strings[2], bundleID: row.strings[1],
                                   processID: row.strings[3], changes: changes[row.number] ?? [])
            }
        }
    }

    /// Deletes the transactions up to and including `number` (or, with `date`, those
    /// committed before it) with their changes, in one write transaction; returns how many
    /// transactions went. The strings stay (other transactions may name them).
    func deleteHistory(through number: Int64?, before date: Date? = nil) throws -> Int {
        _ = try requireHistorySchema()
        return try write { writer in
            if let number {
                try writer.run("DELETE FROM ACHANGE WHERE ZTRANSACTIONID <= ?", [.integer(number)])
                return try writer.run("DELETE FROM ATRANSACTION WHERE Z_PK <= ?", [.integer(number)])
            }
            guard let date else { return 0 }
            let time = SQLValue.real(date.timeIntervalSinceReferenceDate)
            try writer.run("DELETE FROM ACHANGE WHERE ZTRANSACTIONID IN (SELECT Z_PK FROM ATRANSACTION WHERE ZTIMESTAMP < ?)", [time])
            return try writer.run("DELETE FROM ATRANSACTION WHERE ZTIMESTAMP < ?", [time])
        }
    }
}
