import Foundation

// The persistent history of the coordinator's store (SQLite or PostgreSQL): reading and
// pruning it.
extension PersistentStoreCoordinator {
    /// The store, or ``HistoryError`` `.unsupportedStore`.
    private func historyStore() throws -> any HistoryStore {
        guard let store = store as? any HistoryStore else { throw HistoryError.unsupportedStoreKind }
        return store
    }

    private func number(of token: HistoryToken?) throws -> Int64 {
        guard let token else { return 0 }
        guard token.storeIdentifier == store.identity.uuid else {
            throw HistoryError(.otherStore, "the token \(token) belongs to the store \(token.storeIdentifier), not to this one (\(store.identity.uuid)); read this store's history from the start (after: nil) instead")
        }
        return token.transactionNumber
    }

    /// Whether the store records persistent history (it has Core Data's history tables).
    public var recordsHistory: Bool { (store as? any HistoryStore)?.historySchema != nil }

    /// The transactions committed after `token` (all of them for nil), oldest first, each
    /// with its changes. Core Data's `NSPersistentHistoryChangeRequest.fetchHistory(after:)`.
    ///
    /// - Throws: ``HistoryError`` `.notRecorded` when the store has no history,
    ///   `.otherStore` for a token of another store; ``StoreError`` when the store fails.
    public func history(after token: HistoryToken?) throws -> [HistoryTransaction] {
        try historyStore().historyTransactions(after: number(of: token))
    }

    /// The transactions committed after `date`, oldest first, each with its changes.
    public func history(after date: Date) throws -> [HistoryTransaction] {
        try historyStore().historyTransactions(after: 0, since: date)
    }

    /// The token of the last transaction recorded, or nil when there is none yet: keep it to
    /// read only what comes later.
    public func currentHistoryToken() throws -> HistoryToken? {
        let store = try historyStore()
        let last = try store.lastHistoryNumber()
        return last == 0 ? nil : HistoryToken(storeIdentifier: store.identity.uuid, transactionNumber: last)
    }

    /// Deletes the history up to and including `token`'s transaction (what
    /// ``history(after:)`` with that token no longer returns), with its changes, in one
    /// transaction; returns how many transactions were deleted. Core Data's
    /// `deleteHistory(before:)`.
    @discardableResult
    public func deleteHistory(before token: HistoryToken) throws -> Int {
        try historyStore().deleteHistory(through: number(of: token))
    }

    /// Deletes the transactions committed before `date`, with their changes.
    @discardableResult
    public func deleteHistory(before date: Date) throws -> Int {
        try historyStore().deleteHistory(through: nil, before: date)
    }

    /// Reads whether the store records history, creating the tables when `creatingTables`;
    /// on a SQLite file, unless `watchingOtherConnections` is false, starts watching it for
    /// other processes' commits, merged from the history or, without it, by refreshing what
    /// the contexts hold (a PostgreSQL store hears them through `LISTEN`, history or not).
    func startHistory(creatingTables: Bool, watchingOtherConnections: Bool = true) throws {
        guard let store = store as? any HistoryStore else {
            if creatingTables { throw HistoryError.unsupportedStoreKind }
            return
        }
        try store.startRecordingHistory(create: creatingTables)
        guard watchingOtherConnections, let file = store as? SQLiteStore, file.url != nil else { return }
        try watchOtherProcesses()
    }
}

extension PersistentContainer {
    /// Whether the store records persistent history (``Options/persistentHistory``, or a
    /// store that has Core Data's history tables).
    public var recordsHistory: Bool { persistentStoreCoordinator.recordsHistory }

    /// The transactions committed after `token` (all for nil), oldest first, each with its
    /// changes (see ``PersistentStoreCoordinator/history(after:)-(HistoryToken?)``).
    ///
    /// ```swift
    /// var lastToken: HistoryToken? = nil
    /// for transaction in try container.history(after: lastToken) {
    ///     print(transaction.author ?? "-", transaction.changes)
    ///     lastToken = transaction.token
    /// }
    /// ```
    public func history(after token: HistoryToken?) throws -> [HistoryTransaction] {
        try persistentStoreCoordinator.history(after: token)
    }

    /// The transactions committed after `date`, oldest first.
    public func history(after date: Date) throws -> [HistoryTransaction] {
        try persistentStoreCoordinator.history(after: date)
    }

    /// The token of the last transaction recorded, or nil when there is none.
    public func currentHistoryToken() throws -> HistoryToken? {
        try persistentStoreCoordinator.currentHistoryToken()
    }

    /// Deletes the history up to and including `token`'s transaction; returns how many
    /// transactions went.
    @discardableResult
    public func deleteHistory(before token: HistoryToken) throws -> Int {
        try persistentStoreCoordinator.deleteHistory(before: token)
    }

    /// Deletes the transactions committed before `date`.
    @discardableResult
    public func deleteHistory(before date: Date) throws -> Int {
        try persistentStoreCoordinator.deleteHistory(before: date)
    }
}
