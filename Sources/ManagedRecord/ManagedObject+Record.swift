import Foundation
import ObjectGraph

/// Instance helpers of RHManagedObject: delete, clone, serialize, and moving an object to
/// the calling thread's context.
extension ManagedObject {
    /// Deletes the object from its context (applied at the next commit).
    public func delete() {
        managedObjectContext?.delete(self)
    }

    /// A new object of the same entity in the same context, with the same attribute values
    /// (relationships are not copied).
    public func clone() -> Self {
        guard let context = managedObjectContext else {
            preconditionFailure("ManagedRecord: clone() needs an object that belongs to a context")
        }
        let copy = Self(entity: entity, insertInto: context)
        for attribute in entity.attributes {
            try? copy.setValue(value(forKey: attribute.name), forKey: attribute.name)
        }
        return copy
    }

    /// The stored attributes as a JSON-ready dictionary, by name: UUIDs, URLs and dates
    /// (ISO 8601) as strings, data as base64, a `Codable` attribute as its JSON; attributes
    /// that are nil and relationships are left out unless `options` say otherwise.
    ///
    /// ```swift
    /// let json = try JSONSerialization.data(withJSONObject: john.serialize())
    /// let full = john.serialize(options: JSONExportOptions(relationships: .nested(depth: 1)))
    /// ```
    public func serialize(options: JSONExportOptions = JSONExportOptions(relationships: .omitted, includesNullValues: false)) -> [String: Any] {
        jsonObject(options: options)
    }

    /// The same object in the calling thread's context.
    ///
    /// Safe to call with an object that another thread is using: only what that thread's
    /// context publishes for it is read (``ManagedObjectContext/sharedState(of:)``), never
    /// its values or state.
    ///
    /// - Throws: ``RecordError`` when the object has uncommitted changes or was never
    ///   committed: commit first, then move it.
    public func inCurrentThreadContext() throws -> Self {
        // By the model of the object's entity (immutable, safe to read here): an object of a
        // model file's entity without a class is a plain ManagedObject, which no class
        // lookup finds.
        let manager = ManagedRecord.manager(ofEntity: entity) ?? ManagedRecord.manager(for: type(of: self))
        let context = manager.contextForCurrentThread
        switch context.sharedState(of: self) {
        case .registered: return self
        case .saved(let id): return unsafeDowncast(context.object(with: id), to: Self.self)
        case .unsavedChanges(let id): throw RecordError.unsaved(id, reason: "it has uncommitted changes")
        case .neverSaved: throw RecordError.unsaved(entity.name, reason: "it was never committed (its ID is temporary)")
        }
    }
}

extension Array where Element: ManagedObject {
    /// The same objects in the calling thread's context, in the same order.
    ///
    /// - Throws: ``RecordError`` if any object has unsaved changes or a temporary ID; no
    ///   object is ever dropped silently.
    public func inCurrentThreadContext() throws -> [Element] {
        try map { try $0.inCurrentThreadContext() }
    }
}

extension Set where Element: ManagedObject {
    /// The same objects in the calling thread's context.
    ///
    /// - Throws: ``RecordError`` if any object has unsaved changes or a temporary ID; no
    ///   object is ever dropped silently.
    public func inCurrentThreadContext() throws -> Set<Element> {
        Set(try map { try $0.inCurrentThreadContext() })
    }
}

extension Dictionary where Value: ManagedObject {
    /// The same objects in the calling thread's context, under the same keys (for example
    /// the result of `fetchDictionary(keyedBy:)` made on another thread).
    ///
    /// - Throws: ``RecordError`` if any object has unsaved changes or a temporary ID; no
    ///   object is ever dropped silently.
    public func inCurrentThreadContext() throws -> [Key: Value] {
        try mapValues { try $0.inCurrentThreadContext() }
    }
}

/// A ManagedRecord helper used in a way that would lose data.
public struct RecordError: Error, CustomStringConvertible, Sendable {
    public let objectID: ObjectID?
    public let message: String

    static func unsaved(_ id: ObjectID, reason: String) -> RecordError {
        RecordError(objectID: id, message: "\(id.entityName) \(id) cannot move to another thread's context: \(reason). Commit first, then call inCurrentThreadContext().")
    }

    static func unsaved(_ entityName: String, reason: String) -> RecordError {
        RecordError(objectID: nil, message: "A new \(entityName) cannot move to another thread's context: \(reason). Commit first, then call inCurrentThreadContext().")
    }

    public var description: String { "ManagedRecord error: \(message)" }
}
