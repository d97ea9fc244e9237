import Foundation

/// What a child context reads and saves through: its parent context, seen as a store. Every
/// fetch, count and fault of the child is answered by the parent with the parent's unsaved
/// changes applied (and the parent asks its own parent, up to the coordinator's store); the
/// child's save hands its changes to the parent, which keeps them as its own unsaved
/// changes. Nothing reaches the store until the context at the top saves.
///
/// Each request runs on the parent as a `performAndWait` of the parent would
/// (``ManagedObjectContext/servingChild(_:)``): at once when the calling thread may use the
/// parent, else under the parent's perform lock (docs/threading.md, "Child contexts").
///
/// Aggregates, distinct values and dictionary fetches are one SQL statement over the store;
/// they cannot include a parent's unsaved changes, so while any context above the child has
/// some they throw ``ContextError`` `.unsavedChangesInParent` instead of a wrong answer.
final class ParentContextStore: PersistentStore {
    /// The parent context, kept alive by its child (as in Core Data).
    let parent: ManagedObjectContext
    /// The coordinator's store, which answers what a parent cannot change.
    let base: any PersistentStore
    /// The child's own inbox, left out when the parent tells its children about this child's save.
    var childInbox: MergeInbox?

    init(parent: ManagedObjectContext) {
        self.parent = parent
        base = parent.persistentStoreCoordinator.store
    }

    var url: URL? { base.url }
    var identity: StoreIdentity { base.identity }
    var layout: StoreLayout { base.layout }
    var isReadOnly: Bool { base.isReadOnly }
    var decimalStorage: DecimalStorage { base.decimalStorage }
    var trace: (@Sendable (String) -> Void)? {
        get { base.trace }
        set { base.trace = newValue }
    }

    /// A child context holds no connection of its own: nothing to close.
    func close() {}

    /// A child context has no store of its own: nothing to remove (the coordinator's
    /// ``PersistentStoreCoordinator/destroyStore()`` removes the store).
    func destroy() throws {}

    /// The ID a child's query names by its key: a temporary one for a negative key (an object
    /// a context above inserted), else the store's.
    private func id(_ entity: EntityDescription, _ key: Int64) -> ObjectID {
        ObjectID(entity: entity, store: key < 0 ? StoreIdentity.none : base.identity, primaryKey: key)
    }

    // MARK: Reads

    func fetchRows(_ query: StoreQuery, _ row: (StoreRow) throws -> Void) throws {
        let rows = try parent.servingChild { try parent.childRows(query) }
        for each in rows { try row(each) }
    }

    func fetchObjectIDs(_ query: StoreQuery) throws -> [ObjectID] {
        try parent.servingChild { try parent.childObjectIDs(query) }
    }

    func count(_ query: StoreQuery, excluding excluded: [Int64]) throws -> Int {
        let ids = Set(excluded.map { id(query.entity, $0) })
        return try parent.servingChild { try parent.childCount(query, excluding: ids) }
    }

    func rows(of ids: [ObjectID], _ row: (StoreRow) throws -> Void) throws {
        let rows = try parent.servingChild { try parent.childRows(of: ids) }
        for each in rows { try row(each) }
    }

    func relatedRows(_ relationship: RelationshipDescription, owners: [Int64],
                     _ row: (_ owner: Int64, _ destination: StoreRow) throws -> Void) throws {
        let owners = owners.map { id(relationship.entity, $0) }
        let rows = try parent.servingChild { try parent.childRelatedRows(relationship, owners: owners) }
        for (owner, each) in rows { try row(owner, each) }
    }

    func aggregate(_ function: AggregateFunction, of path: BoundPath, kind: ValueKind, _ query: StoreQuery) throws -> SlotValue {
        try refuseUnsavedChanges("\(function.rawValue) of \(query.entity.name)")
        return try base.aggregate(function, of: path, kind: kind, query)
    }

    func distinctValues(of path: BoundPath, kind: ValueKind, _ query: StoreQuery) throws -> [SlotValue] {
        try refuseUnsavedChanges("the distinct values of \(query.entity.name)")
        return try base.distinctValues(of: path, kind: kind, query)
    }

    func dictionaryRows(_ request: DictionaryQuery) throws -> [[SlotValue]] {
        try refuseUnsavedChanges("a dictionary fetch of \(request.query.entity.name)")
        return try base.dictionaryRows(request)
    }

    /// Whether this context's parent, or any context above it, has unsaved changes.
    func chainHasUnsavedChanges() -> Bool {
        parent.servingChild {
            parent.hasChanges || ((parent.store as? ParentContextStore)?.chainHasUnsavedChanges() ?? false)
        }
    }

    private func refuseUnsavedChanges(_ what: String) throws {
        guard chainHasUnsavedChanges() else { return }
        throw ContextError(code: .unsavedChangesInParent, objectID: nil, message: """
            \(what) is computed by the store in one statement, which cannot include the unsaved \
            changes of context '\(parent.name)' or of a context above it. Save the parent contexts \
            first, or fetch the objects and compute the value from them.
            """)
    }

    // MARK: Writes

    /// The parent checks uniqueness when it saves to the store.
    func uniquenessConflicts(_ save: SaveRequest) throws -> [ConstraintConflictError.Conflict] { [] }

    /// Hands the child's changes to the parent, as the parent's own unsaved changes. Inserted
    /// objects keep their temporary IDs; nothing is written to the store.
    func save(_ save: SaveRequest) throws -> SaveOutcome {
        let observed = try parent.servingChild {
            try parent.receiveChildSave(save, from: childInbox)
            return parent.pushesMerges
        }
        // An observed main-queue parent saved into from another thread announces the change
        // on the main queue, scheduled once its lock is released.
        if observed && !MainQueue.isCurrent { parent.announceChildSaveOnMainQueue() }
        return SaveOutcome()
    }

    /// Batch requests run on the store itself, as Core Data's do.
    func batchDelete(_ query: StoreQuery, listingIDs: Bool, author: String?, contextName: String?) throws -> BatchDeleteOutcome {
        try base.batchDelete(query, listingIDs: listingIDs, author: author, contextName: contextName)
    }

    func batchUpdate(_ query: StoreQuery, _ values: [(attribute: AttributeDescription, value: SlotValue)],
                     author: String?, contextName: String?) throws -> [StoreRow] {
        try base.batchUpdate(query, values, author: author, contextName: contextName)
    }
}
