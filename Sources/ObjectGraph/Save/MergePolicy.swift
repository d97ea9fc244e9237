/// How a save resolves rows that changed in the store since the context read them —
/// Core Data's five policies.
public enum MergePolicy: Sendable, Hashable {
    /// Refuse the save with a ``MergeConflictError`` naming the objects (Core Data's default).
    case error
    /// Per property: the store's changes win; the context's changes fill in the rest.
    case mergeByPropertyStoreTrump
    /// Per property: the context's changes win; the store's changes fill in the rest.
    case mergeByPropertyObjectTrump
    /// The context's version of the whole object replaces the store's.
    case overwrite
    /// The store's version wins; the context's changes to the object are discarded.
    case rollback
}
