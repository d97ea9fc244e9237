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
///
/// A value JSON cannot encode (a `Double.nan` or an infinity inside it) is kept in memory,
/// so the property reads back what was set, but a save refuses it with a
/// ``ValidationError`` naming the attribute; nothing is written.
public enum CodableAttributeCodec<Value: Codable>: AttributeCodec {
    public static var attributeType: AttributeType { .transformable }
    public static var isOptional: Bool { Value.self is any OptionalValue.Type }

    public static func decode(_ value: SlotValue) -> Value? {
        switch value {
        case .null:
            return (Value.self as? any OptionalValue.Type)?.nilValue as? Value
        case .blob(let data):
            if let refused = RefusedValue(data) { return try? RefusedValue.decoder.decode(Value.self, from: refused.json) }
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
            return .blob(RefusedValue.blob(value, reason: "\(error)"))
        }
    }
}

/// The in-memory form of a `Codable` value its JSON encoder refused: a marker no JSON text
/// starts with, the reason, and the value encoded with non-finite numbers as strings (so it
/// reads back as set). Validation finds the marker and refuses the save; it never reaches
/// a store.
struct RefusedValue {
    private static let marker = Data("\u{0}ManagedRecord refused value\u{0}".utf8)
    let reason: String
    let json: Data

    private static let nonFinite = (positiveInfinity: "+Infinity", negativeInfinity: "-Infinity", nan: "NaN")
    static var decoder: JSONDecoder {
        let decoder = JSONDecoder()
        decoder.nonConformingFloatDecodingStrategy = .convertFromString(
            positiveInfinity: nonFinite.positiveInfinity, negativeInfinity: nonFinite.negativeInfinity, nan: nonFinite.nan)
        return decoder
    }

    /// The refused form of `value`. When even the lenient encoding fails, the JSON part is
    /// empty and the property reads as its default value until it is set again.
    static func blob<Value: Encodable>(_ value: Value, reason: String) -> Data {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys]
        encoder.nonConformingFloatEncodingStrategy = .convertToString(
            positiveInfinity: nonFinite.positiveInfinity, negativeInfinity: nonFinite.negativeInfinity, nan: nonFinite.nan)
        let json = (try? encoder.encode(value)) ?? Data()
        return marker + Data(reason.utf8) + Data([0]) + json
    }

    /// The parts of a refused form, or nil for any other blob.
    init?(_ data: Data) {
        guard data.first == 0, data.starts(with: Self.marker) else { return nil }
        let rest = data.dropFirst(Self.marker.count)
        guard let end = rest.firstIndex(of: 0) else { return nil }
        reason = String(decoding: rest[..<end], as: UTF8.self)
        json = Data(rest[rest.index(after: end)...])
    }
}

extension SlotValue {
    /// Why the value cannot be stored, when it is a `Codable` value its encoder refused.
    var refusedEncodingReason: String? {
        guard case .blob(let data) = self, data.first == 0 else { return nil }
        return RefusedValue(data)?.reason
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
