import Foundation

/// What a property wrapper declares, recorded once per class when its entity is built.
@usableFromInline
enum PropertyBlueprint {
    case attribute(AttributeBlueprint)
    case relationship(RelationshipBlueprint)
}

@usableFromInline
struct AttributeBlueprint {
    var attributeType: AttributeType
    var isOptional: Bool
    var isTransient: Bool
    /// Evaluated for each newly inserted object (so `UUID()` gives each its own).
    var defaultValue: () -> SlotValue
    var conversion: ValueConversion
    /// Declared `@Attribute(.unique)`: a one-attribute uniqueness constraint.
    var isUnique: Bool
    /// Declared `@Attribute(originalName:)`: the attribute's name in an earlier model version.
    var originalName: String?
    /// Declared `@Attribute(.range(...))`, `.length(...)`, `.pattern(...)`.
    var validationRules: AttributeValidationRules

    @usableFromInline
    init(attributeType: AttributeType, isOptional: Bool, isTransient: Bool, defaultValue: @escaping () -> SlotValue,
         conversion: ValueConversion, isUnique: Bool = false, originalName: String? = nil,
         validationRules: AttributeValidationRules = AttributeValidationRules()) {
        self.originalName = originalName
        self.validationRules = validationRules
        self.attributeType = attributeType
        self.isOptional = isOptional
        self.isTransient = isTransient
        self.defaultValue = defaultValue
        self.conversion = conversion
        self.isUnique = isUnique
    }
}

@usableFromInline
struct RelationshipBlueprint {
    var kind: RelationshipKind
    var destination: ManagedObject.Type
    var inverse: InverseSpecification?
    var deleteRule: DeleteRule
}

/// How the inverse of a relationship was named in its declaration.
enum InverseSpecification {
    case name(String)
    /// A key path to the inverse's projected value (`\Employee.$department`) and its root class.
    case keyPath(AnyKeyPath, ManagedObject.Type)
}

/// Converts between an attribute's stored value and the `Any` that key-based access uses.
@usableFromInline
struct ValueConversion {
    var toAny: (SlotValue) -> Any?
    /// nil when `value` is not of the attribute's type.
    var fromAny: (Any?) -> SlotValue?
    var swiftTypeName: String

    @usableFromInline
    static func codec<C: AttributeCodec>(_ codec: C.Type) -> ValueConversion {
        ValueConversion(
            toAny: { stored in
                guard let value = C.decode(stored) else { return nil }
                if let optional = value as? any OptionalValue { return optional.unwrappedAny }
                return value
            },
            fromAny: { value in
                if let typed = value as? C.Value { return C.encode(typed) }
                if value == nil, C.isOptional, let none = C.decode(.null) { return C.encode(none) }
                return nil
            },
            swiftTypeName: String(describing: C.Value.self))
    }

    /// The conversion for an attribute that has no Swift class behind it (an Xcode model).
    static func dynamic(_ type: AttributeType) -> ValueConversion {
        switch type {
        case .integer16: return widenedInteger(Int16.self, type)
        case .integer32: return widenedInteger(Int32.self, type)
        case .integer64: return widenedInteger(Int64.self, type)
        case .boolean: return .codec(NativeAttributeCodec<Bool?>.self)
        case .double: return .codec(NativeAttributeCodec<Double?>.self)
        case .float: return .codec(NativeAttributeCodec<Float?>.self)
        case .decimal: return .codec(NativeAttributeCodec<Decimal?>.self)
        case .string: return .codec(NativeAttributeCodec<String?>.self)
        case .date: return .codec(NativeAttributeCodec<Date?>.self)
        case .binary, .transformable: return .codec(NativeAttributeCodec<Data?>.self)
        case .uuid: return .codec(NativeAttributeCodec<UUID?>.self)
        case .uri: return .codec(NativeAttributeCodec<URL?>.self)
        }
    }

    /// Integers read back as their declared width and accept any Swift integer that fits.
    private static func widenedInteger<I: FixedWidthInteger & AttributeValue>(_: I.Type, _ type: AttributeType) -> ValueConversion {
        ValueConversion(
            toAny: { value in if case .int(let v) = value { return I(truncatingIfNeeded: v) } else { return nil } },
            fromAny: { value in
                switch value {
                case nil: return .null
                case let v as Int: return I(exactly: v).map { _ in .int(Int64(v)) }
                case let v as Int64: return I(exactly: v).map { _ in .int(v) }
                case let v as Int32: return I(exactly: v).map { _ in .int(Int64(v)) }
                case let v as Int16: return .int(Int64(v))
                default: return nil
                }
            },
            swiftTypeName: type.swiftTypeName)
    }
}
