/// A save that found rows changed (or deleted) by someone else since this context read them,
/// under the ``MergePolicy/error`` policy. Nothing was written; the context's changes are
/// still pending: refresh the objects, or choose another merge policy, and save again.
public struct MergeConflictError: Error, CustomStringConvertible, Sendable {
    /// One object whose row changed underneath.
    public struct Conflict: Sendable, CustomStringConvertible {
        /// The object whose row changed.
        public let objectID: ObjectID
        /// The version (`Z_OPT`) this context read.
        public let snapshotVersion: Int64
        /// The version in the store now, or nil when the row was deleted.
        public let storeVersion: Int64?

        public var description: String {
            let now = storeVersion.map { "is at version \($0)" } ?? "was deleted"
            return "\(objectID.entityName) \(objectID): read at version \(snapshotVersion), the store's row \(now)"
        }
    }

    /// Every conflicting object.
    public let conflicts: [Conflict]

    public var description: String {
        "Merge conflict on \(conflicts.count) object\(conflicts.count == 1 ? "" : "s"):\n" +
            conflicts.map { "- \($0)" }.joined(separator: "\n")
    }
}
