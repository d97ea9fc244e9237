import Foundation

/// What a relationship holds: one object, an unordered set, or an ordered list.
public enum RelationshipKind: String, Sendable {
    case toOne, toMany, orderedToMany

    public var isToMany: Bool { self != .toOne }
}

/// What deleting an object does to the objects on the other side of a relationship.
public enum DeleteRule: String, Sendable {
    /// Removes the deleted object from the destination's inverse.
    case nullify
    /// Deletes the destination objects too.
    case cascade
    /// Refuses the deletion (save fails validation) while the relationship is not empty.
    case deny
    /// Does nothing to the destination; its inverse may point at a deleted object.
    case noAction
}

/// A Swift type a relationship can have: `T?` (to-one), `Set<T>` (to-many) or `[T]`
/// (ordered to-many), for a `ManagedObject` subclass `T`.
public protocol RelationshipValue {
    /// To-one, to-many or ordered to-many.
    static var relationshipKind: RelationshipKind { get }
    /// The class of the destination objects.
    static var destinationClass: ManagedObject.Type { get }
    /// The value holding `objects` (the library's use; not for application code).
    static func _decode(_ objects: [ManagedObject]) -> Self
    /// A to-one value from its destination (to-one types only).
    static func _decodeToOne(_ object: ManagedObject?) -> Self
    /// The objects the value holds (the library's use; not for application code).
    var _objects: [ManagedObject] { get }
    /// The destination of a to-one value (nil for other kinds).
    var _toOneObject: ManagedObject? { get }
}

extension RelationshipValue {
    public static func _decodeToOne(_ object: ManagedObject?) -> Self { _decode(object.map { [$0] } ?? []) }
    public var _toOneObject: ManagedObject? { nil }
}

extension Optional: RelationshipValue where Wrapped: ManagedObject {
    public static var relationshipKind: RelationshipKind { .toOne }
    public static var destinationClass: ManagedObject.Type { Wrapped.self }
    public static func _decode(_ objects: [ManagedObject]) -> Wrapped? { objects.first.map { unsafeDowncast($0, to: Wrapped.self) } }
    @inlinable
    public static func _decodeToOne(_ object: ManagedObject?) -> Wrapped? { object.map { unsafeDowncast($0, to: Wrapped.self) } }
    public var _objects: [ManagedObject] { map { [$0] } ?? [] }
    @inlinable
    public var _toOneObject: ManagedObject? { self }
}

extension Set: RelationshipValue where Element: ManagedObject {
    public static var relationshipKind: RelationshipKind { .toMany }
    public static var destinationClass: ManagedObject.Type { Element.self }
    // Inlinable, so the set is built by code specialized for `Element` (a generic `Set.init`
    // costs thousands of instructions per member).
    @inlinable
    public static func _decode(_ objects: [ManagedObject]) -> Set<Element> {
        var set = Set<Element>(minimumCapacity: objects.count)
        for object in objects { set.insert(unsafeDowncast(object, to: Element.self)) }
        return set
    }
    public var _objects: [ManagedObject] { Array(self) }
}

extension Array: RelationshipValue where Element: ManagedObject {
    public static var relationshipKind: RelationshipKind { .orderedToMany }
    public static var destinationClass: ManagedObject.Type { Element.self }
    @inlinable
    public static func _decode(_ objects: [ManagedObject]) -> [Element] { objects.map { unsafeDowncast($0, to: Element.self) } }
    public var _objects: [ManagedObject] { self }
}

/// Declares a relationship of a ``ManagedObject`` subclass: to-one (`T?`), to-many
/// (`Set<T>`) or ordered to-many (`[T]`).
///
/// For example:
///
/// ```swift
/// final class Department: ManagedObject {
///     @Relationship(inverse: \Employee.$department, deleteRule: .cascade)
///     var employees: Set<Employee>
/// }
/// class Employee: ManagedObject {
///     @Relationship(deleteRule: .nullify) var department: Department?
/// }
/// ```
///
/// Name the inverse on one side only (by key path or by name); the other side finds it when
/// the model is built. Setting one side updates the inverse in memory at once. Reading a
/// to-many relationship that is not loaded runs one query for all its members.
@propertyWrapper
public struct Relationship<Value: RelationshipValue>: OrdinalProperty {
    /// The wrapper's ordinal, in two bytes (see `OrdinalProperty`).
    @usableFromInline let compactOrdinal: Int16
    @inlinable var ordinal: Int32 { Int32(compactOrdinal) }

    private init(ordered: Bool, inverse: InverseSpecification?, deleteRule: DeleteRule) {
        precondition(!ordered || Value.relationshipKind == .orderedToMany,
                     "ManagedRecord: an ordered relationship must be declared as an array, [\(Value.destinationClass)]")
        compactOrdinal = ReflectionRecorder.nextOrdinal {
            .relationship(RelationshipBlueprint(kind: Value.relationshipKind, destination: Value.destinationClass,
                                                inverse: inverse, deleteRule: deleteRule))
        }
    }

    /// A relationship whose inverse (if any) is declared on the other side.
    /// (`ordered` is implied by an array type; it may be spelled out.)
    public init(ordered: Bool = false, deleteRule: DeleteRule = .nullify) {
        self.init(ordered: ordered, inverse: nil, deleteRule: deleteRule)
    }

    /// A relationship with its inverse given by key path (`\Employee.$department`).
    public init<T: ManagedObject, R>(ordered: Bool = false, inverse: KeyPath<T, PropertyReference<R>>, deleteRule: DeleteRule = .nullify) {
        self.init(ordered: ordered, inverse: .keyPath(inverse, T.self), deleteRule: deleteRule)
    }

    /// A relationship with its inverse given by name.
    public init(ordered: Bool = false, inverse: String, deleteRule: DeleteRule = .nullify) {
        self.init(ordered: ordered, inverse: .name(inverse), deleteRule: deleteRule)
    }

    // MARK: Access

    @available(*, unavailable, message: "@Relationship can only be used on properties of ManagedObject subclasses")
    public var wrappedValue: Value {
        get { fatalError() }
        set { fatalError() }
    }

    @available(*, unavailable, message: "@Relationship can only be used on properties of ManagedObject subclasses")
    public var projectedValue: PropertyReference<Value> { fatalError() }

    @inlinable
    public static subscript<Object: ManagedObject>(
        _enclosingInstance object: Object,
        wrapped wrappedKeyPath: ReferenceWritableKeyPath<Object, Value>,
        storage storageKeyPath: ReferenceWritableKeyPath<Object, Self>
    ) -> Value {
        get {
            let ordinal = object[keyPath: storageKeyPath].ordinal
            if Value.relationshipKind == .toOne { return Value._decodeToOne(object.relatedObject(ordinal: ordinal)) }
            return Value._decode(object.relatedObjects(ordinal: ordinal))
        }
        set {
            let ordinal = object[keyPath: storageKeyPath].ordinal
            if Value.relationshipKind == .toOne {
                object.setRelatedObject(newValue._toOneObject, ordinal: ordinal)
            } else {
                object.setRelatedObjects(newValue._objects, ordinal: ordinal)
            }
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
