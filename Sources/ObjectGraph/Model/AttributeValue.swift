import Foundation

/// A Swift type that can be stored in an attribute as one of Core Data's attribute types.
///
/// Bool, Int, Int16, Int32, Int64, Double, Float, Decimal, String, Date, Data, UUID and URL
/// conform, and so does `Optional` of each. Any other `Codable` type can be used too: it is
/// stored as a transformable attribute (a BLOB holding its JSON encoding).
public protocol AttributeValue {
    /// The Core Data attribute type this Swift type is stored as.
    static var attributeType: AttributeType { get }
    /// Whether nil is a legal value (true for `Optional`).
    static var isOptionalAttribute: Bool { get }
    /// Converts a stored value back; nil when the stored value does not fit this type.
    static func _decode(_ value: SlotValue) -> Self?
    /// Converts to the stored representation.
    var _encoded: SlotValue { get }
}

extension AttributeValue {
    public static var isOptionalAttribute: Bool { false }
}

extension Bool: AttributeValue {
    public static var attributeType: AttributeType { .boolean }
    @inlinable
    public static func _decode(_ value: SlotValue) -> Bool? { if case .int(let v) = value { return v != 0 } else { return nil } }
    @inlinable
    public var _encoded: SlotValue { .int(self ? 1 : 0) }
}

extension Int: AttributeValue {
    public static var attributeType: AttributeType { .integer64 }
    @inlinable
    public static func _decode(_ value: SlotValue) -> Int? { if case .int(let v) = value { return Int(v) } else { return nil } }
    @inlinable
    public var _encoded: SlotValue { .int(Int64(self)) }
}

extension Int64: AttributeValue {
    public static var attributeType: AttributeType { .integer64 }
    @inlinable
    public static func _decode(_ value: SlotValue) -> Int64? { if case .int(let v) = value { return v } else { return nil } }
    @inlinable
    public var _encoded: SlotValue { .int(self) }
}

extension Int32: AttributeValue {
    public static var attributeType: AttributeType { .integer32 }
    @inlinable
    public static func _decode(_ value: SlotValue) -> Int32? { if case .int(let v) = value { return Int32(truncatingIfNeeded: v) } else { return nil } }
    @inlinable
    public var _encoded: SlotValue { .int(Int64(self)) }
}

extension Int16: AttributeValue {
    public static var attributeType: AttributeType { .integer16 }
    @inlinable
    public static func _decode(_ value: SlotValue) -> Int16? { if case .int(let v) = value { return Int16(truncatingIfNeeded: v) } else { return nil } }
    @inlinable
    public var _encoded: SlotValue { .int(Int64(self)) }
}

extension Double: AttributeValue {
    public static var attributeType: AttributeType { .double }
    @inlinable
    public static func _decode(_ value: SlotValue) -> Double? {
        switch value {
        case .double(let v): return v
        case .int(let v): return Double(v)
        default: return nil
        }
    }
    @inlinable
    public var _encoded: SlotValue { .double(self) }
}

extension Float: AttributeValue {
    public static var attributeType: AttributeType { .float }
    @inlinable
    public static func _decode(_ value: SlotValue) -> Float? { Double._decode(value).map(Float.init) }
    @inlinable
    public var _encoded: SlotValue { .double(Double(self)) }
}

extension Decimal: AttributeValue {
    public static var attributeType: AttributeType { .decimal }
    @inlinable
    public static func _decode(_ value: SlotValue) -> Decimal? {
        switch value {
        case .decimal(let v): return v
        case .double(let v): return Decimal.fromStored(v)
        case .int(let v): return Decimal(v)
        default: return nil
        }
    }
    @inlinable
    public var _encoded: SlotValue { .decimal(self) }
}

extension Decimal {
    /// A Decimal read back from a REAL column (SQLite, and PostgreSQL schemas written before
    /// Decimals were `numeric`), rounded to the 15 significant digits a Double holds exactly,
    /// so `12.34` comes back as `12.34` rather than `12.339999...`. Rounding to 15 digits
    /// also reads the doubles older versions wrote (through `NSDecimalNumber.doubleValue`,
    /// which is often an ulp or two off on Linux) as the Decimals that were saved.
    ///
    /// So a SQLite store keeps exactly the Decimals of at most 15 significant digits; a save
    /// refuses any other (``SlotValue/unstorableReason(decimals:)``), as it refuses NaN.
    @usableFromInline
    static func fromStored(_ double: Double) -> Decimal {
        guard double.isFinite else { return Decimal(double) }
        // The 15 digits and the exponent, written out in plain notation: `Decimal(string:)`
        // reads plain digits exactly, but gives nil for `3.5e+140`, whose exponent is past
        // its own range until the digits are shifted (found by ValueOracleTests).
        let scientific = String(format: "%.14e", double)        // "-3.56343141000000e+140"
        guard let marker = scientific.firstIndex(of: "e"), let power = Int(scientific[scientific.index(after: marker)...]) else {
            return Decimal(double)
        }
        let negative = scientific.hasPrefix("-")
        var digits = scientific[..<marker].filter(\.isWholeNumber)
        while digits.count > 1 && digits.last == "0" { digits.removeLast() }
        let exponent = power - (digits.count - 1)              // value = digits × 10^exponent
        let plain: String
        if exponent >= 0 {
            plain = digits + String(repeating: "0", count: exponent)
        } else if digits.count > -exponent {
            plain = digits.dropLast(-exponent) + "." + digits.suffix(-exponent)
        } else {
            plain = "0." + String(repeating: "0", count: -exponent - digits.count) + digits
        }
        return Decimal(string: (negative ? "-" : "") + plain) ?? Decimal(double)
    }

    /// The double nearest to the Decimal (its text parsed by `strtod`, correctly rounded;
    /// `NSDecimalNumber.doubleValue` is not on Linux), as a REAL column stores it.
    @usableFromInline
    var storedDouble: Double { Double(description) ?? NSDecimalNumber(decimal: self).doubleValue }
}

extension String: AttributeValue {
    public static var attributeType: AttributeType { .string }
    @inlinable
    public static func _decode(_ value: SlotValue) -> String? { if case .text(let v) = value { return v } else { return nil } }
    @inlinable
    public var _encoded: SlotValue { .text(self) }
}

extension Date: AttributeValue {
    public static var attributeType: AttributeType { .date }
    @inlinable
    public static func _decode(_ value: SlotValue) -> Date? {
        switch value {
        case .double(let v): return Date(timeIntervalSinceReferenceDate: v)
        case .int(let v): return Date(timeIntervalSinceReferenceDate: Double(v))
        default: return nil
        }
    }
    @inlinable
    public var _encoded: SlotValue { .double(timeIntervalSinceReferenceDate) }
}

extension Data: AttributeValue {
    public static var attributeType: AttributeType { .binary }
    @inlinable
    public static func _decode(_ value: SlotValue) -> Data? { if case .blob(let v) = value { return v } else { return nil } }
    @inlinable
    public var _encoded: SlotValue { .blob(self) }
}

extension UUID: AttributeValue {
    public static var attributeType: AttributeType { .uuid }
    @inlinable
    public static func _decode(_ value: SlotValue) -> UUID? {
        switch value {
        case .uuid(let v): return v
        case .blob(let data) where data.count == 16: return UUID(blobData: data)
        case .text(let text): return UUID(uuidString: text)
        default: return nil
        }
    }
    @inlinable
    public var _encoded: SlotValue { .uuid(self) }
}

extension UUID {
    @usableFromInline
    init(blobData data: Data) {
        var bytes: uuid_t = (0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0)
        withUnsafeMutableBytes(of: &bytes) { raw in _ = data.copyBytes(to: raw.bindMemory(to: UInt8.self)) }
        self.init(uuid: bytes)
    }

    @usableFromInline
    var blobData: Data { withUnsafeBytes(of: uuid) { Data($0) } }
}

extension URL: AttributeValue {
    public static var attributeType: AttributeType { .uri }
    @inlinable
    public static func _decode(_ value: SlotValue) -> URL? {
        switch value {
        case .url(let v): return v
        case .text(let v): return URL(string: v)
        default: return nil
        }
    }
    @inlinable
    public var _encoded: SlotValue { .url(self) }
}

extension Optional: AttributeValue where Wrapped: AttributeValue {
    public static var attributeType: AttributeType { Wrapped.attributeType }
    public static var isOptionalAttribute: Bool { true }
    @inlinable
    public static func _decode(_ value: SlotValue) -> Optional<Wrapped>? {
        if value.isNull { return .some(nil) }
        return Wrapped._decode(value).map { .some($0) }
    }
    @inlinable
    public var _encoded: SlotValue { self?._encoded ?? .null }
}
