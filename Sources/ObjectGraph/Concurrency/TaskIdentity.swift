/// The identity of one running task, for confinement checks that must tell a task from its
/// children (which inherit task-local values, and so cannot be told apart by them).
///
/// Holding an identity keeps the task object allocated, so its address — the ``token`` — is
/// never reused by another task while the identity is held.
package struct TaskIdentity: Equatable, @unchecked Sendable {  // compared and held only, never used to act on the task
    private let task: UnsafeCurrentTask

    /// The task running now, or nil on a thread outside any task.
    package static var current: TaskIdentity? {
        withUnsafeCurrentTask { $0.map(TaskIdentity.init) }
    }

    /// A number identifying the running task among live tasks (its address), or 0 outside
    /// any task. Costs one thread-local read.
    package static var currentToken: UInt {
        withUnsafeCurrentTask { task in task.map(token(of:)) ?? 0 }
    }

    /// This task's token (see ``currentToken``).
    package var token: UInt { Self.token(of: task) }

    private static func token(of task: UnsafeCurrentTask) -> UInt {
        // `UnsafeCurrentTask` is one reference to the task object; its bits are the address.
        unsafeBitCast(task, to: UInt.self)
    }
}
