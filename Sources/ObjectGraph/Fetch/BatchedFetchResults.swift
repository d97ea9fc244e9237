import Foundation
import OrderedCollections

/// The result of ``ManagedObjectContext/fetchBatched(_:)``: the matching objects in order,
/// whose values load `fetchBatchSize` at a time (one query per batch) as they are reached.
/// Only the IDs and the current batch are held, so iterating a million rows keeps a bounded
/// number of objects in memory (plus whatever the caller keeps).
///
/// Confined like its context: use it on the context's thread.
///
/// ```swift
/// var request = FetchRequest<Employee>()
/// request.fetchBatchSize = 500
/// for employee in try context.fetchBatched(request) { total += employee.salary }
/// ```
public struct BatchedFetchResults<Result: ManagedObject>: RandomAccessCollection {
    /// The IDs of every matching object, in order.
    public let objectIDs: [ObjectID]
    /// How many objects each batch loads.
    public let batchSize: Int
    private let context: ManagedObjectContext
    private let cache = BatchCache()

    init(objectIDs: [ObjectID], batchSize: Int, context: ManagedObjectContext) {
        self.objectIDs = objectIDs
        self.batchSize = Swift.max(1, batchSize)
        self.context = context
    }

    public var startIndex: Int { 0 }
    public var endIndex: Int { objectIDs.count }

    /// The object at `position`, loading its batch when it is not loaded yet.
    public subscript(position: Int) -> Result {
        let batch = position / batchSize
        if cache.batch != batch {
            let start = batch * batchSize
            let ids = OrderedSet(objectIDs[start..<Swift.min(objectIDs.count, start + batchSize)])
            cache.objects = []                       // release the previous batch first
            cache.objects = context.objects(with: ids)
            cache.batch = batch
        }
        let object = context.object(with: objectIDs[position])
        return unsafeDowncast(object, to: Result.self)
    }
}

/// The objects of the batch last reached, kept alive while it is in use.
private final class BatchCache {
    var batch = -1
    var objects: [ManagedObject] = []
}

extension ManagedObjectContext {
    /// The objects `request` selects as a collection that faults them in batches of
    /// ``FetchRequest/fetchBatchSize`` (all at once when it is 0): one query for the IDs,
    /// then one per batch as it is reached.
    ///
    /// With unsaved changes to the entity (and `includesPendingChanges`), the matching
    /// objects are found with a full fetch first; save, or set `includesPendingChanges` to
    /// false, to keep memory bounded.
    public func fetchBatched<T: ManagedObject>(_ request: FetchRequest<T>) throws -> BatchedFetchResults<T> {
        let ids = try fetchObjectIDs(request)
        return BatchedFetchResults(objectIDs: ids, batchSize: request.fetchBatchSize > 0 ? request.fetchBatchSize : max(1, ids.count), context: self)
    }
}
