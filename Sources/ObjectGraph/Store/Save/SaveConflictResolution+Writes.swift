import Foundation

// The conflict flow of a save's updates and deletes, the same in every SQL store: write at
// the version the object was read at; when no row had that version, read the row as it is now
// and settle by the merge policy. The store supplies the statements.
extension SaveConflictResolution {
    /// Writes `change` with `write` (the values, the changed slots, and the version the row
    /// must have; false when no row had it). When the row changed or vanished since the
    /// object read it, reads it with `currentRow` and settles by `policy`: a conflict, the
    /// object vanished, the stored values kept, or the merged values written over the row at
    /// its present version (a conflict when that fails too). What the context applies after
    /// the commit goes to `outcome`.
    static func update(_ change: SaveRequest.Update, policy: MergePolicy, mapping: EntityMapping,
                       outcome: inout SaveOutcome, conflicts: inout [MergeConflictError.Conflict],
                       currentRow: () throws -> StoreRow?,
                       write: (_ values: ContiguousArray<SlotValue>, _ changed: ChangedSlots, _ version: Int64) throws -> Bool) throws {
        let object = change.object
        if try write(object.values, change.changes, object.version) { return }
        // The row changed (or vanished) since it was read.
        switch resolve(object, values: object.values, changed: change.changes, stored: try currentRow(), policy: policy, mapping: mapping) {
        case .conflict(let storeVersion):
            conflicts.append(.init(objectID: object.objectID, snapshotVersion: object.version, storeVersion: storeVersion))
        case .vanished:
            outcome.vanished.append(object)
        case .keepStored(let stored, let storedVersion):
            outcome.resolved[ObjectIdentifier(object)] = (stored, storedVersion)
        case .rewrite(let merged, let slots, let storedVersion):
            guard try write(merged, slots, storedVersion) else {
                conflicts.append(.init(objectID: object.objectID, snapshotVersion: object.version, storeVersion: storedVersion))
                return
            }
            outcome.resolved[ObjectIdentifier(object)] = (merged, storedVersion + 1)
        }
    }

    /// Deletes `object`'s row with `deleteAtVersion` (the number of rows deleted at the
    /// version the object was read at). When none was, the row is gone already (fine) or was
    /// changed by someone else (`currentVersion` reads its version): a conflict under the
    /// `.error` policy, else deleted whatever its version by `deleteAnyVersion`. Returns
    /// whether this save deleted the row (its join-table rows go too).
    static func delete(_ object: ManagedObject, policy: MergePolicy, conflicts: inout [MergeConflictError.Conflict],
                       deleteAtVersion: () throws -> Int, currentVersion: () throws -> Int64?,
                       deleteAnyVersion: () throws -> Void) throws -> Bool {
        if try deleteAtVersion() > 0 { return true }
        guard let current = try currentVersion() else { return false }
        if policy == .error {
            conflicts.append(.init(objectID: object.objectID, snapshotVersion: object.version, storeVersion: current))
            return false
        }
        try deleteAnyVersion()
        return true
    }
}
