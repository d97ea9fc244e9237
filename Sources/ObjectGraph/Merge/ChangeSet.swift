import Foundation

/// A saved change set as other contexts merge it: IDs with the rows as written.
struct ChangeSet: Sendable {
    var inserted: [ObjectID] = []
    var updated: [(id: ObjectID, values: ContiguousArray<SlotValue>, version: Int64)] = []
    var deleted: [ObjectID] = []
    /// Whole entities a batch delete emptied, told without listing their rows.
    var deletedEntities: [EntityDeletion] = []
    var changes = ContextChanges()
    /// For child contexts: the temporary IDs a save to the store made permanent (children
    /// still hold objects under the temporary IDs their parent gave them).
    var remapped: [ObjectID: ObjectID] = [:]
    /// Told by a parent context to its child: the values are the parent's current ones, which
    /// the child takes whatever the versions (a parent's unsaved change keeps the version).
    var fromParent = false
}
