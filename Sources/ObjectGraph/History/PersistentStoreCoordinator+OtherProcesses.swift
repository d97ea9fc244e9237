import Foundation

// Commits of other processes (or other containers) on the coordinator's SQLite file, noticed
// through the writer's `PRAGMA data_version`, read from the persistent history after the
// last transaction read, and merged into the contexts as the commits of a server store are
// (`Merge/PersistentStoreCoordinator+Remote.swift`). A commit another connection made
// without history (no transaction of its is found), or any commit of another connection to a
// store that records no history, refreshes what the contexts hold, as a PostgreSQL store does
// after a lost notification (`refreshEverything()`).
extension PersistentStoreCoordinator {
    /// How often the file is looked at: the bound on the delay before another process's
    /// commit reaches this coordinator's contexts (plus the time to read and merge it).
    static let otherProcessesInterval: DispatchTimeInterval = .milliseconds(100)

    /// Starts the timer that looks for other processes' commits every
    /// ``otherProcessesInterval``. It holds the coordinator weakly and stops when the
    /// coordinator goes or its store closes.
    func watchOtherProcesses(every interval: DispatchTimeInterval = otherProcessesInterval) throws {
        guard let store = store as? SQLiteStore else { return }
        // The version now: commits before this moment are not news.
        let version = try store.withIdleWriter { try Self.dataVersion($0) } ?? nil
        let timer = DispatchSource.makeTimerSource(queue: DispatchQueue(label: "ObjectGraph.history.watcher"))
        timer.schedule(deadline: .now() + interval, repeating: interval, leeway: .milliseconds(10))
        timer.setEventHandler { [weak self, weak store] in
            guard let self, let store, !store.isClosed else {
                timer.cancel()
                return
            }
            self.lookForOtherProcesses(store)
        }
        let previous = store.history.state.withLock { state -> DispatchSourceTimer? in
            if state.dataVersion == nil { state.dataVersion = version }
            defer { state.timer = timer }
            return state.timer
        }
        previous?.cancel()
        timer.resume()
    }

    private static func dataVersion(_ connection: SQLiteConnection) throws -> Int64? {
        try connection.scalar("PRAGMA data_version")?.integerValue
    }

    /// One look: when another connection committed since the last, reads what it did and
    /// merges it into the contexts like a local save.
    func lookForOtherProcesses(_ store: SQLiteStore) {
        do {
            // Never waits for a save under way: the next look comes soon.
            guard let found = try store.withIdleWriter({ try readOtherProcesses(store, on: $0) }), let found else { return }
            if found.foreign.isEmpty || found.missed { refreshEverything() }
            guard !found.foreign.isEmpty else { return }
            let changes = try changeSet(of: found.foreign, store)
            if !changes.changes.isEmpty || !changes.deleted.isEmpty { broadcastRemote(changes) }
        } catch {
            // The store failed (closed, or the file went away): what others did is unknown.
            logger.warning("reading other processes' commits failed: \(error)")
            refreshEverything()
        }
    }

    /// On the idle writer, in one read transaction (so the version and the history are of one
    /// snapshot): nil when no other connection committed since the last look; else the
    /// transactions after the last one read that are not this store's own, and whether some
    /// were pruned before they could be read here. With nothing from another connection,
    /// every transaction since the last look is this store's own: they are read past without
    /// reading them, so the list of own transactions never grows.
    private func readOtherProcesses(_ store: SQLiteStore, on writer: SQLiteConnection) throws -> (foreign: [HistoryTransaction], missed: Bool)? {
        guard let schema = store.history.schema else { return try noteOtherCommits(store, on: writer) }
        try writer.execute("BEGIN")
        defer {
            // A read transaction: nothing to commit. It must end all the same, or the writer's
            // next save could not begin; a COMMIT that fails is rolled back.
            if (try? writer.execute("COMMIT")) == nil, writer.isInTransaction { try? writer.execute("ROLLBACK") }
        }
        _ = try writer.scalar("SELECT MAX(Z_PK) FROM ATRANSACTION")   // starts the snapshot
        guard let current = try Self.dataVersion(writer) else { return nil }
        let last = store.history.state.withLock { state -> Int64? in
            defer { state.dataVersion = current }
            guard state.dataVersion == current else { return state.lastRead }
            if let newest = state.own.max() { state.lastRead = max(state.lastRead, newest) }
            state.own.removeAll()
            return nil
        }
        guard let last else { return nil }
        let transactions = try store.historyReader(on: writer, schema: schema).transactions(after: last)
        return store.history.state.withLock { state in
            guard let oldest = transactions.first?.token.transactionNumber,
                  let newest = transactions.last?.token.transactionNumber else { return ([], false) }
            state.lastRead = max(state.lastRead, newest)
            let mine = state.own
            state.own = state.own.filter { $0 > newest }
            // Transaction numbers are handed out one after the other: a number between the last
            // one read and the oldest one left that is not this store's own belongs to a
            // transaction another process pruned before it was read here.
            let skipped = oldest - last - 1
            let ownSkipped = Int64(mine.count { $0 > last && $0 < oldest })
            return (transactions.filter { !mine.contains($0.token.transactionNumber) }, skipped > ownSkipped)
        }
    }

    /// Without history: nil when no other connection committed since the last look, else no
    /// transaction (what changed cannot be listed, so everything is refreshed).
    private func noteOtherCommits(_ store: SQLiteStore, on writer: SQLiteConnection) throws -> (foreign: [HistoryTransaction], missed: Bool)? {
        guard let current = try Self.dataVersion(writer) else { return nil }
        let changed = store.history.state.withLock { state -> Bool in
            defer { state.dataVersion = current }
            return state.dataVersion != current
        }
        return changed ? ([], false) : nil
    }

    /// The change set of `transactions` (in order): an object inserted and deleted again is
    /// left out, an updated object that was deleted later is a delete, and updated objects
    /// carry their rows as stored now.
    func changeSet(of transactions: [HistoryTransaction], _ store: SQLiteStore) throws -> ChangeSet {
        var inserted: [ObjectID] = []
        var insertedSet = Set<ObjectID>()
        var updatedKeys: [ObjectID: Set<String>?] = [:]
        var updatedOrder: [ObjectID] = []
        var deleted: [ObjectID] = []
        for change in transactions.lazy.flatMap(\.changes) {
            let id = change.changedObjectID
            switch change.changeType {
            case .insert:
                if insertedSet.insert(id).inserted { inserted.append(id) }
                deleted.removeAll { $0 == id }
            case .update:
                guard !insertedSet.contains(id) else { continue }
                if let known = updatedKeys[id] {
                    if let known, let more = change.updatedProperties { updatedKeys[id] = known.union(more) } else { updatedKeys[id] = .some(nil) }
                } else {
                    updatedKeys[id] = .some(change.updatedProperties)
                    updatedOrder.append(id)
                }
            case .delete:
                updatedKeys[id] = nil
                if insertedSet.remove(id) != nil {
                    inserted.removeAll { $0 == id }
                } else {
                    deleted.append(id)
                }
            }
        }
        var set = ChangeSet()
        set.inserted = inserted
        set.deleted = deleted
        let updated = updatedOrder.filter { updatedKeys[$0] != nil }
        if !updated.isEmpty {
            try store.rows(of: updated) { row in set.updated.append((row.id, row.values, row.version)) }
        }
        set.changes.inserted = Set(inserted)
        set.changes.updated = Set(set.updated.map(\.id))
        set.changes.deleted = Set(deleted)
        for id in set.changes.updated {
            if case .some(.some(let keys)) = updatedKeys[id] { set.changes.changedKeys[id] = keys }
        }
        return set
    }
}
