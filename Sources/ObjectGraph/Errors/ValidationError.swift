/// A save refused because objects are not valid: every problem found, reported together.
/// The store and the context's pending changes are as they were before the save.
public struct ValidationError: Error, CustomStringConvertible, Sendable {
    /// One problem with one object.
    public struct Problem: Error, CustomStringConvertible, Sendable {
        /// The object concerned.
        public let objectID: ObjectID?
        /// Its entity.
        public let entity: String
        /// The property concerned, if one.
        public let key: String?
        public let message: String

        /// A problem to throw from `validateForInsert()`, `validateForUpdate()` or
        /// `validateForDelete()`.
        public init(_ object: ManagedObject, key: String? = nil, _ message: String) {
            self.objectID = object.objectID
            self.entity = object.entity.name
            self.key = key
            self.message = message
        }

        public var description: String {
            "\(entity)\(key.map { ".\($0)" } ?? "") (\(objectID.map { "\($0)" } ?? "?")): \(message)"
        }
    }

    /// Every problem found.
    public let problems: [Problem]

    /// Several problems at once, to throw from a `validateFor...` override that finds more
    /// than one (the save reports them all, with every other object's).
    public init(problems: [Problem]) {
        self.problems = problems
    }

    public var description: String {
        "Validation failed with \(problems.count) problem\(problems.count == 1 ? "" : "s"):\n" +
            problems.map { "- \($0)" }.joined(separator: "\n")
    }
}
