import Foundation

/// A store that can record persistent history in Core Data's tables: the SQLite store and
/// the PostgreSQL store. Each gives a connection inside a transaction of its own; reading,
/// numbering and pruning are the same code on both (``HistoryReader``, ``HistoryWriter``).
protocol HistoryStore: PersistentStore {
    /// The tables' columns when the store records history, else nil.
    var historySchema: HistorySchema? { get }
    /// Reads whether the store has Core Data's history tables; when `create` is set and it
    /// has none, creates them (so every save from now on records history). Returns whether
    /// saves record history.
    @discardableResult
    func startRecordingHistory(create: Bool) throws -> Bool
    /// Runs `body` on a connection that reads, in one read transaction (one snapshot: a
    /// token's expiry is checked against the transactions then read).
    func readingHistory<T>(_ body: (any HistoryDatabase) throws -> T) throws -> T
    /// Runs `body` in a write transaction, committed when it returns.
    func writingHistory<T>(_ body: (any HistoryDatabase) throws -> T) throws -> T
}

extension HistoryStore {
    /// The schema, or ``HistoryError`` `.notRecorded`.
    func requireHistorySchema() throws -> HistorySchema {
        if let schema = historySchema { return schema }
        if let schema = try readingHistory({ try HistorySchema.read($0) }) { return schema }
        throw HistoryError(.notRecorded, "the store \(url?.absoluteString ?? "in memory") records no persistent history (it has no ATRANSACTION table); open it with options: [.persistentHistory] to start recording")
    }

    /// The reader of the history on `database`.
    func historyReader(on database: any HistoryDatabase, schema: HistorySchema) -> HistoryReader {
        HistoryReader(database: database, schema: schema, layout: layout, store: identity)
    }

    /// The transactions after transaction `number` (and, with `date`, committed after it),
    /// oldest first, with their changes; at most `limit` (0: all). For a `number` above 0,
    /// ``HistoryError`` `.expiredToken` when some transaction after it is gone
    /// (``HistoryReader/checkNothingMissing(after:)``), read in the same snapshot.
    func historyTransactions(after number: Int64, since date: Date? = nil, limit: Int = 0) throws -> [HistoryTransaction] {
        let schema = try requireHistorySchema()
        return try readingHistory {
            try historyReader(on: $0, schema: schema).transactions(after: number, since: date, limit: limit, checkingExpiry: true)
        }
    }

    /// The number of the last transaction recorded, pruned or not (0 when none).
    func lastHistoryNumber() throws -> Int64 {
        let schema = try requireHistorySchema()
        return try readingHistory { try historyReader(on: $0, schema: schema).lastNumber() }
    }

    /// Deletes the transactions up to and including `number` (or, with `date`, those
    /// committed before it) with their changes, in one write transaction; returns how many
    /// transactions went.
    func deleteHistory(through number: Int64?, before date: Date? = nil) throws -> Int {
        _ = try requireHistorySchema()
        return try writingHistory { try $0.deleteHistory(through: number, before: date) }
    }
}
