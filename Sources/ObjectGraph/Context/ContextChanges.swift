/// What changed in a context: the IDs of inserted, updated and deleted objects, and which
/// keys changed on each updated object. Delivered to ``ManagedObjectContext`` observers.
public struct ContextChanges: Sendable, CustomStringConvertible {
    public var inserted: Set<ObjectID> = []
    public var updated: Set<ObjectID> = []
    public var deleted: Set<ObjectID> = []
    /// For updated objects, the names of the properties that changed.
    public var changedKeys: [ObjectID: Set<String>] = [:]

    public var isEmpty: Bool { inserted.isEmpty && updated.isEmpty && deleted.isEmpty }

    public var description: String { "inserted \(inserted.count), updated \(updated.count), deleted \(deleted.count)" }
}

/// The events a context announces to its observers.
public enum ContextEvent: Sendable, Hashable {
    /// Objects were inserted, changed or deleted in memory (or merged from another context).
    case objectsDidChange
    /// A save wrote changes to the store.
    case didSave
}

/// A saved change set as other contexts merge it: IDs with the rows as written.
struct ChangeSet: Sendable {
    var inserted: [ObjectID] = []
    var updated: [(id: ObjectID, values: ContiguousArray<SlotValue>, version: Int64)] = []
    var deleted: [ObjectID] = []
    var changes = ContextChanges()
}
