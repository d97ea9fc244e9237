import Foundation
import ObjectGraph

/// RHManagedObject's questions about the entity and the calling thread's unsaved work.
extension Record where Self: ManagedObject {
    /// The entity this class stands for in its model. Touches no store.
    ///
    /// ```swift
    /// print(Employee.entityDescription.attributes.map(\.name))
    /// ```
    public static var entityDescription: EntityDescription {
        guard let entity = contextManager.model.entity(for: self) else {
            fatalError("ManagedRecord: \(self) is not an entity of model \(contextManager.name); add \(self).self to the entity list of setUp")
        }
        return entity
    }

    /// The type of the attribute named `key` (Core Data's `NSAttributeType`).
    ///
    /// ```swift
    /// let type = try Employee.attributeType(forKey: "age")   // .integer64
    /// ```
    ///
    /// - Throws: ``KeyValueError`` `.unknownKey` when the entity has no attribute of that
    ///   name (a relationship is not an attribute); the message lists the properties it has.
    public static func attributeType(forKey key: String) throws -> AttributeType {
        let entity = entityDescription
        guard let attribute = entity.property(named: key) as? AttributeDescription else {
            throw KeyValueError.unknownKey(key, entity: entity)
        }
        return attribute.attributeType
    }

    /// How many objects the calling thread's context would write at the next ``commit()``:
    /// inserted, changed and deleted objects of every entity. Touches no store.
    public static var pendingChangesCount: Int {
        let context = contextForCurrentThread
        return context.insertedObjects.count + context.updatedObjects.count + context.deletedObjects.count
    }
}
