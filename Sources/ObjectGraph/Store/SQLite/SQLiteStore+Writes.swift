import Foundation

// The writes of ``PersistentStore`` in SQLite: each in one `BEGIN IMMEDIATE` transaction on
// the single writer.
extension SQLiteStore {
    func uniquenessConflicts(_ save: SaveRequest) throws -> [ConstraintConflictError.Conflict] {
        try read { connection in
            try SQLiteSaveTransaction(connection: connection, layout: layout, store: identity, request: save).uniquenessConflicts()
        }
    }

    func save(_ save: SaveRequest) throws -> SaveOutcome {
        // The writer's recomputed-rows mark is read and cleared under the write lock, with the
        // statements whose triggers set it (another thread's save may be running otherwise).
        // With persistent history, the transaction's rows are written in the same transaction
        // (a transaction noted as this store's own is forgotten when it rolls back).
        var recorded: Int64?
        do {
            return try write { writer in
                _ = writer.takeRecomputedRows()
                var outcome = try SQLiteSaveTransaction(connection: writer, layout: layout, store: identity, request: save).run()
                outcome.recomputedRows = writer.takeRecomputedRows()
                recorded = try recordHistory(RecordedChange.changes(of: save, outcome), author: save.author,
                                             contextName: save.contextName, on: writer)
                return outcome
            }
        } catch {
            if let recorded { history.forgetOwn(recorded) }
            throw error
        }
    }

    func batchDelete(_ query: StoreQuery, listingIDs: Bool, author: String?, contextName: String?) throws -> BatchDeleteOutcome {
        let select = SQLSelect<SQLiteDialect>(query, layout: layout)
        // With persistent history every deleted row is listed, to be recorded.
        let recording = history.schema != nil
        return try write { connection in
            var deleter = SQLBatchDeleter(SQLiteBatchDeleteSQL(store: self, connection: connection))
            let (count, listed) = try deleter.deleteSelection(select, listingIDs: listingIDs || recording)
            let outcome = BatchDeleteOutcome(count: count, listed: listed, deleted: deleter.deleted, cascaded: deleter.cascaded,
                                             deletedEntities: deleter.deletedEntities, nullified: try deleter.readRows(deleter.nullified))
            if recording { _ = try recordHistory(RecordedChange.changes(of: outcome), author: author, contextName: contextName, on: connection) }
            return outcome
        }
    }

    func batchUpdate(_ query: StoreQuery, _ values: [(attribute: AttributeDescription, value: SlotValue)],
                     author: String?, contextName: String?) throws -> [StoreRow] {
        let select = SQLSelect<SQLiteDialect>(query, layout: layout)
        return try write { connection in
            let rows = try SQLBatchDeleter(SQLiteBatchDeleteSQL(store: self, connection: connection)).update(select, values)
            _ = try recordHistory(RecordedChange.changes(ofBatchUpdate: rows, values.map(\.attribute.name)), author: author,
                                  contextName: contextName, on: connection)
            return rows
        }
    }
}
