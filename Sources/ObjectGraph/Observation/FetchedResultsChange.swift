/// What ``FetchedResults`` tells its observers after a save or merge changed them.
public enum FetchedResultsChange: Sendable {
    /// The results changed by these index operations (see ``FetchedResultsDiff`` for the
    /// order in which to apply them).
    case changes(FetchedResultsDiff)
    /// More objects changed in one commit than ``FetchedResults/reloadThreshold``, or the
    /// results were refetched after the context reset: read ``FetchedResults/sections``
    /// afresh instead of applying item changes one by one (RHManagedObject's mass update).
    case reload
    /// Refetching failed (the store was closed, or a read failed): the results keep their
    /// previous contents; the error says what went wrong.
    case failed(FetchedResultsError)
}

/// Why ``FetchedResults`` could not bring itself up to date.
public struct FetchedResultsError: Error, Sendable, CustomStringConvertible {
    /// What failed, and the underlying error's description.
    public let message: String

    public var description: String { message }
}
