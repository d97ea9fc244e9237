import Foundation

// Commits of other processes on a shared (server) store, turned into the change sets local
// saves broadcast, so contexts that merge changes merge them alike.
extension PersistentStoreCoordinator {
    /// The name ``CommittedChanges/contextName`` carries for a commit of another process.
    static let remoteContextName = "(another process)"

    /// Posts a change set committed elsewhere (another process on the same server store) to
    /// every context that merges changes, then tells the commit observers. The row cache
    /// forgets the rows it names first.
    func broadcastRemote(_ changes: ChangeSet) {
        rowCache.remove(changes.deleted + changes.updated.map(\.id))
        for deletion in changes.deletedEntities { rowCache.remove(deletion) }
        var wakeUps: [@Sendable () -> Void] = []
        forEachMergingInbox { inbox in
            if let wakeUp = inbox.post(changes) { wakeUps.append(wakeUp) }
        }
        for wakeUp in wakeUps { wakeUp() }
        if changeObservers.isObserved { changeObservers.deliver(CommittedChanges(changes, contextName: Self.remoteContextName)) }
    }

    /// Changes were made elsewhere that cannot be listed (the server store's listener lost
    /// its connection, or a commit changed too much to name): the row cache is emptied, and
    /// every context that merges changes turns its registered objects without unsaved
    /// changes into faults at its next access, so they read their rows again.
    func refreshEverything() {
        rowCache.removeAll()
        var wakeUps: [@Sendable () -> Void] = []
        forEachMergingInbox { inbox in
            if let wakeUp = inbox.postRefreshAll() { wakeUps.append(wakeUp) }
        }
        for wakeUp in wakeUps { wakeUp() }
    }
}
