import Foundation

/// A property of an entity: an attribute or a relationship.
///
/// Immutable once its model is built; safe to share between threads.
public class PropertyDescription: @unchecked Sendable, CustomStringConvertible {
    /// The property's name, as declared (`firstName`).
    public let name: String
    /// Whether nil (or an empty to-one) is allowed at save.
    public let isOptional: Bool
    /// Whether the property is kept in memory only.
    public let isTransient: Bool
    /// The index of this property's value in an object's slot buffer.
    let slot: Int
    /// The entity that declares the property (a superentity for inherited ones).
    public internal(set) unowned(unsafe) var entity: EntityDescription
    /// What a model file says beyond the schema (user info, renaming identifier, version
    /// hash modifier, transformer, derivation, counts); empty for Swift-declared properties.
    public internal(set) var fileDetails = PropertyFileDetails()

    init(name: String, isOptional: Bool, isTransient: Bool, slot: Int, entity: EntityDescription) {
        self.name = name
        self.isOptional = isOptional
        self.isTransient = isTransient
        self.slot = slot
        self.entity = entity
    }

    public var description: String { "\(entity.name).\(name)" }
}

/// An attribute: a value of one of Core Data's attribute types.
public final class AttributeDescription: PropertyDescription, @unchecked Sendable {
    public let attributeType: AttributeType
    let defaultValue: (() -> SlotValue)?
    let conversion: ValueConversion
    /// The minimum, maximum and regular expression a save checks the value against (from a
    /// model file, or `@Attribute(.range(...))`, `.length(...)`, `.pattern(...)`); empty when
    /// there are none.
    public internal(set) var validationRules = AttributeValidationRules()
    /// The rules resolved for the attribute's type; nil when there are none.
    var validator: AttributeValidator?

    init(name: String, type: AttributeType, isOptional: Bool, isTransient: Bool, slot: Int,
         entity: EntityDescription, defaultValue: (() -> SlotValue)?, conversion: ValueConversion) {
        self.attributeType = type
        self.defaultValue = defaultValue
        self.conversion = conversion
        super.init(name: name, isOptional: isOptional, isTransient: isTransient, slot: slot, entity: entity)
    }
}

/// A relationship to another entity, with its inverse and delete rule.
public final class RelationshipDescription: PropertyDescription, @unchecked Sendable {
    public let kind: RelationshipKind
    public let deleteRule: DeleteRule
    /// The entity at the other end.
    public internal(set) var destinationEntity: EntityDescription!
    /// The relationship at the other end that mirrors this one, if the model names one.
    public internal(set) var inverseRelationship: RelationshipDescription?

    public var isToMany: Bool { kind.isToMany }
    public var isOrdered: Bool { kind == .orderedToMany }

    init(name: String, kind: RelationshipKind, deleteRule: DeleteRule, isOptional: Bool, slot: Int, entity: EntityDescription) {
        self.kind = kind
        self.deleteRule = deleteRule
        super.init(name: name, isOptional: isOptional, isTransient: false, slot: slot, entity: entity)
    }

    /// A to-many whose inverse is to-one is stored as the inverse's foreign key; any other
    /// to-many (many-to-many, or no inverse) needs a join table.
    var usesJoinTable: Bool {
        guard isToMany else { return false }
        guard let inverse = inverseRelationship else { return true }
        return inverse.isToMany
    }
}
