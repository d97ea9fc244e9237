import Foundation

// The writes of ``PersistentStore`` in PostgreSQL: each in one transaction, which sends the
// change notification of the commit (PostgresChangeNotice) and, with persistent history,
// records the commit's transaction (PostgresStore+History) before it commits.
extension PostgresStore {
    func uniquenessConflicts(_ save: SaveRequest) throws -> [ConstraintConflictError.Conflict] {
        try refuseNUL(in: save)
        return try session { session in
            try PostgresUniqueness(session: session, layout: layout, store: identity, request: save).conflicts()
        }
    }

    /// Saves in one transaction; all or nothing. Keys for the inserted objects are taken
    /// first, in a short transaction of their own (`UPDATE Z_PRIMARYKEY ... RETURNING`), so
    /// concurrent saves never wait for each other on `Z_PRIMARYKEY`; a failed save leaves a
    /// gap in the keys, as Core Data's stores do.
    ///
    /// A uniqueness conflict found by the unique index (another process committed the same
    /// values after this save checked) rolls the save back and throws
    /// ``ConstraintConflictError`` naming the objects. A connection lost during the save
    /// throws ``StoreError`` `.connectionLost`: the server rolled the transaction back and
    /// the context keeps its changes (when it breaks during `COMMIT` itself, the server may
    /// have committed: fetch again before saving the same changes).
    func save(_ save: SaveRequest) throws -> SaveOutcome {
        try checkWritable()
        try refuseNUL(in: save)
        let keys = try reserveKeys(save.inserted)
        do {
            return try transaction { session in
                let outcome = try PostgresSaveTransaction(session: session, layout: layout, store: identity, url: url, request: save, keys: keys).run()
                var notice = PostgresChangeNotice(sender: senderID)
                notice.inserted = save.inserted.map { noticePair($0.objectID, keys) }
                let vanished = Set(outcome.vanished.map { ObjectIdentifier($0) })
                notice.updated = save.updated.filter { !vanished.contains(ObjectIdentifier($0.object)) }.map { noticePair($0.object.objectID) }
                notice.deleted = save.deleted.map { noticePair($0.objectID) }
                try notify(notice, session)
                // Last, so the history's numbering lock is held only for its rows and COMMIT.
                try recordHistory(RecordedChange.changes(of: save, outcome), author: save.author, contextName: save.contextName, on: session)
                return outcome
            }
        } catch let error as StoreError where (error.underlying as? DatabaseServerError)?.sqlState == "23505" {
            // Another process saved the same constrained values after the check: name them.
            let conflicts = (try? uniquenessConflicts(save)) ?? []
            if !conflicts.isEmpty { throw ConstraintConflictError(conflicts: conflicts) }
            throw StoreError(.serverError, url: url, "the save would break a uniqueness constraint (\((error.underlying as? DatabaseServerError)?.message ?? "a unique index")); nothing was saved", underlying: error.underlying)
        }
    }

    /// Primary keys for `inserted`, by temporary ID: a block per root entity, each taken from
    /// `Z_PRIMARYKEY` in one statement (its own transaction) that also skips keys rows of
    /// other software already use.
    func reserveKeys(_ inserted: [ManagedObject]) throws -> TemporaryKeys {
        guard !inserted.isEmpty else { return TemporaryKeys() }
        let groups = inserted.groupedByRoot()
        var keys = TemporaryKeys(capacity: inserted.count)
        try session { session in
            for group in groups {
                var key = try reserve(group.objects.count, root: group.root, session)
                for object in group.objects {
                    key += 1
                    keys.insert(object.objectID, key: key)
                }
            }
        }
        return keys
    }

    /// Reserves `count` keys of `root`'s table; returns the last key before them.
    func reserve(_ count: Int, root: EntityDescription, _ session: PostgresSession) throws -> Int64 {
        let table = layout.mappings[root.index].table.name
        let sql = "UPDATE Z_PRIMARYKEY SET Z_MAX = GREATEST(COALESCE(Z_MAX, 0), (SELECT COALESCE(MAX(Z_PK), 0) FROM \(table))) + ? WHERE Z_ENT = ? RETURNING Z_MAX"
        guard case .integer(let last)? = try session.scalar(sql, [.integer(Int64(count)), .integer(layout.numbers[root.name]!)]) else {
            throw StoreError(.corruptMetadata, url: url, "Z_PRIMARYKEY has no row for the entity \(root.name): the schema was changed by other software")
        }
        return last - Int64(count)
    }

    func batchDelete(_ query: StoreQuery, listingIDs: Bool, author: String?, contextName: String?) throws -> BatchDeleteOutcome {
        try checkWritable()
        let select = SQLSelect<PostgresDialect>(try answeringNULArguments(query), layout: layout)
        return try transaction { session in
            var deleter = SQLBatchDeleter(PostgresBatchDeleteSQL(store: self, session: session))
            let (count, listed) = try deleter.deleteSelection(select, listingIDs: listingIDs)
            let nullified = try deleter.readRows(deleter.nullified)
            var notice = PostgresChangeNotice(sender: senderID)
            notice.deleted = (query.admitsEveryRow ? deleter.emptiedRows + deleter.cascaded : Array(deleter.deleted)).map { noticePair($0) }
            notice.updated = nullified.map { noticePair($0.id) }
            try notify(notice, session)
            // The deleted rows by ID, also without a predicate: a key bound (an EntityDeletion)
            // could name a row another process commits after this delete with a key it
            // reserved before it.
            let outcome = BatchDeleteOutcome(count: count, listed: listed, deleted: deleter.deleted.union(deleter.emptiedRows),
                                             cascaded: deleter.cascaded, deletedEntities: nil, nullified: nullified)
            try recordHistory(RecordedChange.changes(of: outcome), author: author, contextName: contextName, on: session)
            return outcome
        }
    }

    func batchUpdate(_ query: StoreQuery, _ values: [(attribute: AttributeDescription, value: SlotValue)],
                     author: String?, contextName: String?) throws -> [StoreRow] {
        try checkWritable()
        for (attribute, value) in values {
            if case .text(let text) = value.storedValue, text.utf8.contains(0) { throw Self.nulRefused(attribute.name, of: nil, url: url) }
        }
        let select = SQLSelect<PostgresDialect>(try answeringNULArguments(query), layout: layout)
        return try transaction { session in
            let rows = try SQLBatchDeleter(PostgresBatchDeleteSQL(store: self, session: session)).update(select, values)
            var notice = PostgresChangeNotice(sender: senderID)
            notice.updated = rows.map { noticePair($0.id) }
            try notify(notice, session)
            try recordHistory(RecordedChange.changes(ofBatchUpdate: rows, values.map(\.attribute.name)), author: author, contextName: contextName, on: session)
            return rows
        }
    }
}
