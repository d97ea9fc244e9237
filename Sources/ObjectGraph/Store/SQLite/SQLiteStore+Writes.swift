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
        try write { writer in
            _ = writer.takeRecomputedRows()
            var outcome = try SQLiteSaveTransaction(connection: writer, layout: layout, store: identity, request: save).run()
            outcome.recomputedRows = writer.takeRecomputedRows()
            return outcome
        }
    }

    func batchDelete(_ query: StoreQuery, listingIDs: Bool) throws -> BatchDeleteOutcome {
        let select = SQLSelect<SQLiteDialect>(query, layout: layout)
        return try write { connection in
            var deleter = SQLBatchDeleter(SQLiteBatchDeleteSQL(store: self, connection: connection))
            let (count, listed) = try deleter.deleteSelection(select, listingIDs: listingIDs)
            return BatchDeleteOutcome(count: count, listed: listed, deleted: deleter.deleted, cascaded: deleter.cascaded,
                                      deletedEntities: deleter.deletedEntities, nullified: try deleter.readRows(deleter.nullified))
        }
    }

    func batchUpdate(_ query: StoreQuery, _ values: [(attribute: AttributeDescription, value: SlotValue)]) throws -> [StoreRow] {
        let select = SQLSelect<SQLiteDialect>(query, layout: layout)
        return try write { connection in
            try SQLBatchDeleter(SQLiteBatchDeleteSQL(store: self, connection: connection)).update(select, values)
        }
    }
}
