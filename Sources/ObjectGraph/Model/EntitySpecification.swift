import Foundation

/// What a model builder needs to know about one entity, however it was declared (Swift
/// classes or an Xcode model file). ``ManagedObjectModel`` turns a list of these into
/// linked ``EntityDescription``s.
struct EntitySpecification {
    enum Property {
        case attribute(name: String, type: AttributeType, isOptional: Bool, isTransient: Bool,
                       defaultValue: (() -> SlotValue)?, conversion: ValueConversion)
        case relationship(name: String, kind: RelationshipKind, destination: String, inverse: String?,
                          deleteRule: DeleteRule, isOptional: Bool)

        var name: String {
            switch self {
            case .attribute(let name, _, _, _, _, _), .relationship(let name, _, _, _, _, _): return name
            }
        }
    }

    var name: String
    var managedClass: ManagedObject.Type
    var parent: String?
    var isAbstract = false
    /// Own properties, in declaration order.
    var properties: [Property]
    /// Wrapper ordinals of the class's properties (own and inherited), by name.
    var ordinals: [String: Int32] = [:]
    var wrapperCount: Int32 = 0
    /// What a model file says beyond the schema, for the entity and by property name.
    var fileDetails = EntityFileDetails()
    var propertyFileDetails: [String: PropertyFileDetails] = [:]
    /// Validation rules by attribute name (a model file's, or `@Attribute` options').
    var attributeRules: [String: AttributeValidationRules] = [:]
}

extension EntitySpecification {
    /// The specification of a `ManagedObject` subclass, from its reflected layout.
    init(managedClass: ManagedObject.Type, parent: ManagedObject.Type?) throws {
        let layout = ClassLayout.of(managedClass)
        self.name = managedClass.entityName
        self.managedClass = managedClass
        self.parent = parent?.entityName
        self.properties = try layout.ownProperties.map { property in
            switch property.blueprint {
            case .attribute(let a):
                return .attribute(name: property.name, type: a.attributeType, isOptional: a.isOptional,
                                  isTransient: a.isTransient, defaultValue: a.defaultValue, conversion: a.conversion)
            case .relationship(let r):
                var inverseName: String?
                switch r.inverse {
                case .name(let name)?: inverseName = name
                case .keyPath(let keyPath, let root)?:
                    guard let name = ClassLayout.of(root).propertyName(for: keyPath) else {
                        throw ModelError(.invalidInverse, entity: managedClass.entityName, property: property.name,
                                         "its inverse key path does not lead to a @Relationship of \(root.entityName); write it as \\\(root).$name")
                    }
                    inverseName = name
                case nil: inverseName = nil
                }
                return .relationship(name: property.name, kind: r.kind, destination: r.destination.entityName,
                                     inverse: inverseName, deleteRule: r.deleteRule, isOptional: true)
            }
        }
        for property in layout.propertiesByOrdinal.values { ordinals[property.name] = property.ordinal }
        wrapperCount = layout.wrapperCount
        // Uniqueness constraints: the class's own `@Attribute(.unique)`s and its entity-level
        // list (a subclass inherits the class property; its entity inherits the constraint).
        for property in layout.ownProperties {
            if case .attribute(let attribute) = property.blueprint, attribute.isUnique { fileDetails.uniquenessConstraints.append([property.name]) }
            if case .attribute(let attribute) = property.blueprint, let original = attribute.originalName {
                propertyFileDetails[property.name, default: PropertyFileDetails()].renamingIdentifier = original
            }
            if case .attribute(let attribute) = property.blueprint, !attribute.validationRules.isEmpty {
                attributeRules[property.name] = attribute.validationRules
            }
        }
        let declared = managedClass.uniquenessConstraints
        if let parent, parent.uniquenessConstraints == declared {} else { fileDetails.uniquenessConstraints += declared }
    }
}
