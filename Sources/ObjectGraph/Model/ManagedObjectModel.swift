import Crypto
import Foundation

/// A set of entities: the schema of an object graph.
///
/// Build one from Swift classes, as Core Data builds one from a model file:
///
/// ```swift
/// let model = try ManagedObjectModel(entities: [Department.self, Employee.self, Manager.self])
/// model.entitiesByName["Manager"]?.superentity?.name   // "Employee"
/// ```
///
/// A superclass of a listed class that is itself a `ManagedObject` subclass becomes an
/// entity too. Immutable once built; safe to share between threads and containers. Models
/// built again from the same classes share one set of entity descriptions (see
/// `EntityGraphCache`), so setting up a stack over and over does not grow memory.
public final class ManagedObjectModel: @unchecked Sendable {  // immutable after init
    /// Every entity, roots in alphabetical order, each followed by its sub-entities.
    public let entities: [EntityDescription]
    /// Entities by name.
    public let entitiesByName: [String: EntityDescription]
    /// Each entity's version hash, by entity name (what `Z_METADATA` stores): Core Data's
    /// `NSEntityDescription.versionHash`, byte for byte.
    public let entityVersionHashesByName: [String: Data]
    /// The hashes stores written by ManagedRecord before it computed Core Data's hashes hold
    /// for this model; such a store needs no migration either.
    let earlierEntityVersionHashesByName: [String: Data]
    /// Entities that declare uniqueness constraints (their sub-entities share them).
    let entitiesWithUniquenessConstraints: [EntityDescription]
    /// A SHA-256 over every entity's hash: equal for models of the same shape.
    public let versionHash: Data
    /// Free-form identifiers stored with the store's metadata (`NSStoreModelVersionIdentifiers`).
    public let versionIdentifiers: [String]
    private let entityByClass: [ObjectIdentifier: EntityDescription]
    /// For a model read from an `.xcdatamodeld` bundle: the versions before the current one,
    /// oldest first, which a migration walks through one by one. Set once, right after init.
    var earlierVersions: [ManagedObjectModel] = []

    /// Builds a model from `ManagedObject` subclasses.
    ///
    /// - Throws: ``ModelError`` when two classes share an entity name, a relationship points
    ///   at a class that is not in the model, or an inverse does not exist.
    public convenience init(entities classes: [ManagedObject.Type], versionIdentifiers: [String] = []) throws {
        var ordered: [ManagedObject.Type] = []
        var seen = Set<ObjectIdentifier>()
        func add(_ cls: ManagedObject.Type) {
            guard cls != ManagedObject.self, seen.insert(ObjectIdentifier(cls)).inserted else { return }
            if let parent = Self.managedSuperclass(of: cls) { add(parent) }
            ordered.append(cls)
        }
        classes.forEach(add)
        let entities = try EntityGraphCache.entities(for: ordered) {
            try Self.buildEntities(ordered.map { try EntitySpecification(managedClass: $0, parent: Self.managedSuperclass(of: $0)) })
        }
        self.init(builtEntities: entities, versionIdentifiers: versionIdentifiers)
    }

    private static func managedSuperclass(of cls: ManagedObject.Type) -> ManagedObject.Type? {
        ClassLayout.of(cls).managedSuperclass
    }

    convenience init(specifications: [EntitySpecification], versionIdentifiers: [String]) throws {
        self.init(builtEntities: try Self.buildEntities(specifications), versionIdentifiers: versionIdentifiers)
    }

    /// A model of `entities`, linked and in model order (what ``buildEntities(_:)`` returns).
    private init(builtEntities ordered: [EntityDescription], versionIdentifiers: [String]) {
        self.versionIdentifiers = versionIdentifiers
        entities = ordered
        var byName: [String: EntityDescription] = [:]
        var hashes: [String: Data] = [:]
        var earlier: [String: Data] = [:]
        var byClass: [ObjectIdentifier: EntityDescription] = [:]
        for entity in ordered {
            byName[entity.name] = entity
            hashes[entity.name] = entity.versionHash
            earlier[entity.name] = VersionHash.of(entity)
            // A class-less sub-entity of a model file shares its parent's class: the class
            // names the topmost entity that has it.
            if entity.managedClass != ManagedObject.self && entity.superentity?.managedClass != entity.managedClass {
                byClass[ObjectIdentifier(entity.managedClass)] = entity
            }
        }
        entitiesByName = byName
        entityVersionHashesByName = hashes
        earlierEntityVersionHashesByName = earlier
        entitiesWithUniquenessConstraints = ordered.filter { !$0.fileDetails.uniquenessConstraints.isEmpty }
        versionHash = VersionHash.of(modelHashes: hashes)
        entityByClass = byClass
    }

    /// The entities of `specifications`, linked (parents, properties, destinations, inverses,
    /// version hashes): roots in alphabetical order, each followed by its sub-entities.
    private static func buildEntities(_ specifications: [EntitySpecification]) throws -> [EntityDescription] {
        var byName: [String: EntityDescription] = [:]
        var specsByName: [String: EntitySpecification] = [:]
        for spec in specifications {
            guard byName[spec.name] == nil else {
                throw ModelError(.duplicateEntity, entity: spec.name, "two entities are named \(spec.name); override `class var entityName` on one of them")
            }
            byName[spec.name] = EntityDescription(name: spec.name, managedClass: spec.managedClass, isAbstract: spec.isAbstract)
            specsByName[spec.name] = spec
        }
        for spec in specifications {
            guard let parentName = spec.parent else { continue }
            guard let parent = byName[parentName] else {
                throw ModelError(.unknownEntity, entity: spec.name, "its parent entity \(parentName) is not in the model")
            }
            byName[spec.name]!.superentity = parent
            parent.subentities.append(byName[spec.name]!)
        }
        for entity in byName.values { entity.subentities.sort { $0.name < $1.name } }
        let roots = byName.values.filter { $0.superentity == nil }.sorted { $0.name < $1.name }
        let ordered = roots.flatMap(\.selfAndDescendants)
        for (index, entity) in ordered.enumerated() {
            entity.index = index
            entity.rootStorage = entity.rootEntity
        }

        // Properties, parents before children so inherited slots come first.
        for entity in ordered {
            let spec = specsByName[entity.name]!
            try Self.buildProperties(of: entity, from: spec)
            entity.fileDetails = spec.fileDetails
            for name in spec.fileDetails.uniquenessConstraints.joined() {
                guard let attribute = entity.propertiesByName[name] as? AttributeDescription, !attribute.isTransient else {
                    throw ModelError(.invalidUniquenessConstraint, entity: entity.name, property: name,
                                     "a uniqueness constraint names \(name), which is not a stored attribute of \(entity.name)")
                }
            }
            for property in entity.properties where property.entity === entity {
                if let details = spec.propertyFileDetails[property.name] { property.fileDetails = details }
                if let attribute = property as? AttributeDescription, let rules = spec.attributeRules[property.name], !rules.isEmpty {
                    let validator = try AttributeValidator(rules, type: attribute.attributeType, entity: entity.name, attribute: attribute.name)
                    attribute.validator = validator
                    attribute.validationRules = validator.rules
                }
            }
            entity.validatedAttributes = entity.attributes.filter { $0.validator != nil }
            entity.countedRelationships = entity.relationships.filter { relationship in
                relationship.isToMany && (relationship.fileDetails.minCount > 0 || (relationship.fileDetails.maxCount ?? 0) > 0)
            }
        }
        // Destinations and inverses.
        var declaredInverses: [(RelationshipDescription, String)] = []
        for entity in ordered {
            for case .relationship(let name, _, let destination, let inverse, _, _) in specsByName[entity.name]!.properties {
                let relationship = entity.propertiesByName[name] as! RelationshipDescription
                guard let target = byName[destination] else {
                    throw ModelError(.unknownDestination, entity: entity.name, property: name,
                                     "its destination \(destination) is not in the model; add \(destination).self to the entity list")
                }
                relationship.destinationEntity = target
                if let inverse { declaredInverses.append((relationship, inverse)) }
            }
        }
        for (relationship, inverseName) in declaredInverses {
            guard let inverse = relationship.destinationEntity.propertiesByName[inverseName] as? RelationshipDescription else {
                throw ModelError(.invalidInverse, entity: relationship.entity.name, property: relationship.name,
                                 "its inverse \(inverseName) is not a relationship of \(relationship.destinationEntity.name)")
            }
            guard relationship.entity.isKind(of: inverse.destinationEntity) || inverse.destinationEntity.isKind(of: relationship.entity) else {
                throw ModelError(.invalidInverse, entity: relationship.entity.name, property: relationship.name,
                                 "its inverse \(inverse) points at \(inverse.destinationEntity.name), not at \(relationship.entity.name)")
            }
            if let existing = inverse.inverseRelationship, existing !== relationship {
                throw ModelError(.invalidInverse, entity: relationship.entity.name, property: relationship.name,
                                 "\(inverse) is already the inverse of \(existing)")
            }
            relationship.inverseRelationship = inverse
            inverse.inverseRelationship = relationship
        }

        for entity in ordered { entity.versionHash = CoreDataVersionHash.of(entity) }
        return ordered
    }

    private static func buildProperties(of entity: EntityDescription, from spec: EntitySpecification) throws {
        var properties = entity.superentity?.properties ?? []
        for property in spec.properties {
            guard !properties.contains(where: { $0.name == property.name }) else {
                throw ModelError(.duplicateProperty, entity: entity.name, property: property.name,
                                 "a property of this name is already declared (or inherited)")
            }
            let slot = properties.count
            switch property {
            case let .attribute(name, type, isOptional, isTransient, defaultValue, conversion):
                properties.append(AttributeDescription(name: name, type: type, isOptional: isOptional, isTransient: isTransient,
                                                       slot: slot, entity: entity, defaultValue: defaultValue, conversion: conversion))
            case let .relationship(name, kind, _, _, deleteRule, isOptional):
                properties.append(RelationshipDescription(name: name, kind: kind, deleteRule: deleteRule,
                                                          isOptional: isOptional, slot: slot, entity: entity))
            }
        }
        entity.properties = properties
        entity.attributes = properties.compactMap { $0 as? AttributeDescription }
        entity.relationships = properties.compactMap { $0 as? RelationshipDescription }
        entity.requiredProperties = properties.filter { property in
            guard !property.isOptional, !property.isTransient else { return false }
            return (property as? RelationshipDescription)?.isToMany != true
        }
        entity.denyRelationships = entity.relationships.filter { $0.deleteRule == .deny }
        for property in properties { entity.propertiesByName[property.name] = property }
        entity.attributeAtSlot = properties.map { $0 as? AttributeDescription }
        entity.relationshipAtSlot = properties.map { $0 as? RelationshipDescription }
        entity.newObjectTemplate = ContiguousArray(properties.map { property in
            (property as? RelationshipDescription)?.isToMany == true ? .objects([]) : .null
        })
        entity.defaultValueMakers = properties.compactMap { property -> (slot: Int, make: () -> SlotValue)? in
            guard let make = (property as? AttributeDescription)?.defaultValue else { return nil }
            return (property.slot, make)
        }.sorted { $0.slot < $1.slot }
        entity.wrapperCount = spec.wrapperCount
        entity.slotByOrdinal = Array(repeating: -1, count: Int(spec.wrapperCount))
        entity.nameByOrdinal = Array(repeating: "?", count: Int(spec.wrapperCount))
        for (name, ordinal) in spec.ordinals {
            guard let slot = entity.propertiesByName[name]?.slot else { continue }
            entity.slotByOrdinal[Int(ordinal)] = slot
            entity.nameByOrdinal[Int(ordinal)] = name
        }
    }

    /// Whether a store whose metadata holds `hashes` was written with this model (Core
    /// Data's rule: every entity's version hash equal, no entity more or less).
    func matchesStoreVersionHashes(_ hashes: [String: Data]) -> Bool {
        hashes == entityVersionHashesByName || hashes == earlierEntityVersionHashesByName
    }

    /// The entity whose class is `managedClass`, if it is in this model.
    public func entity(for managedClass: ManagedObject.Type) -> EntityDescription? {
        entityByClass[ObjectIdentifier(managedClass)]
    }
}

/// The version hashes ManagedRecord wrote before it computed Core Data's (still recognised
/// in stores it wrote then), and the model-wide hash.
enum VersionHash {
    static func of(_ entity: EntityDescription) -> Data {
        var text = "entity:\(entity.name);parent:\(entity.superentity?.name ?? "");abstract:\(entity.isAbstract)"
        for property in entity.properties.sorted(by: { $0.name < $1.name }) where !property.isTransient {
            if let attribute = property as? AttributeDescription {
                text += ";attribute:\(attribute.name):\(attribute.attributeType.rawValue):\(attribute.isOptional)"
            } else if let relationship = property as? RelationshipDescription {
                text += ";relationship:\(relationship.name):\(relationship.destinationEntity.name):\(relationship.kind.rawValue):\(relationship.inverseRelationship?.name ?? "")"
            }
        }
        return Data(SHA256.hash(data: Data(text.utf8)))
    }

    static func of(modelHashes: [String: Data]) -> Data {
        var hasher = SHA256()
        for name in modelHashes.keys.sorted() {
            hasher.update(data: Data(name.utf8))
            hasher.update(data: modelHashes[name]!)
        }
        return Data(hasher.finalize())
    }
}
