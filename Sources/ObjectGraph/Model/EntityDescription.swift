import Foundation

private let everyEntity = Locked<[EntityDescription]>([])

/// An entity: a named kind of managed object with its attributes and relationships, an
/// optional superentity and sub-entities, and the Swift class that represents it
/// (`ManagedObject` itself for an entity that has no class of its own).
///
/// Immutable once its ``ManagedObjectModel`` is built; safe to share between threads.
public final class EntityDescription: @unchecked Sendable, Hashable, CustomStringConvertible {
    /// The entity's name (`Employee`).
    public let name: String
    /// The class instantiated for objects of this entity.
    public let managedClass: ManagedObject.Type
    /// The parent entity, whose properties this one inherits and whose table it shares.
    public internal(set) var superentity: EntityDescription?
    /// Direct sub-entities, by name.
    public internal(set) var subentities: [EntityDescription] = []
    /// All properties, inherited ones first, in slot order.
    public internal(set) var properties: [PropertyDescription] = []
    /// Whether the entity may have instances of its own (false for an abstract parent).
    public let isAbstract: Bool
    /// A SHA-256 over the entity's name, parent and stored properties: the same shape gives
    /// the same hash, in every run.
    public internal(set) var versionHash = Data()
    /// What a model file says beyond the schema: user info, renaming identifier, version
    /// hash modifier, uniqueness constraints, fetch indexes, the class name Xcode recorded.
    public internal(set) var fileDetails = EntityFileDetails()

    /// The root entity, stored for hashing object IDs (unowned: the model keeps it alive).
    unowned(unsafe) var rootStorage: EntityDescription?
    var root: EntityDescription { rootStorage.unsafelyUnwrapped }
    /// Position in the model's entity list.
    var index = 0
    var propertiesByName: [String: PropertyDescription] = [:]
    /// Attributes by slot (nil where the slot holds a relationship).
    @exclusivity(unchecked) var attributeAtSlot: [AttributeDescription?] = []
    /// Relationships by slot (nil where the slot holds an attribute).
    @exclusivity(unchecked) var relationshipAtSlot: [RelationshipDescription?] = []
    /// Slot of each property wrapper, indexed by the wrapper's ordinal in `managedClass`.
    @exclusivity(unchecked) var slotByOrdinal: [Int] = []
    /// Property names by wrapper ordinal, for messages.
    var nameByOrdinal: [String] = []
    /// The number of property wrappers an instance initializes (checked for each object).
    @exclusivity(unchecked) var wrapperCount: Int32 = 0
    /// Values of a new object before its defaults are evaluated (empty to-many sets, nil).
    @exclusivity(unchecked) var newObjectTemplate: ContiguousArray<SlotValue> = []
    /// Default-value expressions, evaluated for each inserted object.
    @exclusivity(unchecked) var defaultValueMakers: [(slot: Int, make: () -> SlotValue)] = []

    /// The values of a newly inserted object: defaults evaluated now.
    func newObjectValues() -> ContiguousArray<SlotValue> {
        // A fresh buffer rather than a copy-on-write copy of the template (see SQLiteRowCodec.decode).
        // One pass in slot order: each slot from its default-value expression or from the
        // template, written once (`defaultValueMakers` is in slot order).
        let template = newObjectTemplate
        let makers = defaultValueMakers
        var values = ContiguousArray<SlotValue>()
        values.reserveCapacity(template.count)
        var next = 0
        for slot in template.indices {
            if next < makers.count, makers[next].slot == slot {
                values.append(makers[next].make())
                next += 1
            } else {
                values.append(template[slot])
            }
        }
        return values
    }

    init(name: String, managedClass: ManagedObject.Type, isAbstract: Bool = false) {
        self.name = name
        self.managedClass = managedClass
        self.isAbstract = isAbstract
        self.rootStorage = nil
        self.rootStorage = self
        // Object IDs refer to their entity without a reference count, and may outlive the
        // model: every entity lives as long as the process (models built from the same
        // classes share their entities, see EntityGraphCache, so this stays bounded).
        everyEntity.withLock { $0.append(self) }
    }

    /// The entity the objects of prototypes are given while a class is being reflected.
    static let prototypeEntity = EntityDescription(name: "(prototype)", managedClass: ManagedObject.self)

    /// Attributes, including inherited ones.
    public internal(set) var attributes: [AttributeDescription] = []
    /// Relationships, including inherited ones.
    public internal(set) var relationships: [RelationshipDescription] = []
    /// Properties a save requires a value for (non-optional, stored).
    var requiredProperties: [PropertyDescription] = []
    /// Relationships with the deny delete rule.
    var denyRelationships: [RelationshipDescription] = []
    /// Attributes with validation rules (inherited ones included), checked at save.
    var validatedAttributes: [AttributeDescription] = []
    /// To-many relationships with a minimum or maximum count, checked at save.
    var countedRelationships: [RelationshipDescription] = []
    /// The property named `name`, inherited or own.
    public func property(named name: String) -> PropertyDescription? { propertiesByName[name] }

    /// The topmost superentity (itself when it has none): the entity whose table stores it.
    public var rootEntity: EntityDescription {
        var entity = self
        while let parent = entity.superentity { entity = parent }
        return entity
    }

    /// This entity followed by every sub-entity below it, depth first.
    public var selfAndDescendants: [EntityDescription] {
        [self] + subentities.flatMap(\.selfAndDescendants)
    }

    /// Whether this entity is `other` or one of its sub-entities.
    public func isKind(of other: EntityDescription) -> Bool {
        var entity: EntityDescription? = self
        while let current = entity {
            if current === other { return true }
            entity = current.superentity
        }
        return false
    }

    public var description: String { name }

    public static func == (lhs: EntityDescription, rhs: EntityDescription) -> Bool { lhs === rhs }
    public func hash(into hasher: inout Hasher) { hasher.combine(ObjectIdentifier(self)) }
}
