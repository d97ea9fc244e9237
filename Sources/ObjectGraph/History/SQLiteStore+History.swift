import Foundation

// The persistent history of a SQLite store: turning it on and recording it. Reading and
// pruning are ``HistoryStore``'s, the same as on PostgreSQL.
extension SQLiteStore: HistoryStore {
    var historySchema: HistorySchema? { history.schema }

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
        let lastNumber = try schema.map { schema in try read { try historyReader(on: $0, schema: schema).lastNumber() } } ?? 0
        history.state.withLock { state in
            state.schema = schema
            state.lastRead = lastNumber
        }
        return schema != nil
    }

    /// In one read transaction on a reader: the transactions, their changes and the check
    /// of a token's expiry see one committed state.
    func readingHistory<T>(_ body: (any HistoryDatabase) throws -> T) throws -> T {
        try read { connection in try SQLiteBackup.withSnapshot(of: connection) { try body(connection) } }
    }

    func writingHistory<T>(_ body: (any HistoryDatabase) throws -> T) throws -> T {
        try write { try body($0) }
    }

    /// Records `changes` as one transaction in the write transaction on `writer`, noting it as
    /// this store's own; returns its number (nil when history is off or nothing changed).
    func recordHistory(_ changes: @autoclosure () -> [RecordedChange], author: String?, contextName: String?,
                       on writer: SQLiteConnection) throws -> Int64? {
        guard let schema = history.schema else { return nil }
        let number = try HistoryWriter(database: writer, layout: layout, schema: schema)
            .record(changes(), author: author, contextName: contextName)
        if let number { history.noteOwn(number) }
        return number
    }
}
