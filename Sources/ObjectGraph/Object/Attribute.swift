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
    public init(wrappedValue: @autoclosure @escaping () -> Value, _ options: AttributeOptions = [])
    where Value: AttributeValue, Codec == NativeAttributeCodec<Value> {
        compactOrdinal = Self.register(wrappedValue, options)
    }

    /// An attribute holding any `Codable` value, stored as a transformable BLOB.
    @_disfavoredOverload
    @inlinable
    public init(wrappedValue: @autoclosure @escaping () -> Value, _ options: AttributeOptions = [])
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
    public init(wrappedValue: @autoclosure @escaping () -> Value, _ options: AttributeOptions = [], originalName: String)
    where Value: AttributeValue, Codec == NativeAttributeCodec<Value> {
        compactOrdinal = Self.register(wrappedValue, options, originalName: originalName)
    }

    /// A `Codable` attribute that an earlier model version named `originalName` (see the
    /// native form).
    @_disfavoredOverload
    @inlinable
    public init(wrappedValue: @autoclosure @escaping () -> Value, _ options: AttributeOptions = [], originalName: String)
    where Value: Codable, Codec == CodableAttributeCodec<Value> {
        compactOrdinal = Self.register(wrappedValue, options, originalName: originalName)
    }

    /// The wrapper's ordinal in the object being created; while its class is being
    /// described, also records what it declares. Defaults are never evaluated here.
    @inlinable
    static func register(_ defaultValue: @escaping () -> Value, _ options: AttributeOptions, originalName: String? = nil) -> Int16 {
        let ordinal = og_take_ordinal()
        if og_is_recording() { record(ordinal, defaultValue: defaultValue, options: options, originalName: originalName, in: ReflectionRecorder.current) }
        return Int16(truncatingIfNeeded: ordinal)
    }

    @inlinable
    static func record(_ ordinal: Int32, defaultValue: @escaping () -> Value, options: AttributeOptions, originalName: String?,
                       in recorder: ReflectionRecorder) {
        recorder.blueprints[ordinal] = .attribute(AttributeBlueprint(
            attributeType: Codec.attributeType,
            isOptional: Codec.isOptional,
            isTransient: options.contains(.transient),
            defaultValue: { Codec.encode(defaultValue()) },
            conversion: .codec(Codec.self),
            isUnique: options.contains(.unique),
            originalName: originalName))
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

/// Options for an ``Attribute``.
public struct AttributeOptions: OptionSet, Sendable {
    public let rawValue: Int
    public init(rawValue: Int) { self.rawValue = rawValue }

    /// Kept in memory and tracked, never stored: no column, not saved, reset on refresh.
    public static let transient = AttributeOptions(rawValue: 1 << 0)
    /// No two objects of the entity (sub-entities included) may be saved with the same
    /// non-nil value: a save that would is refused with a ``ConstraintConflictError``.
    public static let unique = AttributeOptions(rawValue: 1 << 1)
}
