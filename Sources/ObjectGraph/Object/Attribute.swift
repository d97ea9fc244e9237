import CObjectGraphRuntime
import Foundation

/// Declares a persistent (or transient) attribute of a ``ManagedObject`` subclass.
///
/// For example:
///
/// ```swift
/// final class Employee: ManagedObject {
///     @Attribute var firstName: String = ""
///     @Attribute var hired: Date? = nil             // optional: may be nil at save
///     @Attribute var badge: UUID = UUID()           // default evaluated per new object
///     @Attribute(.transient) var scratch: String? = nil
///     @Attribute(.unique) var email: String? = nil  // no two employees share one
///     @Attribute(.range(16...100)) var age: Int = 18  // a save refuses 15 or 101
///     @Attribute([.length(1...64), .pattern("[A-Z]{2}[0-9]+")]) var badgeCode: String = "AB1"
/// }
/// ```
///
/// The default value is evaluated for each inserted object, never for fetched ones. Reading
/// the property fires the object's fault if needed; setting it to the value it already has
/// is not a change. Types: Bool, Int, Int16, Int32, Int64, Double, Float, Decimal, String,
/// Date, Data, UUID, URL, their optionals, and any `Codable` value (stored as JSON in a BLOB).
@propertyWrapper
public struct Attribute<Value, Codec: AttributeCodec>: OrdinalProperty where Codec.Value == Value {
    /// The wrapper's ordinal, in two bytes: it is stored in every object, once per wrapper
    /// (see `OrdinalProperty`).
    @usableFromInline let compactOrdinal: Int16
    @inlinable var ordinal: Int32 { Int32(compactOrdinal) }

    /// An attribute of a native Core Data type.
    @inlinable
    public init(wrappedValue: @autoclosure @escaping () -> Value, _ options: @autoclosure () -> AttributeOptions = AttributeOptions())
    where Value: AttributeValue, Codec == NativeAttributeCodec<Value> {
        compactOrdinal = Self.register(wrappedValue, options)
    }

    /// An attribute holding any `Codable` value, stored as a transformable BLOB.
    @_disfavoredOverload
    @inlinable
    public init(wrappedValue: @autoclosure @escaping () -> Value, _ options: @autoclosure () -> AttributeOptions = AttributeOptions())
    where Value: Codable, Codec == CodableAttributeCodec<Value> {
        compactOrdinal = Self.register(wrappedValue, options)
    }

    /// An attribute of a native Core Data type that an earlier model version named
    /// `originalName`: a migration carries the stored values over from the old name, as a
    /// renaming identifier does in an Xcode model.
    ///
    /// ```swift
    /// @Attribute(originalName: "surname") var lastName: String = ""
    /// ```
    @inlinable
    public init(wrappedValue: @autoclosure @escaping () -> Value, _ options: @autoclosure () -> AttributeOptions = AttributeOptions(), originalName: String)
    where Value: AttributeValue, Codec == NativeAttributeCodec<Value> {
        compactOrdinal = Self.register(wrappedValue, options, originalName: originalName)
    }

    /// A `Codable` attribute that an earlier model version named `originalName` (see the
    /// native form).
    @_disfavoredOverload
    @inlinable
    public init(wrappedValue: @autoclosure @escaping () -> Value, _ options: @autoclosure () -> AttributeOptions = AttributeOptions(), originalName: String)
    where Value: Codable, Codec == CodableAttributeCodec<Value> {
        compactOrdinal = Self.register(wrappedValue, options, originalName: originalName)
    }

    /// The wrapper's ordinal in the object being created; while its class is being
    /// described, also records what it declares. Defaults are never evaluated here, and
    /// neither are the options (an autoclosure). Every object runs its wrappers' `init`, so
    /// this stays a call of its own (specialized, never inlined): inlined into the wrapper's
    /// `init`, the compiler boxed the default-value closure for `record` before the recording
    /// test, one heap allocation per attribute of every new or fetched object (fetch all of
    /// 100,000 objects: 71 → 101 ms).
    @inlinable @inline(never)
    static func register(_ defaultValue: @escaping () -> Value, _ options: () -> AttributeOptions, originalName: String? = nil) -> Int16 {
        let ordinal = og_take_ordinal()
        if og_is_recording() { record(ordinal, defaultValue: defaultValue, options: options(), originalName: originalName, in: ReflectionRecorder.current) }
        return Int16(truncatingIfNeeded: ordinal)
    }

    /// Out of line: it runs once per class, while the class is described.
    @usableFromInline @inline(never)
    static func record(_ ordinal: Int32, defaultValue: @escaping () -> Value, options: AttributeOptions, originalName: String?,
                       in recorder: ReflectionRecorder) {
        recorder.blueprints[ordinal] = .attribute(AttributeBlueprint(
            attributeType: Codec.attributeType,
            isOptional: Codec.isOptional,
            isTransient: options.isTransient,
            defaultValue: { Codec.encode(defaultValue()) },
            conversion: .codec(Codec.self),
            isUnique: options.isUnique,
            originalName: originalName,
            validationRules: options.validationRules))
    }

    @available(*, unavailable, message: "@Attribute can only be used on properties of ManagedObject subclasses")
    public var wrappedValue: Value {
        get { fatalError() }
        set { fatalError() }
    }

    @available(*, unavailable, message: "@Attribute can only be used on properties of ManagedObject subclasses")
    public var projectedValue: PropertyReference<Value> { fatalError() }

    // Inlinable, so the storage key path folds into a plain field load in the user's module.
    @inlinable
    public static subscript<Object: ManagedObject>(
        _enclosingInstance object: Object,
        wrapped wrappedKeyPath: ReferenceWritableKeyPath<Object, Value>,
        storage storageKeyPath: ReferenceWritableKeyPath<Object, Self>
    ) -> Value {
        get {
            let ordinal = object[keyPath: storageKeyPath].ordinal
            if let value = Codec.decode(object.primitiveValue(ordinal: ordinal)) { return value }
            return object.fallbackValue(ordinal: ordinal, Codec.decode)
        }
        set {
            object.setPrimitiveValue(Codec.encode(newValue), ordinal: object[keyPath: storageKeyPath].ordinal)
        }
    }

    @inlinable
    public static subscript<Object: ManagedObject>(
        _enclosingInstance object: Object,
        projected projectedKeyPath: KeyPath<Object, PropertyReference<Value>>,
        storage storageKeyPath: ReferenceWritableKeyPath<Object, Self>
    ) -> PropertyReference<Value> {
        PropertyReference(ordinal: object[keyPath: storageKeyPath].ordinal)
    }
}

/// Options for an ``Attribute``: flags (`.transient`, `.unique`) and validation rules
/// (`.range(...)`, `.length(...)`, `.pattern(...)`), one alone or several in an array:
///
/// ```swift
/// @Attribute(.range(0...150)) var age: Int = 0
/// @Attribute([.unique, .length(1...64), .pattern("[a-z0-9_]+")]) var handle: String = "me"
/// ```
///
/// A rule that does not fit the attribute's type (a length on a number) is a ``ModelError``
/// (``ModelError/Code/invalidValidationRule``) when the model is built.
public struct AttributeOptions: Sendable, ExpressibleByArrayLiteral {
    @usableFromInline var isTransient = false
    @usableFromInline var isUnique = false
    @usableFromInline var validationRules = AttributeValidationRules()

    /// No option.
    public init() {}

    /// Every option of `options` (where two give the same bound, the later one).
    public init(arrayLiteral options: AttributeOptions...) {
        for option in options {
            isTransient = isTransient || option.isTransient
            isUnique = isUnique || option.isUnique
            if let minimum = option.validationRules.minimum { validationRules.minimum = minimum }
            if let maximum = option.validationRules.maximum { validationRules.maximum = maximum }
            if let pattern = option.validationRules.pattern { validationRules.pattern = pattern }
        }
    }

    private init(minimum: ValidationBound? = nil, maximum: ValidationBound? = nil, pattern: String? = nil) {
        validationRules = AttributeValidationRules(minimum: minimum, maximum: maximum, pattern: pattern)
    }

    /// Kept in memory and tracked, never stored: no column, not saved, reset on refresh.
    public static let transient: AttributeOptions = { var options = AttributeOptions(); options.isTransient = true; return options }()
    /// No two objects of the entity (sub-entities included) may be saved with the same
    /// non-nil value: a save that would is refused with a ``ConstraintConflictError``.
    public static let unique: AttributeOptions = { var options = AttributeOptions(); options.isUnique = true; return options }()

    /// A number or date attribute's allowed values, both ends included (Xcode's Minimum and
    /// Maximum): a save refuses a value outside with a ``ValidationError`` whose rule is
    /// `numberTooSmall`, `numberTooLarge`, `dateTooSoon` or `dateTooLate`.
    public static func range<Bound: ValidationBoundValue>(_ range: ClosedRange<Bound>) -> AttributeOptions {
        AttributeOptions(minimum: range.lowerBound.validationBound, maximum: range.upperBound.validationBound)
    }

    /// A minimum only (`.range(18...)`).
    public static func range<Bound: ValidationBoundValue>(_ range: PartialRangeFrom<Bound>) -> AttributeOptions {
        AttributeOptions(minimum: range.lowerBound.validationBound)
    }

    /// A maximum only (`.range(...150)`).
    public static func range<Bound: ValidationBoundValue>(_ range: PartialRangeThrough<Bound>) -> AttributeOptions {
        AttributeOptions(maximum: range.upperBound.validationBound)
    }

    /// A String attribute's allowed lengths, both ends included, counted in UTF-16 code units
    /// as `NSString.length` counts (what Core Data checks); for a Data attribute, in bytes.
    public static func length(_ lengths: ClosedRange<Int>) -> AttributeOptions {
        AttributeOptions(minimum: .length(lengths.lowerBound), maximum: .length(lengths.upperBound))
    }

    /// A minimum length only (`.length(1...)`: not empty).
    public static func length(_ lengths: PartialRangeFrom<Int>) -> AttributeOptions {
        AttributeOptions(minimum: .length(lengths.lowerBound))
    }

    /// A maximum length only (`.length(...64)`).
    public static func length(_ lengths: PartialRangeThrough<Int>) -> AttributeOptions {
        AttributeOptions(maximum: .length(lengths.upperBound))
    }

    /// A regular expression (ICU syntax, as `NSPredicate`'s `MATCHES`) that a String
    /// attribute's whole value must match: `.pattern("[a-z]+")` refuses `"abc1"`. A pattern
    /// that is not a valid expression is a ``ModelError`` when the model is built.
    public static func pattern(_ regularExpression: String) -> AttributeOptions {
        AttributeOptions(pattern: regularExpression)
    }
}

/// A value that can bound an attribute: `.range(0...150)`, `.range(Date.distantPast...cutoff)`.
public protocol ValidationBoundValue: Comparable {
    /// The value as a bound of ``AttributeValidationRules``.
    var validationBound: ValidationBound { get }
}

extension Int: ValidationBoundValue { public var validationBound: ValidationBound { .integer(Int64(self)) } }
extension Int16: ValidationBoundValue { public var validationBound: ValidationBound { .integer(Int64(self)) } }
extension Int32: ValidationBoundValue { public var validationBound: ValidationBound { .integer(Int64(self)) } }
extension Int64: ValidationBoundValue { public var validationBound: ValidationBound { .integer(self) } }
extension Double: ValidationBoundValue { public var validationBound: ValidationBound { .number(self) } }
extension Float: ValidationBoundValue { public var validationBound: ValidationBound { .number(Double(self)) } }
extension Decimal: ValidationBoundValue { public var validationBound: ValidationBound { .decimal(self) } }
extension Date: ValidationBoundValue { public var validationBound: ValidationBound { .date(self) } }
