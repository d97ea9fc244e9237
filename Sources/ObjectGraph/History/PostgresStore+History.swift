import Foundation

// The persistent history of a PostgreSQL store: Core Data's three tables in the store's
// schema (PostgresSchema+History.swift), written in each save's own transaction and read and
// pruned by the same code as a SQLite store's (HistoryWriter, HistoryReader).
//
// Transaction numbers must follow commit order even when several machines save at once: a
// reader that has read transaction N must never later find a transaction below N committed
// after it. Key reservations for rows are taken outside the saving transaction (so saves do
// not wait for each other), which would not do here: the number is taken at the end of the
// save, inside its transaction, after `pg_advisory_xact_lock` on a key of the schema's
// history (lockHistoryNumbering), which the server holds until COMMIT or ROLLBACK and
// releases only once the commit is visible. So the next saver numbers its transaction only
// after this one is visible, and numbers it past it (Z_PRIMARYKEY's Z_MAX for TRANSACTION,
// 16002, as on SQLite). An advisory lock rather than `LOCK TABLE ATRANSACTION IN EXCLUSIVE
// MODE`: it blocks nothing but other history writers (readers and pruning go on), and it
// also covers ATRANSACTIONSTRING's insert-if-new and ACHANGE's keys, so those never
// collide. Saves without history changes (nothing to record) never take it.
extension PostgresStore: HistoryStore {
    var historySchema: HistorySchema? { history.withLock { $0 } }

    @discardableResult
    func startRecordingHistory(create: Bool) throws -> Bool {
        var schema = try session { try HistorySchema.read($0) }
        if schema == nil && create {
            if isReadOnly {
                throw StoreError(.readOnly, url: url, "the schema \(self.schema) has no persistent-history tables, and a store opened with options: [.readOnly] cannot create them; open it once without .readOnly with options: [.persistentHistory]")
            }
            schema = try transaction { session in
                try PostgresSchema.createHistoryTables(session, schema: self.schema)
                return try HistorySchema.read(session)
            }
        }
        history.withLock { $0 = schema }
        return schema != nil
    }

    /// In a read-only `REPEATABLE READ` transaction: the transactions and their changes of
    /// one snapshot.
    func readingHistory<T>(_ body: (any HistoryDatabase) throws -> T) throws -> T {
        try session { session in
            try session.execute("BEGIN ISOLATION LEVEL REPEATABLE READ READ ONLY")
            defer { _ = try? session.execute("COMMIT") }
            return try body(session)
        }
    }

    func writingHistory<T>(_ body: (any HistoryDatabase) throws -> T) throws -> T {
        try checkWritable()
        return try transaction { try body($0) }
    }

    /// Records `changes` as one transaction in the saving transaction on `session`; returns
    /// its number (nil when history is off or nothing changed).
    @discardableResult
    func recordHistory(_ changes: @autoclosure () -> [RecordedChange], author: String?, contextName: String?,
                       on session: PostgresSession) throws -> Int64? {
        guard let schema = historySchema else { return nil }
        return try HistoryWriter(database: session, layout: layout, schema: schema).record(changes(), author: author, contextName: contextName)
    }
}

extension PostgresSession: HistoryDatabase {
    func historyRows(_ sql: String, _ arguments: [SQLValue], columns: Int) throws -> [[SQLValue]] {
        try rows(sql, arguments).map { Array($0.prefix(columns)) }
    }

    func historyRun(_ sql: String, _ arguments: [SQLValue]) throws -> Int {
        try execute(sql, arguments)
    }

    /// The columns in the session's schema (its search path).
    func historyColumns(of table: String) throws -> Set<String> {
        try columnNames(of: table)
    }

    /// `pg_advisory_xact_lock` on the key of the schema's history, held until the saving
    /// transaction ends (see PostgresStore+History.swift for why).
    func lockHistoryNumbering() throws {
        try execute("SELECT pg_advisory_xact_lock(hashtext('managedrecord.history.' || current_schema()))")
    }
}
