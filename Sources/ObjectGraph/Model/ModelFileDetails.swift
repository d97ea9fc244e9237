import Foundation

/// What an Xcode model file records about an entity beyond its properties. Swift-declared
/// entities leave it empty.
public struct EntityFileDetails: Sendable, Hashable {
    /// `representedClassName` as Xcode wrote it (`Car`, `.Car`, `MyApp.Car`); informative
    /// only: the class used is the one given to ``ManagedObjectModel/init(contentsOf:classes:)``.
    public var className: String?
    /// The entity's `userInfo` entries.
    public var userInfo: [String: String] = [:]
    /// The renaming identifier (Xcode's `elementID`): the entity's former name.
    public var renamingIdentifier: String?
    /// Xcode's "Version Hash Modifier".
    public var versionHashModifier: String?
    /// Each constraint is a list of attribute names whose values together are unique (from
    /// the file, or from `@Attribute(.unique)` and `class var uniquenessConstraints`).
    public var uniquenessConstraints: [[String]] = []
    /// The entity's fetch indexes.
    public var fetchIndexes: [FetchIndexDescription] = []
}

/// A fetch index declared in a model file: named, over one or more properties.
public struct FetchIndexDescription: Sendable, Hashable {
    /// One indexed property and its order.
    public struct Element: Sendable, Hashable {
        public var property: String
        public var ascending: Bool

        public init(property: String, ascending: Bool = true) {
            self.property = property
            self.ascending = ascending
        }
    }
    public var name: String
    public var elements: [Element]

    public init(name: String, elements: [Element]) {
        self.name = name
        self.elements = elements
    }
}

/// What an Xcode model file records about a property beyond its type and flags.
public struct PropertyFileDetails: Sendable, Hashable {
    /// The property's `userInfo` entries.
    public var userInfo: [String: String] = [:]
    /// The renaming identifier (Xcode's `elementID`): the property's former name.
    public var renamingIdentifier: String?
    /// Xcode's "Version Hash Modifier".
    public var versionHashModifier: String?
    /// The default value as the file spells it (`defaultValueString`).
    public var defaultValueString: String?
    /// A transformable attribute's value transformer name (`NSSecureUnarchiveFromData`, ...).
    /// Key-based access runs the ``AttributeValueTransformer`` registered under this name
    /// (``AttributeValueTransformers``), and shows the stored `Data` when none is.
    public var valueTransformerName: String?
    /// A transformable attribute's custom class name (`customClassName`).
    public var customClassName: String?
    /// A derived attribute's expression (`derivationExpression`). The store's value is read;
    /// the expression is kept, not evaluated (see docs/modelling.md).
    public var derivationExpression: String?
    /// A relationship's minimum count, as the file states it (0: none).
    public var minCount = 0
    /// A relationship's maximum count as the file states it (0: no limit); nil when the file
    /// gives none (1 for a to-one, no limit for a to-many).
    public var maxCount: Int?
    /// "Allows External Storage" (`allowsExternalBinaryDataStorage`): part of the version hash;
    /// the value itself is read from the column only.
    public var allowsExternalBinaryDataStorage = false
    /// "Preserve After Deletion" in persistent history (`preserveAfterDeletion`): part of the
    /// version hash.
    public var preservesValueInHistoryOnDeletion = false
    /// Whether the property is indexed (the older `indexed="YES"` flag).
    public var isIndexed = false
}
