import Foundation
import ObjectGraph

/// The class-level API of RHManagedObject, available on every `ManagedObject` subclass once
/// its model is set up with ``ManagedRecord/setUp(model:entities:storeURL:seedStore:mergePolicy:)``.
///
/// Each helper works on the calling thread's hidden context (see ``ContextManager``) and is a
/// thin wrapper over the ObjectGraph API, which stays usable with explicit contexts.
public protocol Record: AnyObject {}

extension ManagedObject: Record {}

extension Record where Self: ManagedObject {
    /// The manager of this class's model.
    public static var contextManager: ContextManager { ManagedRecord.manager(for: self) }

    /// The calling thread's context for this class's model.
    public static var contextForCurrentThread: ManagedObjectContext { contextManager.contextForCurrentThread }

    /// A new object inserted into the calling thread's context.
    ///
    /// ```swift
    /// let e = Employee.newEntity()
    /// ```
    public static func newEntity() -> Self {
        let context = contextForCurrentThread
        guard let entity = context.managedObjectModel.entity(for: self) else {
            fatalError("ManagedRecord: \(self) is not an entity of model \(contextManager.name)")
        }
        return Self(entity: entity, insertInto: context)
    }

    /// A fetch request for this class's entity. Sub-entities are included as
    /// `includesSubentities` says, or, when it is nil, as
    /// ``ManagedObject/shouldFetchRequestsReturnSubentities`` says.
    public static func fetchRequest(sortedBy sortKeys: [SortKey] = [], limit: Int = 0,
                                    includesSubentities: Bool? = nil) -> FetchRequest<Self> {
        var request = FetchRequest<Self>()
        request.sortDescriptors = sortKeys
        request.fetchLimit = limit
        request.includesSubentities = includesSubentities ?? shouldFetchRequestsReturnSubentities
        return request
    }

    /// Every object of the entity (the first `limit` when above 0), in the calling thread's
    /// context.
    ///
    /// ```swift
    /// let firstFive = try Employee.fetchAll(sortedBy: [SortKey("lastName")], limit: 5)
    /// let plain = try Employee.fetchAll(includesSubentities: false)   // no Managers
    /// ```
    public static func fetchAll(sortedBy sortKeys: [SortKey] = [], limit: Int = 0, includesSubentities: Bool? = nil) throws -> [Self] {
        try contextForCurrentThread.fetch(fetchRequest(sortedBy: sortKeys, limit: limit, includesSubentities: includesSubentities))
    }

    /// The first object of the entity in `sortKeys` order (any one without them), or nil when
    /// there is none: a fetch limited to one.
    public static func get(sortedBy sortKeys: [SortKey] = [], includesSubentities: Bool? = nil) throws -> Self? {
        try fetchAll(sortedBy: sortKeys, limit: 1, includesSubentities: includesSubentities).first
    }

    /// The number of objects of the entity (one `SELECT COUNT(*)`).
    public static func count() throws -> Int {
        try contextForCurrentThread.count(for: fetchRequest())
    }

    /// Saves the calling thread's context. Afterwards the changes reach the main context and
    /// every other live context of the model. Throws, never only logs; after a failure the
    /// changes are still pending, to fix and retry or roll back.
    public static func commit() throws {
        try contextManager.commit(contextForCurrentThread)
    }

    /// Discards the calling thread's unsaved changes.
    public static func rollback() {
        contextForCurrentThread.rollback()
    }

    /// Reverts the calling thread's most recent group of uncommitted changes (see
    /// ``ContextManager/undoEnabled``).
    public static func undo() {
        contextForCurrentThread.undo()
    }

    /// Fetches on a background context, off the calling thread, and returns the objects in
    /// the caller's context (loaded with one query, not one per object): the main context
    /// when called from main-actor or top-level code, the task's context inside `perform`.
    /// It runs in the caller's isolation (`nonisolated(nonsending)`), so the objects come
    /// back where the caller resumes.
    nonisolated(nonsending)
    public static func fetchInBackground(sortedBy sortKeys: [SortKey] = [], limit: Int = 0) async throws -> [Self] {
        try await fetchInBackground(request: fetchRequest(sortedBy: sortKeys, limit: limit))
    }

    /// Runs `request` on a background context and returns the objects in the caller's context.
    nonisolated(nonsending)
    static func fetchInBackground(request: FetchRequest<Self>) async throws -> [Self] {
        let manager = contextManager
        let ids = try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<[ObjectID], Error>) in
            DispatchQueue.global().async {
                let context = manager.newBackgroundContext()
                continuation.resume(with: Result { try context.performAndWait { try context.fetchObjectIDs(request) } })
            }
        }
        return contextForCurrentThread.objects(for: ids).map { unsafeDowncast($0, to: Self.self) }
    }

    /// Deletes the store (with `-wal` and `-shm`), resets every context and starts a new,
    /// empty store on next use.
    public static func deleteStore() throws {
        try contextManager.deleteStore()
    }

    /// Whether the store on disk was written by another version of the model.
    public static func doesRequireMigration() throws -> Bool {
        try contextManager.doesRequireMigration()
    }

    /// Runs `block` with a context bound to the running task, so class-level helpers keep
    /// working after an `await` resumes on another thread. Call `commit()` inside the block.
    public static func perform<T>(_ block: sending () async throws -> T) async rethrows -> sending T {
        try await contextManager.perform(block)
    }
}
