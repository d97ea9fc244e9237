import CObjectGraphRuntime
import Foundation
import Synchronization

/// The base class of every managed object: an instance of an entity whose values a
/// ``ManagedObjectContext`` tracks, faults in and saves.
///
/// Subclass it and declare properties with ``Attribute`` and ``Relationship``:
///
/// ```swift
/// final class Department: ManagedObject {
///     @Attribute var name: String = ""
///     @Relationship(inverse: \Employee.$department, deleteRule: .cascade)
///     var employees: Set<Employee>
/// }
/// let sales = Department(context: context)
/// sales.name = "Sales"
/// ```
///
/// A managed object is *not* `Sendable`: it belongs to its context's thread or queue. Pass
/// its ``objectID`` to other threads. Objects are `Hashable` by identity.
open class ManagedObject: Hashable, CustomStringConvertible {
    /// The object's entity.
    public let entity: EntityDescription
    /// The object's ID: temporary until its context saves, permanent afterwards.
    /// (Exclusivity is not checked at run time: read for every registration, save and
    /// deallocation, and each access is a single read or write on the context's thread.)
    @exclusivity(unchecked) public internal(set) var objectID: ObjectID

    /// The context that registered the object, held without a reference count; cleared when
    /// the context goes away or the object is unregistered (the context clears it, so it
    /// never dangles). Hot paths use it through `_withUnsafeGuaranteedRef`, with no retain.
    /// Kept in an atomic word (relaxed: a plain load or store) because another thread may
    /// ask whether the object is registered in its own context (`ManagedObject+Shared`).
    var contextReference: Unmanaged<ManagedObjectContext>? {
        @inline(__always) get {
            UnsafeRawPointer(bitPattern: contextAddress.load(ordering: .relaxed)).map { Unmanaged.fromOpaque($0) }
        }
        @inline(__always) set {
            contextAddress.store(newValue.map { UInt(bitPattern: $0.toOpaque()) } ?? 0, ordering: .relaxed)
        }
    }
    private let contextAddress = Atomic<UInt>(0)
    /// What the object's own context publishes for other threads: its primary key while it
    /// is saved and unchanged, minus the key while it has changes, 0 while it was never saved
    /// (see `ManagedObject+Shared`). Kept by `state`'s observer.
    let sharedKey = Atomic<Int64>(0)

    /// The registering context (retained for the caller's use).
    var context: ManagedObjectContext? {
        get { contextReference?.takeUnretainedValue() }
        set { contextReference = newValue.map { Unmanaged.passUnretained($0) } }
    }
    /// Current values, one per property slot. (Exclusivity is not checked at run time on
    /// these hot fields: every access is a single read or write on the context's thread.)
    @exclusivity(unchecked) var values: ContiguousArray<SlotValue>
    /// Values as last read from or written to the store; empty for a new object.
    @exclusivity(unchecked) var snapshot: ContiguousArray<SlotValue> = []
    /// The row version (`Z_OPT`) the snapshot was read at.
    @exclusivity(unchecked) var version: Int64 = 0
    @exclusivity(unchecked) var state: ObjectState = [] {
        didSet { publishSharedKey() }
    }
    /// Where the object sits in its context's change tables (``ChangeTable``).
    @exclusivity(unchecked) var changePositions = ChangePositions()

    /// Creates an object of `entity` and inserts it into `context` (if given). Default values
    /// are evaluated for the new object; ``awakeFromInsert()`` is called.
    ///
    /// Subclasses that write a designated initializer must implement this one too.
    public required init(entity: EntityDescription, insertInto context: ManagedObjectContext?) {
        let thread = og_thread()
        let wrappers = thread.pointee.next_ordinal
        thread.pointee.next_ordinal = 0
        self.entity = entity
        if entity === EntityDescription.prototypeEntity {
            objectID = ObjectID.temporary(for: entity)
            values = []
            return
        }
        precondition(wrappers == entity.wrapperCount || entity.managedClass == ManagedObject.self,
                     "ManagedRecord: \(type(of: self)) initialized \(wrappers) property wrappers but entity \(entity.name) expects \(entity.wrapperCount); create managed objects only through ManagedObject initializers")
        if let materializing = thread.pointee.materializing {
            // A fetched object or a fault (`ReflectionRecorder.materialize`): no defaults.
            thread.pointee.materializing = nil
            objectID = materializing.assumingMemoryBound(to: ObjectID.self).pointee
            values = []
            state = [.fault]
            publishSharedKey()
            return
        }
        objectID = ObjectID.temporary(for: entity)
        values = entity.newObjectValues()
        if let context {
            context.insert(self)
        }
    }

    /// Creates an object of this class's entity and inserts it into `context`.
    ///
    /// ```swift
    /// let john = Employee(context: context)
    /// ```
    public convenience init(context: ManagedObjectContext) {
        let entity = context.entity(forClass: Self.self)
        self.init(entity: entity, insertInto: context)
    }

    deinit {
        // On any thread. While this object's entry is in the map, its context is alive: a
        // context detaching its objects waits for deallocations under way (IdentityMap).
        // The context is touched only to reach its map, before the entry goes.
        guard let reference = contextReference else { return }
        let registered = reference._withUnsafeGuaranteedRef { $0.registered }
        registered.remove(objectID, ifItIs: self)
    }

    /// The entity name of this class; override to use another name than the class name.
    /// A class given to ``ManagedObjectModel/init(contentsOf:classes:)`` for the entity whose
    /// `representedClassName` is the class's name (`EmployeeMO` for entity `Employee`) names
    /// that entity from then on.
    open class var entityName: String { BoundEntityNames.entityName(of: self) ?? String(describing: self) }

    /// The name of the model (and store) this class belongs to, for layers that keep one
    /// stack per model, such as ManagedRecord's class-level helpers. nil (the default) means
    /// "the model the class was set up with".
    open class var modelName: String? { nil }

    /// Whether class-level fetches of this entity include objects of its sub-entities.
    open class var shouldFetchRequestsReturnSubentities: Bool { true }

    /// The entity's uniqueness constraints: each a list of attribute names whose values
    /// together no two objects may share (`[["firstName", "lastName"]]`). A save that would
    /// break one throws a ``ConstraintConflictError``. For one attribute, `@Attribute(.unique)`
    /// says the same.
    open class var uniquenessConstraints: [[String]] { [] }

    /// The context the object is registered in, or nil (never inserted, or the context is gone).
    public var managedObjectContext: ManagedObjectContext? { context }

    // MARK: State

    /// Whether the values are not loaded yet; touching a property loads them.
    public var isFault: Bool { state.contains(.fault) }
    /// Whether the object is inserted and not saved yet.
    public var isInserted: Bool { state.contains(.inserted) }
    /// Whether the object has unsaved changes to its values.
    public var isUpdated: Bool { state.contains(.updated) }
    /// Whether the object is deleted (pending save, or saved).
    public var isDeleted: Bool { state.contains(.deleted) }
    /// Whether the object is inserted, deleted, or has changed values.
    public var hasChanges: Bool { isInserted || isDeleted || (isUpdated && !changedSlots().isEmpty) }

    // MARK: Lifecycle hooks (override, and call super)

    /// Called once when the object is inserted, after default values are set.
    open func awakeFromInsert() {}
    /// Called when the object's values are loaded from the store.
    open func awakeFromFetch() {}
    /// Called before a save writes the object.
    open func willSave() {}
    /// Called after a save wrote the object.
    open func didSave() {}
    /// Called when the object is deleted, before delete rules run.
    open func prepareForDeletion() {}
    /// Validates a new object before save; throw a ``ValidationError/Problem`` or any error to refuse it.
    open func validateForInsert() throws {}
    /// Validates a changed object before save.
    open func validateForUpdate() throws {}
    /// Validates a deleted object before save.
    open func validateForDelete() throws {}

    // MARK: Hashable

    public static func == (lhs: ManagedObject, rhs: ManagedObject) -> Bool { lhs === rhs }
    public final func hash(into hasher: inout Hasher) { hasher.combine(ObjectIdentifier(self)) }

    open var description: String {
        if isFault { return "<\(entity.name) \(objectID): fault>" }
        let shown = entity.properties.compactMap { property -> String? in
            guard let attribute = property as? AttributeDescription else { return nil }
            return "\(attribute.name)=\(attribute.conversion.toAny(values[attribute.slot]).map { "\($0)" } ?? "nil")"
        }
        return "<\(entity.name) \(objectID): \(shown.joined(separator: ", "))>"
    }
}

/// Flags describing a managed object's place in its context.
struct ObjectState: OptionSet {
    let rawValue: UInt8
    static let fault = ObjectState(rawValue: 1 << 0)
    static let inserted = ObjectState(rawValue: 1 << 1)
    static let updated = ObjectState(rawValue: 1 << 2)
    static let deleted = ObjectState(rawValue: 1 << 3)
    /// Inserted in the undo group still open: its value changes need no undo entries.
    static let insertedInOpenUndoGroup = ObjectState(rawValue: 1 << 4)
    /// Its context was released or reset while it was registered (see `ManagedObject+Detached`).
    static let detached = ObjectState(rawValue: 1 << 5)
    /// Filled from a row by a read still under way: its `awakeFromFetch()` runs once the read
    /// is over (a hook may read or save, which must not happen inside a read).
    static let awaitingAwake = ObjectState(rawValue: 1 << 6)
}
