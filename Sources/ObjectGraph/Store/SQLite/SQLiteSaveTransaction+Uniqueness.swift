import Foundation

extension SQLiteSaveTransaction {
    /// Enforces uniqueness constraints before this save writes anything, inside its
    /// transaction (so no other writer can interleave): after the save, no two rows of a
    /// constrained entity (sub-entities included) may hold equal values for a constraint's
    /// attributes. A nil never conflicts. Only inserted objects and updated objects whose
    /// constrained attributes changed are checked: one indexed query per object and
    /// constraint (Core Data's stores carry a unique index per constraint), none for entities
    /// without constraints. Rows this save deletes, or moves to other values, do not count.
    ///
    /// A conflict left here (the context's merge policy resolved what it could before the
    /// save, see `ManagedObjectContext.resolveConstraintConflicts`) refuses the save with a
    /// ``ConstraintConflictError``.
    func checkUniqueness() throws {
        let conflicts = try uniquenessConflicts()
        if !conflicts.isEmpty { throw ConstraintConflictError(conflicts: conflicts) }
    }

    /// The conflicts `checkUniqueness` refuses, one per object that has another's values
    /// (``SaveRequest/uniquenessConflicts(in:storedIDs:)``).
    func uniquenessConflicts() throws -> [ConstraintConflictError.Conflict] {
        try request.uniquenessConflicts(in: layout) { sql, values in
            let statement = try connection.cachedStatement(sql)
            defer { statement.reset() }
            for (index, value) in values.enumerated() { try SQLiteRowCodec.bind(value, to: statement, at: Int32(index), keys: [:]) }
            var ids: [ObjectID] = []
            while try statement.step() {
                if let id = layout.objectID(key: statement.int64(0), entityNumber: statement.int64(1), store: store) { ids.append(id) }
            }
            return ids
        }
    }
}
