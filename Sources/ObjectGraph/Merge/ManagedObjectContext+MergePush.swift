import Dispatch

// Pushing other contexts' saves into an idle main-queue context that someone observes.
extension ManagedObjectContext {
    /// A main-queue context with `.objectsDidChange` observers (fetched results, object
    /// observations, your own) merges another context's save as soon as the main queue runs,
    /// without waiting for its next access; any other context merges at its owner's next
    /// access (or ``processPendingChanges()``), as before. Called whenever observers change.
    func updateMergePush() {
        let wanted = announcesObjectChanges && concurrencyType == .mainQueue
        guard wanted != pushesMerges else { return }
        pushesMerges = wanted
        guard wanted else {
            inbox.wakeUp = nil
            return
        }
        let reference = WeakContextReference(self)
        // Called by the saving thread, outside every lock; the merge itself runs on the main
        // queue, the context's own. The block holds the context only weakly until it runs.
        inbox.wakeUp = { DispatchQueue.main.async { reference.context?.mergePushedChanges() } }
        // Saves that arrived before the observer did are merged too.
        if inbox.hasWaiting { DispatchQueue.main.async { reference.context?.mergePushedChanges() } }
    }

    /// On the main queue: merges what waits, unless the context is busy elsewhere right now
    /// (bound to a task, or inside another thread's `perform`), in which case its next access
    /// merges and the next save wakes it again.
    private func mergePushedChanges() {
        guard guardian.isAllowed() else {
            inbox.wakeUpMissed()
            return
        }
        if inbox.hasWaiting { drainInbox() }
    }
}

extension ManagedObjectContext {
    /// After a child context on another thread saved into this context (under its perform
    /// lock): an observed main-queue context announces the change on the main queue, as it
    /// merges other contexts' saves there, so fetched results on it follow the child's save
    /// without waiting for the next access. Any other context announces it at its owner's
    /// next ``processPendingChanges()`` (every fetch and save calls it).
    ///
    /// Called, outside the lock, only for a context that pushes merges (`pushesMerges`, read
    /// under the lock by the caller).
    func announceChildSaveOnMainQueue() {
        let reference = WeakContextReference(self)
        DispatchQueue.main.async { reference.context?.announceChildSave() }
    }

    /// On the main queue: announces what a child's save changed, under the context's perform
    /// lock even though the main queue owns the context: the child's save ran under that lock
    /// on another thread, and taking it orders that save's writes before these reads (the
    /// owner's confinement check alone does not; ThreadSanitizer saw it). A context bound to
    /// a task announces at that task's next access instead.
    private func announceChildSave() {
        guard !guardian.isBoundToTask else { return }
        guardian.perform("context '\(name)'") { processPendingChanges() }
    }
}

/// A context held without keeping it alive, for blocks scheduled on its queue.
final class WeakContextReference: Sendable {
    weak let context: ManagedObjectContext?

    init(_ context: ManagedObjectContext) {
        self.context = context
    }
}
