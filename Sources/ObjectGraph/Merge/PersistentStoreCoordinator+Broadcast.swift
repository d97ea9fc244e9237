import Foundation

// A save's change set handed to the other contexts on the coordinator: posted into the
// inbox of each one that merges changes (it merges at its next access), then told to the
// coordinator's commit observers.
extension PersistentStoreCoordinator {
    /// Calls `body` with the inbox of every context that merges changes, under the lock.
    func forEachMergingInbox(_ body: (MergeInbox) -> Void) {
        inboxes.withLock {
            for inbox in $0.values where inbox.mergesChanges { body(inbox) }
        }
    }

    /// Posts a saved change set to the inbox of every other context that merges changes, then
    /// tells the commit observers (outside the lock).
    func broadcast(_ changes: ChangeSet, from origin: ManagedObjectContext) {
        var wakeUps: [@Sendable () -> Void] = []
        inboxes.withLock {
            for (key, inbox) in $0 where key != ObjectIdentifier(origin) && inbox.mergesChanges {
                if let wakeUp = inbox.post(changes) { wakeUps.append(wakeUp) }
            }
        }
        for wakeUp in wakeUps { wakeUp() }
        if changeObservers.isObserved { changeObservers.deliver(CommittedChanges(changes, contextName: origin.name)) }
    }
}
