import Foundation

/// What a save does with an updated object whose row changed (or vanished) since the
/// object read it, by the context's merge policy: the decision every store makes the same
/// way, whatever its SQL.
enum SaveConflictResolution {
    /// The `.error` policy: a conflict to report (`storeVersion` nil: the row was deleted).
    case conflict(storeVersion: Int64?)
    /// The row was deleted by someone else and the policy lets the deletion win: the object
    /// leaves the context after the save.
    case vanished
    /// `.rollback`: the object takes the stored row; nothing is written.
    case keepStored(values: ContiguousArray<SlotValue>, version: Int64)
    /// Write `values` (the `changed` slots) over the row at `version`.
    case rewrite(values: ContiguousArray<SlotValue>, changed: ChangedSlots, version: Int64)

    /// The resolution for `object`, whose save wanted to write `values` (`changed` slots)
    /// and found `row` (nil: gone) in the store, under `policy`.
    static func resolve(_ object: ManagedObject, values: ContiguousArray<SlotValue>, changed: ChangedSlots, stored row: StoreRow?,
                        policy: MergePolicy, mapping: EntityMapping) -> SaveConflictResolution {
        guard let row else {
            // Deleted by someone else: under the error policy a conflict; under any other
            // policy the deletion wins and the object leaves this context after the save.
            return policy == .error ? .conflict(storeVersion: nil) : .vanished
        }
        switch policy {
        case .error:
            return .conflict(storeVersion: row.version)
        case .rollback:
            return .keepStored(values: keepingUnstored(row.values, from: values), version: row.version)
        case .overwrite:
            return .rewrite(values: values, changed: .all(values.count), version: row.version)
        case .mergeByPropertyObjectTrump:
            var merged = keepingUnstored(row.values, from: values)
            changed.forEach { merged[$0] = values[$0] }
            return .rewrite(values: merged, changed: .all(values.count), version: row.version)
        case .mergeByPropertyStoreTrump:
            var merged = values
            for slot in merged.indices where mapping.columnBySlot[slot] != nil && row.values[slot] != object.snapshot[slot] {
                merged[slot] = row.values[slot]
            }
            return .rewrite(values: merged, changed: .all(values.count), version: row.version)
        }
    }

    /// `stored` with the slots the store does not hold (transient, to-many) taken from `local`.
    static func keepingUnstored(_ stored: ContiguousArray<SlotValue>, from local: ContiguousArray<SlotValue>) -> ContiguousArray<SlotValue> {
        var result = stored
        for slot in result.indices {
            switch result[slot] {
            case .unloaded: result[slot] = local[slot]
            default: break
            }
        }
        return result
    }
}
