import Foundation

/// An attribute's validation rules, as Xcode's "Validation" section of the Data Model
/// inspector states them (or `@Attribute(.range(...))`, `.length(...)`, `.pattern(...)`):
/// a minimum and a maximum, and for a string a regular expression. A save refuses an object
/// whose value breaks one with a ``ValidationError`` (see docs/modelling.md, "Validation
/// rules").
///
/// A nil value is never checked against them (a non-optional attribute's nil is refused as
/// missing). The bounds are inclusive. Validation rules are not part of the version hash, as
/// in Core Data: changing them needs no migration.
public struct AttributeValidationRules: Sendable, Hashable {
    /// The smallest value allowed: a number (Integer, Double, Float, Decimal), a date, or
    /// for a String (or Binary) attribute the shortest length.
    public var minimum: ValidationBound?
    /// The largest value allowed (same kinds as ``minimum``).
    public var maximum: ValidationBound?
    /// A regular expression (ICU syntax, as `NSPredicate`'s `MATCHES`) the WHOLE string must
    /// match: `[a-z]+` refuses `"abc1"`.
    public var pattern: String?

    public init(minimum: ValidationBound? = nil, maximum: ValidationBound? = nil, pattern: String? = nil) {
        self.minimum = minimum
        self.maximum = maximum
        self.pattern = pattern
    }

    /// Whether there is no rule at all.
    public var isEmpty: Bool { minimum == nil && maximum == nil && pattern == nil }
}

/// One bound of an ``AttributeValidationRules``.
public enum ValidationBound: Sendable, Hashable, CustomStringConvertible {
    /// A whole number (for any number attribute).
    case integer(Int64)
    /// A floating-point number (for any number attribute).
    case number(Double)
    /// A decimal number (for any number attribute; exact for a Decimal attribute).
    case decimal(Decimal)
    /// A date (for a Date attribute); Xcode writes it as seconds since 2001-01-01 UTC.
    case date(Date)
    /// A length: a String's in UTF-16 code units (`NSString.length`, what Core Data counts),
    /// a Binary attribute's in bytes.
    case length(Int)

    public var description: String {
        switch self {
        case .integer(let v): return String(v)
        case .number(let v): return v == v.rounded() && abs(v) < 1e15 ? String(Int64(v)) : "\(v)"
        case .decimal(let v): return "\(v)"
        case .date(let v): return v.formatted(.iso8601)
        case .length(let v): return String(v)
        }
    }

    /// The bound as a Double (numbers and dates; a length as itself).
    var doubleValue: Double {
        switch self {
        case .integer(let v): return Double(v)
        case .number(let v): return v
        case .decimal(let v): return v.storedDouble
        case .date(let v): return v.timeIntervalSinceReferenceDate
        case .length(let v): return Double(v)
        }
    }

    /// The bound as a Decimal, exactly for integers and decimals.
    var decimalValue: Decimal {
        switch self {
        case .integer(let v): return Decimal(v)
        case .decimal(let v): return v
        case .number(let v): return Decimal(string: "\(v)", locale: Locale(identifier: "en_US_POSIX")) ?? Decimal(v)
        case .date(let v): return Decimal(v.timeIntervalSinceReferenceDate)
        case .length(let v): return Decimal(v)
        }
    }

    var isNumber: Bool {
        switch self {
        case .integer, .number, .decimal: return true
        case .date, .length: return false
        }
    }

    /// The bound as Xcode writes it in a model file (`minValueString`, or seconds since
    /// 2001 for `minDateTimeInterval`).
    var fileText: String {
        switch self {
        case .date(let v): return ValidationBound.number(v.timeIntervalSinceReferenceDate).description
        default: return description
        }
    }
}
