/// A context operation on an object that does not exist or belongs elsewhere, or a save
/// whose `willSave()` hooks keep changing objects.
public struct ContextError: Error, CustomStringConvertible, Sendable {
    /// What kind of problem it is.
    public struct Code: Hashable, Sendable, CustomStringConvertible {
        let name: String
        /// No row exists for the object ID.
        public static let objectNotFound = Code(name: "objectNotFound")
        /// The object ID belongs to another store or model.
        public static let foreignObjectID = Code(name: "foreignObjectID")
        /// A save gave up because `willSave()` kept changing objects: after 100 rounds of
        /// hooks, ``ContextError/objectID`` still changed in the last one. Nothing was written.
        public static let saveDidNotSettle = Code(name: "saveDidNotSettle")
        /// An aggregate, distinct-values or dictionary fetch in a child context, while its
        /// parent (or a context above it) has unsaved changes the store's one statement could
        /// not include. Save the parents first, or fetch the objects and compute in memory.
        public static let unsavedChangesInParent = Code(name: "unsavedChangesInParent")
        public var description: String { name }
    }

    /// What kind of problem it is.
    public let code: Code
    /// The object ID concerned.
    public let objectID: ObjectID?
    /// What went wrong.
    public let message: String

    public var description: String { "Context error (\(code)): \(message)" }
}
