import Foundation
import ObjectGraph

/// The contexts of one `perform` block of a ``ContextManager``: the block's own context,
/// bound to the task that runs the block, and one context for each child task that uses the
/// class-level helpers (child tasks inherit the task-local that carries this object, but are
/// tasks of their own: they never share the parent's context).
///
/// Every context here is bound to its task for life. Child tasks' identities are held, so a
/// finished child's address is never taken by a new task that would then inherit its
/// context. The block's own context is dropped when the block ends (``close()``); a child
/// task's context lives as long as this object, which every task inheriting the task-local
/// holds: an unstructured `Task { }` started in the block keeps its context, and the objects
/// it fetched, until it ends, instead of having them released under it by the block's end.
final class TaskContexts: @unchecked Sendable {  // mutable state behind `lock`
    /// The task running the `perform` block.
    let owner: UInt
    private let lock = NSLock()
    private var context: ManagedObjectContext?
    private var children: [UInt: (task: TaskIdentity, context: ManagedObjectContext)] = [:]

    init(owner: TaskIdentity, context: ManagedObjectContext) {
        self.owner = owner.token
        context.bindForever(to: owner)
        self.context = context
    }

    /// The context of the task running now: the block's own for the owner while the block
    /// runs, a new or the earlier one for a child task (`make` creates it, also after the
    /// block has ended), nil for the owner after the block or outside any task.
    func contextForCurrentTask(make: () -> ManagedObjectContext) -> ManagedObjectContext? {
        guard let task = TaskIdentity.current else { return nil }
        let token = task.token
        return lock.withLock {
            if token == owner { return context }
            if let child = children[token] { return child.context }
            let child = make()
            child.bindForever(to: task)
            children[token] = (task, child)
            return child
        }
    }

    deinit {
        // The last holder of this object may be a child task's task-local storage, torn down
        // as that task ends: releasing the child's identity there (it keeps the task object
        // allocated) would free the task inside its own teardown. The children's identities
        // and contexts are released on another thread, after it.
        let children = self.children
        DispatchQueue.global().async { _ = children }
    }

    /// Ends the block: its own context is released. The children's contexts stay with this
    /// object, released when the last task holding it ends (a child still running may be
    /// using its context on another thread right now).
    func close() {
        let released = lock.withLock { () -> ManagedObjectContext? in
            defer { context = nil }
            return context
        }
        _ = released  // deinitialized here, outside the lock
    }
}
