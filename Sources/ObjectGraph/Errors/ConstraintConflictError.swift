/// A save that would leave two objects of an entity with equal values for one of its
/// uniqueness constraints (Core Data's `NSConstraintConflict`). Nothing was written; the
/// context's changes are still pending: change or delete one of the objects and save again.
public struct ConstraintConflictError: Error, CustomStringConvertible, Sendable {
    /// One saved object whose constrained values another object already has.
    public struct Conflict: Sendable, CustomStringConvertible {
        /// The entity that declares the constraint (its sub-entities share it).
        public let entity: String
        /// The constrained attributes.
        public let constraint: [String]
        /// The object being saved.
        public let objectID: ObjectID
        /// The objects with the same values: rows in the store, or objects of the same save
        /// (by the IDs this context knows them by).
        public let conflictingObjectIDs: [ObjectID]

        public var description: String {
            "\(objectID.entityName) \(objectID) has the same \(constraint.joined(separator: " + ")) as \(conflictingObjectIDs.map { "\($0)" }.joined(separator: ", ")) (uniqueness constraint of \(entity))"
        }
    }

    /// Every conflict the save found.
    public let conflicts: [Conflict]

    public var description: String {
        "Uniqueness constraint conflict on \(conflicts.count) object\(conflicts.count == 1 ? "" : "s"):\n" +
            conflicts.map { "- \($0)" }.joined(separator: "\n")
    }
}
