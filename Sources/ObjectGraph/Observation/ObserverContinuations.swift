import Synchronization

/// The continuations of the streams an observation hands out, removable from any thread
/// (a stream's termination runs on whichever thread cancels the consuming task).
final class ObserverContinuations<Element: Sendable>: Sendable {
    private let continuations = Locked<[Int: AsyncStream<Element>.Continuation]>([:])
    private let nextToken = Atomic<Int>(0)

    /// A new stream fed by ``yield(_:)`` until ``finish()`` or until its consumer stops.
    func makeStream() -> AsyncStream<Element> {
        let (stream, continuation) = AsyncStream.makeStream(of: Element.self)
        let token = nextToken.add(1, ordering: .relaxed).newValue
        continuations.withLock { $0[token] = continuation }
        continuation.onTermination = { [weak self] _ in
            _ = self?.continuations.withLock { $0.removeValue(forKey: token) }
        }
        return stream
    }

    var isEmpty: Bool { continuations.withLock { $0.isEmpty } }

    var count: Int { continuations.withLock { $0.count } }

    func yield(_ element: Element) {
        for continuation in continuations.withLock({ Array($0.values) }) { continuation.yield(element) }
    }

    /// Ends every stream (their `for await` loops finish).
    func finish() {
        for continuation in continuations.withLock({ Array($0.values) }) { continuation.finish() }
    }
}
