import Foundation

/// How an `@Attribute` converts its Swift value to and from the stored form. Chosen by the
/// property wrapper's initializer: ``NativeAttributeCodec`` for ``AttributeValue`` types,
/// ``CodableAttributeCodec`` for any other `Codable` type.
public protocol AttributeCodec {
    /// The Swift type of the attribute.
    associatedtype Value
    /// The Core Data attribute type it is stored as.
    static var attributeType: AttributeType { get }
    /// Whether nil is a legal value.
    static var isOptional: Bool { get }
    /// The Swift value of a stored value, or nil when it does not fit.
    static func decode(_ value: SlotValue) -> Value?
    /// The stored form of a Swift value.
    static func encode(_ value: Value) -> SlotValue
}

/// Stores an ``AttributeValue`` type as its native Core Data attribute type.
public enum NativeAttributeCodec<Value: AttributeValue>: AttributeCodec {
    public static var attributeType: AttributeType { Value.attributeType }
    public static var isOptional: Bool { Value.isOptionalAttribute }
    @inlinable public static func decode(_ value: SlotValue) -> Value? { Value._decode(value) }
    @inlinable public static func encode(_ value: Value) -> SlotValue { value._encoded }
}

/// Stores any `Codable` value as a transformable attribute: a BLOB holding its JSON
/// encoding; `nil` (for an optional type) is stored as SQL NULL.
public enum CodableAttributeCodec<Value: Codable>: AttributeCodec {
    public static var attributeType: AttributeType { .transformable }
    public static var isOptional: Bool { Value.self is any OptionalValue.Type }

    public static func decode(_ value: SlotValue) -> Value? {
        switch value {
        case .null:
            return (Value.self as? any OptionalValue.Type)?.nilValue as? Value
        case .blob(let data):
            return try? JSONDecoder().decode(Value.self, from: data)
        default:
            return nil
        }
    }

    public static func encode(_ value: Value) -> SlotValue {
        if let optional = value as? any OptionalValue, optional.isNil { return .null }
        do {
            // Sorted keys: equal values give equal bytes, so setting an equal value is no change.
            let encoder = JSONEncoder()
            encoder.outputFormatting = [.sortedKeys]
            return .blob(try encoder.encode(value))
        } catch {
            preconditionFailure("ManagedRecord: cannot encode \(Value.self) for a transformable attribute: \(error)")
        }
    }
}

/// Lets generic code ask whether a value is `Optional.none` without knowing the wrapped type.
public protocol OptionalValue {
    var isNil: Bool { get }
    static var nilValue: Self { get }
    /// The wrapped value as `Any`, or nil.
    var unwrappedAny: Any? { get }
}

extension Optional: OptionalValue {
    public var isNil: Bool { self == nil }
    public static var nilValue: Optional<Wrapped> { nil }
    public var unwrappedAny: Any? { self.map { $0 as Any } }
}
