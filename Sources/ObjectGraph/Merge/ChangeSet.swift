import Foundation

/// A saved change set as other contexts merge it: IDs with the rows as written.
struct ChangeSet: Sendable {
    var inserted: [ObjectID] = []
    var updated: [(id: ObjectID, values: ContiguousArray<SlotValue>, version: Int64)] = []
    var deleted: [ObjectID] = []
    /// Whole entities a batch delete emptied, told without listing their rows.
    var deletedEntities: [EntityDeletion] = []
    var changes = ContextChanges()
}
