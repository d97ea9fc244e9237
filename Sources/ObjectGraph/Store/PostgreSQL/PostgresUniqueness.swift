import Foundation

/// Uniqueness constraints of a save in PostgreSQL: the conflicts a save would create (the
/// same check as SQLite's, ``SaveRequest/uniquenessConflicts(in:storedIDs:)``), before it writes.
///
/// The check reads committed rows; two processes saving equal values at the same moment are
/// kept apart by the unique index of each constraint: the later insert fails with SQLSTATE
/// 23505, the save is rolled back, and the store reports the conflict it then finds
/// (``PostgresStore/save(_:)``).
struct PostgresUniqueness {
    let session: PostgresSession
    let layout: StoreLayout
    let store: StoreIdentity
    let request: SaveRequest

    /// One conflict per object that has another's values (nil never conflicts;
    /// ``SaveRequest/uniquenessConflicts(in:storedIDs:)``).
    func conflicts() throws -> [ConstraintConflictError.Conflict] {
        // Decimals as their exact text, cast to `numeric`, as a save writes them.
        try request.uniquenessConflicts(in: layout, placeholder: PostgresDialect.columnPlaceholder) { sql, values in
            try session.objectIDs(sql, values.map(PostgresDialect.columnValue), layout: layout, store: store)
        }
    }
}
