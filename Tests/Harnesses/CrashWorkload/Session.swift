import Foundation
import ManagedRecord

/// The objects of a store, by key, as one context sees them.
struct Graph {
    var ledger: Ledger
    var items: [String: Item]
    var buckets: [String: Bucket]
    var tags: [String: Tag]
}

/// The two ways the workload reaches the store: explicit contexts (`PersistentContainer`,
/// a background context, `save()`, a `BatchDeleteRequest`) and the class-level helpers
/// (`newEntity()`, `commit()`, `deleteAll(where:)`).
protocol Session {
    func fetchGraph() throws -> Graph?
    func newLedger() -> Ledger
    func newItem() -> Item
    func newBucket() -> Bucket
    func newTag() -> Tag
    func delete(_ object: ManagedObject)
    func save() throws
    /// Deletes every item whose amount is 0, in SQL; returns how many went.
    func batchDeleteZeroAmounts() throws -> Int
    /// Runs `body` where this session's context may be used.
    func run<T>(_ body: () throws -> T) rethrows -> T
}

/// Fetches every object of the workload through `fetch`, or nil for an empty store.
func graph(fetch: (ManagedObject.Type) throws -> [ManagedObject]) throws -> Graph? {
    let ledgers = try fetch(Ledger.self).map { $0 as! Ledger }
    guard let ledger = ledgers.first else { return nil }
    guard ledgers.count == 1 else { throw WorkloadFailure("the store holds \(ledgers.count) ledgers instead of 1") }
    func byKey<T: ManagedObject>(_ type: T.Type, _ key: (T) -> String) throws -> [String: T] {
        var result: [String: T] = [:]
        for object in try fetch(type) {
            let typed = object as! T
            guard result.updateValue(typed, forKey: key(typed)) == nil else {
                throw WorkloadFailure("two \(type) objects share the key \(key(typed))")
            }
        }
        return result
    }
    return Graph(ledger: ledger, items: try byKey(Item.self, \.key), buckets: try byKey(Bucket.self, \.key),
                 tags: try byKey(Tag.self, \.key))
}

final class ExplicitSession: Session {
    let container: PersistentContainer
    let context: ManagedObjectContext

    init(storeURL: URL) throws {
        container = try PersistentContainer(name: "Crash", entities: workloadEntities, storeURL: storeURL)
        context = container.newBackgroundContext()
    }

    func fetchGraph() throws -> Graph? {
        try graph { type in try context.fetch(FetchRequest<ManagedObject>(entityName: type.entityName)) }
    }
    func newLedger() -> Ledger { Ledger(context: context) }
    func newItem() -> Item { Item(context: context) }
    func newBucket() -> Bucket { Bucket(context: context) }
    func newTag() -> Tag { Tag(context: context) }
    func delete(_ object: ManagedObject) { context.delete(object) }
    func save() throws { try context.save() }
    func batchDeleteZeroAmounts() throws -> Int {
        try context.execute(BatchDeleteRequest(Item.self, predicate: try FetchPredicate("amount == 0"))).count
    }
    func run<T>(_ body: () throws -> T) rethrows -> T { try context.performAndWait(body) }
}

final class HelperSession: Session {
    init(storeURL: URL) throws {
        try ManagedRecord.setUp(model: "Crash", entities: workloadEntities, storeURL: storeURL)
    }

    func fetchGraph() throws -> Graph? {
        try graph { type in
            switch type {
            case is Ledger.Type: try Ledger.fetchAll()
            case is Item.Type: try Item.fetchAll()
            case is Bucket.Type: try Bucket.fetchAll()
            default: try Tag.fetchAll()
            }
        }
    }
    func newLedger() -> Ledger { Ledger.newEntity() }
    func newItem() -> Item { Item.newEntity() }
    func newBucket() -> Bucket { Bucket.newEntity() }
    func newTag() -> Tag { Tag.newEntity() }
    func delete(_ object: ManagedObject) { object.delete() }
    func save() throws { try Item.commit() }
    func batchDeleteZeroAmounts() throws -> Int { try Item.deleteAll(where: "amount == 0") }
    func run<T>(_ body: () throws -> T) rethrows -> T { try body() }
}

/// A check the workload or the verifier found broken.
struct WorkloadFailure: Error, CustomStringConvertible {
    let description: String
    init(_ description: String) { self.description = description }
}
