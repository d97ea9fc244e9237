import Foundation

// What differs between the model a store was written with and another model, in words a
// person can act on, for errors that refuse to open the store.
extension StoreMetadata {
    /// The model this store was written with, rebuilt from the `contents` XML kept in its
    /// metadata (``describe(_:)``); nil when it keeps none or it cannot be read.
    var writtenModel: ManagedObjectModel? {
        guard let xml = modelContentsXML else { return nil }
        return try? ManagedObjectModel.reading(contentsXML: xml, file: URL(fileURLWithPath: "Z_METADATA"))
    }

    /// What differs between the model whose version hashes this metadata records and
    /// `model`, one phrase each: entities added or lacking, and for each entity whose version
    /// hash differs, what changed in it (attributes, relationships, parent, uniqueness
    /// constraints) when the store keeps its model, or that its version hash differs.
    func differences(from model: ManagedObjectModel) -> [String] {
        let written = writtenModel.flatMap { $0.matchesStoreVersionHashes(versionHashes) ? $0 : nil }
        var result: [String] = []
        for name in model.entityVersionHashesByName.keys.sorted() where versionHashes[name] == nil {
            result.append("the model adds the entity \(name)")
        }
        for name in versionHashes.keys.sorted() where model.entitiesByName[name] == nil {
            result.append("the model lacks the store's entity \(name)")
        }
        for entity in model.entities where versionHashes[entity.name].map({ $0 != entity.versionHash }) ?? false {
            let changes = written?.entitiesByName[entity.name].map { Self.changes(from: $0, to: entity) } ?? []
            result += changes.isEmpty ? ["\(entity.name) (its version hash differs)"] : changes
        }
        return result
    }

    /// What changed from `old` to `new` (one entity, by name).
    private static func changes(from old: EntityDescription, to new: EntityDescription) -> [String] {
        var result: [String] = []
        if old.superentity?.name != new.superentity?.name {
            result.append("\(new.name)'s parent entity is \(old.superentity?.name ?? "none") in the store, \(new.superentity?.name ?? "none") in the model")
        }
        if old.isAbstract != new.isAbstract {
            result.append("\(new.name) is \(old.isAbstract ? "" : "not ")abstract in the store")
        }
        let oldProperties = Dictionary(old.properties.filter { !$0.isTransient }.map { ($0.name, $0) }, uniquingKeysWith: { first, _ in first })
        let newProperties = Dictionary(new.properties.filter { !$0.isTransient }.map { ($0.name, $0) }, uniquingKeysWith: { first, _ in first })
        for name in newProperties.keys.sorted() where oldProperties[name] == nil {
            result.append("\(new.name).\(name) is new in the model")
        }
        for name in oldProperties.keys.sorted() where newProperties[name] == nil {
            result.append("\(new.name).\(name) is in the store but not in the model")
        }
        for name in newProperties.keys.sorted() {
            guard let before = oldProperties[name], let after = newProperties[name] else { continue }
            let property = "\(new.name).\(name)"
            if let before = before as? AttributeDescription, let after = after as? AttributeDescription {
                if before.attributeType != after.attributeType {
                    result.append("\(property) is \(before.attributeType.rawValue) in the store, \(after.attributeType.rawValue) in the model")
                }
            } else if let before = before as? RelationshipDescription, let after = after as? RelationshipDescription {
                if before.destinationEntity.name != after.destinationEntity.name || before.kind != after.kind {
                    result.append("\(property) is a \(before.kind) relationship to \(before.destinationEntity.name) in the store, a \(after.kind) relationship to \(after.destinationEntity.name) in the model")
                }
            } else {
                result.append("\(property) is \(before is AttributeDescription ? "an attribute" : "a relationship") in the store, \(after is AttributeDescription ? "an attribute" : "a relationship") in the model")
            }
            if before.isOptional != after.isOptional {
                result.append("\(property) is \(before.isOptional ? "optional" : "required") in the store, \(after.isOptional ? "optional" : "required") in the model")
            }
        }
        let constraints = { (entity: EntityDescription) in entity.fileDetails.uniquenessConstraints.map { "(" + $0.joined(separator: ", ") + ")" }.sorted() }
        if constraints(old) != constraints(new) {
            let describe = { (list: [String]) in list.isEmpty ? "none" : list.joined(separator: ", ") }
            result.append("\(new.name)'s uniqueness constraints are \(describe(constraints(old))) in the store, \(describe(constraints(new))) in the model")
        }
        return result
    }
}
