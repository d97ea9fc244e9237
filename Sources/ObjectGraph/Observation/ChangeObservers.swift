import Synchronization

/// The coordinator's list of commit observers: callbacks and stream continuations, called
/// on the committing thread right after each commit.
///
/// Thread-safe: observers are added and removed from any thread under a mutex; the count
/// is atomic, so a commit with nobody observing costs one relaxed load.
final class ChangeObservers: Sendable {
    typealias Block = @Sendable (CommittedChanges) -> Void

    private let blocks = Locked<[Int: Block]>([:])
    private let nextToken = Atomic<Int>(0)
    private let count = Atomic<Int>(0)

    /// Whether anyone observes commits (one relaxed load).
    @inline(__always)
    var isObserved: Bool { count.load(ordering: .relaxed) > 0 }

    /// The number of observers now.
    var observerCount: Int { count.load(ordering: .relaxed) }

    /// Adds `block`; returns the token that removes it.
    func add(_ block: @escaping Block) -> Int {
        let token = nextToken.add(1, ordering: .relaxed).newValue
        blocks.withLock { list in
            list[token] = block
            count.store(list.count, ordering: .relaxed)
        }
        return token
    }

    func remove(_ token: Int) {
        blocks.withLock { list in
            list.removeValue(forKey: token)
            count.store(list.count, ordering: .relaxed)
        }
    }

    /// Calls every observer with `changes`, outside the lock (an observer may add or remove
    /// observers).
    func deliver(_ changes: CommittedChanges) {
        let list = blocks.withLock { Array($0.values) }
        for block in list { block(changes) }
    }
}
