import Foundation

/// A model that cannot be built: a duplicate or unknown entity, a relationship whose
/// destination or inverse is missing, an entity whose class is not in the model.
public struct ModelError: Error, CustomStringConvertible, Sendable {
    /// What kind of problem it is.
    public struct Code: Hashable, Sendable, CustomStringConvertible {
        let name: String
        /// Two entities have the same name.
        public static let duplicateEntity = Code(name: "duplicateEntity")
        /// An entity declares a property its parent already has.
        public static let duplicateProperty = Code(name: "duplicateProperty")
        /// An entity (a parent, or one asked for by name) is not in the model.
        public static let unknownEntity = Code(name: "unknownEntity")
        /// A relationship's destination class is not in the model.
        public static let unknownDestination = Code(name: "unknownDestination")
        /// A relationship's inverse does not exist or does not point back.
        public static let invalidInverse = Code(name: "invalidInverse")
        /// An Xcode model file (`.xcdatamodeld`, `.xcdatamodel`, `contents`) cannot be read:
        /// it is missing, is not XML, or has an element this framework cannot load.
        public static let invalidModelFile = Code(name: "invalidModelFile")
        /// A uniqueness constraint names something that is not a stored attribute.
        public static let invalidUniquenessConstraint = Code(name: "invalidUniquenessConstraint")
        /// A Swift class given for an entity of a model file does not fit that entity.
        public static let classMismatch = Code(name: "classMismatch")
        /// An attribute's validation rule cannot be kept: a regular expression that is not
        /// valid, a minimum greater than the maximum, a bound of the wrong kind (a length on a
        /// number), or a rule on a type that takes none (Boolean, UUID, URI, Transformable).
        public static let invalidValidationRule = Code(name: "invalidValidationRule")
        /// An object of an abstract entity was asked for: an abstract entity has instances
        /// only through its sub-entities.
        public static let abstractEntity = Code(name: "abstractEntity")
        public var description: String { name }
    }

    /// What kind of problem it is.
    public let code: Code
    /// The entity concerned.
    public let entity: String?
    /// The property concerned.
    public let property: String?
    /// What is wrong and what to do about it.
    public let message: String
    /// The model file concerned, for ``Code/invalidModelFile``.
    public let file: URL?
    /// The element of the model file concerned (`<attribute name="price">`, line 12).
    public let element: String?

    package init(_ code: Code, entity: String? = nil, property: String? = nil, _ message: String, file: URL? = nil, element: String? = nil) {
        self.code = code
        self.entity = entity
        self.property = property
        self.message = message
        self.file = file
        self.element = element
    }

    /// An object of the abstract `entity` was asked for.
    static func abstract(_ entity: EntityDescription) -> ModelError {
        let concrete = entity.selfAndDescendants.filter { !$0.isAbstract }.map(\.name)
        return ModelError(.abstractEntity, entity: entity.name,
                          "\(entity.name) is abstract: it has objects only through its sub-entities; "
                            + (concrete.isEmpty ? "it has none that is not abstract" : "insert one of \(concrete.joined(separator: ", ")) instead"))
    }

    public var description: String {
        var subject = entity ?? "model"
        if let property { subject += ".\(property)" }
        var text = "Model error (\(code)) in \(subject)"
        if let file { text += ", file \(file.path)" }
        if let element { text += ", \(element)" }
        return text + ": \(message)"
    }
}
