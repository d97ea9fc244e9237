import Foundation

extension ManagedObjectModel {
    /// The entity called `name`.
    ///
    /// ```swift
    /// let shift = try model.entity(named: "Shift")
    /// ```
    ///
    /// - Throws: ``ModelError`` `.unknownEntity` naming the entities the model has.
    public func entity(named name: String) throws -> EntityDescription {
        guard let entity = entitiesByName[name] else {
            throw ModelError(.unknownEntity, entity: name, "the model has no entity named \(name) (it has: \(entityNameList))")
        }
        return entity
    }

    /// The model's entity names, sorted and comma-separated, for messages.
    package var entityNameList: String {
        entities.map(\.name).sorted().joined(separator: ", ")
    }
}
