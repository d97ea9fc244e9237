/// What changed in a context: the IDs of inserted, updated and deleted objects, and which
/// keys changed on each updated object. Delivered to ``ManagedObjectContext`` observers.
public struct ContextChanges: Sendable, CustomStringConvertible {
    public var inserted: Set<ObjectID> = []
    public var updated: Set<ObjectID> = []
    /// Deleted objects. In the `.objectsDidChange` of a merge (another context's save, or a
    /// batch delete from any context, this one included) only those this context had
    /// registered: a batch delete without a predicate never lists the rows it removed.
    public var deleted: Set<ObjectID> = []
    /// For updated objects, the names of the properties that changed.
    public var changedKeys: [ObjectID: Set<String>] = [:]
    /// Whether any object may have changed without being listed (Core Data's
    /// `NSInvalidatedAllObjectsKey`): more was saved elsewhere than the context kept waiting
    /// for its next access (``ManagedObjectContext/mergeInboxCapacity``), or a server store's
    /// listener missed commits. Registered objects without unsaved changes were turned into
    /// faults; what an observer shows should be read again.
    public var invalidatedAll = false

    public var isEmpty: Bool { inserted.isEmpty && updated.isEmpty && deleted.isEmpty && !invalidatedAll }

    public var description: String {
        "inserted \(inserted.count), updated \(updated.count), deleted \(deleted.count)" + (invalidatedAll ? ", all invalidated" : "")
    }
}

/// The events a context announces to its observers.
public enum ContextEvent: Sendable, Hashable {
    /// Objects were inserted, changed or deleted in memory (or merged from another context).
    case objectsDidChange
    /// A save wrote changes to the store.
    case didSave
}
