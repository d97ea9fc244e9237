/// What one commit wrote to the store: the IDs of the objects it inserted, updated and
/// deleted, and the keys that changed on each updated object. Delivered by
/// ``PersistentStoreCoordinator/changes`` (and ``PersistentContainer/changes``) to observers
/// on any thread, right after the transaction commits.
///
/// An immutable value: `Sendable`. Turn the IDs into objects in your own context with
/// ``ManagedObjectContext/object(with:)``; never pass objects between threads.
///
/// For example:
///
/// ```swift
/// for await change in container.changes {
///     print(change.inserted, change.updated, change.deleted)   // [ObjectID]
/// }
/// ```
public struct CommittedChanges: Sendable, CustomStringConvertible {
    /// Objects the commit inserted, with their permanent IDs.
    public var inserted: [ObjectID]
    /// Objects the commit changed (a save, or a batch update, or a nullify rule of a batch delete).
    public var updated: [ObjectID]
    /// Objects the commit deleted, by ID. A batch delete without a predicate lists no rows:
    /// it names the emptied entities in ``deletedEntities`` instead.
    public var deleted: [ObjectID]
    /// The names of the entities a batch delete without a predicate emptied (every object of
    /// them saved before the delete is gone); empty for other commits.
    public var deletedEntities: [String]
    /// For each updated object, the names of the properties that changed.
    public var changedKeys: [ObjectID: Set<String>]
    /// The name of the context that committed (``ManagedObjectContext/name``).
    public var contextName: String

    public var description: String {
        "\(contextName): inserted \(inserted.count), updated \(updated.count), deleted \(deleted.count)"
            + (deletedEntities.isEmpty ? "" : ", emptied \(deletedEntities.joined(separator: ", "))")
    }

    init(_ set: ChangeSet, contextName: String) {
        inserted = set.inserted
        updated = set.updated.map(\.id)
        deleted = set.deleted
        deletedEntities = set.deletedEntities.flatMap { $0.entities.map(\.name) }
        changedKeys = set.changes.changedKeys
        self.contextName = contextName
    }
}
