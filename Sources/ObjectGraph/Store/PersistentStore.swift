import Foundation

/// What a store does for the contexts above it, in the model's terms: contexts hand it
/// neutral requests (an entity, a bound predicate, sort keys, paging; a save as inserts,
/// updates and deletes with the versions they were read at) and get rows or an outcome
/// back. Each store writes its own SQL: ``SQLiteStore`` (Store/SQLite) and the server store
/// (Store/PostgreSQL), so nothing above this protocol knows a dialect.
///
/// Core Data's `NSIncrementalStore` draws the same line. Stores are used under
/// ``PersistentStoreCoordinator``, which serializes what must be serialized; every method
/// may throw ``StoreError`` when the store's database fails, and leaves the store as it was
/// when it throws.
protocol PersistentStore: AnyObject {
    /// The store file or the server's URL; nil for an in-memory store.
    var url: URL? { get }
    /// The store's UUID and model, part of every object ID.
    var identity: StoreIdentity { get }
    /// How the model maps onto Core Data's tables and columns.
    var layout: StoreLayout { get }
    /// Opened for reading only: every write throws ``StoreError`` `.readOnly`.
    var isReadOnly: Bool { get }
    /// How the store keeps Decimal attributes: what a save must refuse (``SlotValue/unstorableReason(decimals:)``).
    var decimalStorage: DecimalStorage { get }
    /// Records every statement the store runs (tests and diagnostics).
    var trace: (@Sendable (String) -> Void)? { get set }
    /// Closes the store's connections; later calls throw ``StoreError`` `.closed`.
    func close()
    /// Closes the store and removes it with everything in it: the file and its `-wal` and
    /// `-shm` (SQLite; nothing for a store in memory), or the store's schema (server).
    func destroy() throws

    // MARK: Reads

    /// Calls `row` with each row `query` selects, in its order and page. Throws
    /// ``StoreError`` `.corruptRow` for a row of an entity outside the query's.
    func fetchRows(_ query: StoreQuery, _ row: (StoreRow) throws -> Void) throws
    /// The IDs of the objects `query` selects, in its order and page.
    func fetchObjectIDs(_ query: StoreQuery) throws -> [ObjectID]
    /// How many objects `query` selects (paging ignored), leaving out the rows whose
    /// primary keys are in `excluded`.
    func count(_ query: StoreQuery, excluding excluded: [Int64]) throws -> Int
    /// Calls `row` with the stored rows of `ids` (any order; missing ones are skipped).
    func rows(of ids: [ObjectID], _ row: (StoreRow) throws -> Void) throws
    /// Calls `row` with the destinations of `relationship` (a to-many) of each owner in
    /// `owners` (primary keys), with the owner's key, each owner's destinations together
    /// and in the relationship's order.
    func relatedRows(_ relationship: RelationshipDescription, owners: [Int64],
                     _ row: (_ owner: Int64, _ destination: StoreRow) throws -> Void) throws
    /// `function` of the value at `path` over what `query` selects, in the stored form of
    /// the result (an exact `.decimal` for the sum and average of Decimals).
    func aggregate(_ function: AggregateFunction, of path: BoundPath, kind: ValueKind, _ query: StoreQuery) throws -> SlotValue
    /// The distinct non-nil values at `path` among what `query` selects, ascending, paged.
    func distinctValues(of path: BoundPath, kind: ValueKind, _ query: StoreQuery) throws -> [SlotValue]
    /// The rows of a dictionary fetch, one value per column (`.null` when nil).
    func dictionaryRows(_ request: DictionaryQuery) throws -> [[SlotValue]]

    // MARK: Writes

    /// New objects of `save` (and updated ones whose constrained values change) whose
    /// uniqueness-constrained values other objects or stored rows already hold.
    func uniquenessConflicts(_ save: SaveRequest) throws -> [ConstraintConflictError.Conflict]
    /// Writes `save` in one transaction, all or nothing, with optimistic locking on each
    /// updated and deleted row resolved by `save.policy`; refuses uniqueness conflicts.
    /// Throws ``MergeConflictError`` or ``ConstraintConflictError`` (nothing written).
    func save(_ save: SaveRequest) throws -> SaveOutcome
    /// Deletes what `query` selects and what delete rules reach, in one transaction
    /// (recorded in the persistent history, where the store keeps it, under `author` and
    /// `contextName`, as a save is).
    func batchDelete(_ query: StoreQuery, listingIDs: Bool, author: String?, contextName: String?) throws -> BatchDeleteOutcome
    /// Sets `values` on what `query` selects (one new version each), in one transaction;
    /// returns the changed rows as now stored. Recorded in the history as ``batchDelete(_:listingIDs:author:contextName:)`` is.
    func batchUpdate(_ query: StoreQuery, _ values: [(attribute: AttributeDescription, value: SlotValue)],
                     author: String?, contextName: String?) throws -> [StoreRow]
}

/// A stored row: its object ID, version (`Z_OPT`) and values in the entity's slot order.
struct StoreRow {
    var id: ObjectID
    var version: Int64
    var values: ContiguousArray<SlotValue>
}

/// What a fetch asks a store for, bound to the model.
struct StoreQuery {
    /// The entity whose objects are selected.
    let entity: EntityDescription
    /// Whether objects of sub-entities are selected too.
    let includesSubentities: Bool
    /// The bound predicate; nil selects every object.
    let predicate: BoundNode?
    /// The sort keys, first one first.
    let sortKeys: [BoundSortKey]
    /// The page: at most `limit` objects (0: no limit) after skipping `offset`.
    var limit = 0
    var offset = 0

    /// Whether the predicate admits every row (none, or `TRUEPREDICATE`).
    var admitsEveryRow: Bool {
        guard let predicate else { return true }
        if case .constant(true) = predicate { return true }
        return false
    }
}

/// A sort key resolved against the model.
struct BoundSortKey {
    var path: BoundPath
    var ascending: Bool
    var comparison: SortKey.Comparison
}

/// A dictionary fetch (``ManagedObjectContext/fetchDictionaries(_:)``) bound to the model.
struct DictionaryQuery {
    /// One fetched column: the value at `path`, or `function` of it.
    struct Column {
        var name: String
        var path: BoundPath
        var kind: ValueKind
        var function: AggregateFunction?
    }
    /// One sort key: a fetched column (by its index) or a key path.
    enum Order {
        case column(Int, SortKey)
        case path(BoundSortKey)
    }
    var query: StoreQuery
    var columns: [Column]
    var groupBy: [BoundPath]
    /// Compared with the columns by name.
    var having: PredicateNode?
    var order: [Order]
    var distinct: Bool
}

/// One save's changes, as a store writes them.
struct SaveRequest {
    /// An updated object with the slots that changed.
    struct Update {
        let object: ManagedObject
        let changes: ChangedSlots
    }
    let policy: MergePolicy
    let inserted: [ManagedObject]
    let updated: [Update]
    let deleted: [ManagedObject]
    /// The saving context's ``ManagedObjectContext/transactionAuthor`` and name, recorded in
    /// the persistent history (History/).
    var author: String? = nil
    var contextName: String? = nil
}

/// What a save decided, applied to the context only after the store committed.
struct SaveOutcome {
    /// Primary keys of the inserted objects, by temporary ID.
    var keys = TemporaryKeys()
    /// Values and version of updated objects whose conflict the merge policy resolved
    /// (any other updated object keeps its values at version + 1).
    var resolved: [ObjectIdentifier: (values: ContiguousArray<SlotValue>, version: Int64)] = [:]
    /// Updated objects whose rows someone else deleted (resolved in favour of the delete).
    var vanished: [ManagedObject] = []
    /// The store recomputed stored values the context did not write (an Apple store's
    /// derived attributes): cached rows are stale.
    var recomputedRows = false
}

/// What a batch delete did.
struct BatchDeleteOutcome {
    var count: Int
    /// The selected IDs, when asked for (or when a predicate selected them).
    var listed: [ObjectID]
    /// Objects deleted by ID: the selection of a predicate, and what cascaded.
    var deleted: Set<ObjectID>
    /// Objects deleted by cascade rules beyond the selection, in the order found.
    var cascaded: [ObjectID]
    /// Whole entities deleted (no predicate), up to the last key handed out.
    var deletedEntities: EntityDeletion?
    /// Rows whose relationships nullify rules changed, as now stored.
    var nullified: [StoreRow]
}
