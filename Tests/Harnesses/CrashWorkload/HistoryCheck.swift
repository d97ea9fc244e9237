import Foundation
import ManagedRecord

// The persistent history after a kill (`CrashWorkload torture ... history`): the children's
// saves and batch deletes record history in the same transaction as their rows, so after
// any kill every transaction has its changes, every change its transaction, and replaying
// the history's inserts and deletes gives exactly the objects the store holds.

/// Creates the store with persistent history on, before the first child (the children then
/// record history because the store has the tables).
func createHistoryStore(_ storeURL: URL) throws {
    guard !FileManager.default.fileExists(atPath: storeURL.path) else { return }
    let container = try PersistentContainer(name: "Crash", entities: workloadEntities, storeURL: storeURL, options: [.persistentHistory])
    container.persistentStoreCoordinator.close()
}

/// Checks the history of the store `container` opened; returns false when it records none.
func verifyHistory(_ container: PersistentContainer, context: ManagedObjectContext) throws -> Bool {
    guard container.recordsHistory else { return false }
    let transactions = try container.history(after: nil)
    if let empty = transactions.first(where: { $0.changes.isEmpty }) {
        throw WorkloadFailure("HISTORY: transaction \(empty.token.transactionNumber) has no changes")
    }
    var live = Set<ObjectID>()
    for change in transactions.flatMap(\.changes) {
        let id = change.changedObjectID
        switch change.changeType {
        case .insert:
            guard live.insert(id).inserted else { throw WorkloadFailure("HISTORY: \(id) inserted twice") }
        case .delete:
            guard live.remove(id) != nil else { throw WorkloadFailure("HISTORY: \(id) deleted but never inserted") }
        case .update:
            guard live.contains(id) else { throw WorkloadFailure("HISTORY: \(id) updated but not alive") }
        }
    }
    var stored = Set<ObjectID>()
    for entity in workloadEntities {
        let ids = try context.fetch(FetchRequest<ManagedObject>(entityName: entity.entityName)).map(\.objectID)
        stored.formUnion(ids)
    }
    guard live == stored else {
        let missing = stored.subtracting(live).prefix(3), extra = live.subtracting(stored).prefix(3)
        throw WorkloadFailure("HISTORY: the history's objects are not the store's: in the store without their insert \(Array(missing)), inserted in the history but not in the store \(Array(extra))")
    }
    return true
}
