import Foundation
import Synchronization

/// The identity of a persistent store, shared by the object IDs it hands out.
///
/// Object IDs refer to it without a reference count (so copying an ID costs no atomic
/// operations), so every identity lives as long as the process. One identity serves every
/// opening of the same store (its UUID) with the same entities (models built from the same
/// classes share them), so reopening a store again and again adds nothing, and an ID from
/// an earlier opening names the same object in a later one.
final class StoreIdentity: Sendable {
    let uuid: String

    private init(uuid: String) { self.uuid = uuid }

    /// The identity of the store `uuid` opened with `model`'s entities, kept for the life of
    /// the process.
    static func of(uuid: String, model: ManagedObjectModel) -> StoreIdentity {
        let key = Key(uuid: uuid, entities: model.entities.first.map(ObjectIdentifier.init))
        return everyIdentity.withLock { identities in
            if let identity = identities[key] { return identity }
            let identity = StoreIdentity(uuid: uuid)
            identities[key] = identity
            return identity
        }
    }

    /// The identity temporary IDs carry: no store.
    static let none = StoreIdentity(uuid: "")

    /// A store and a set of entities (named by its first one, which lives for the process).
    fileprivate struct Key: Hashable {
        let uuid: String
        let entities: ObjectIdentifier?
    }
}

private let everyIdentity = Locked<[StoreIdentity.Key: StoreIdentity]>([:])

private let temporaryKeys = Atomic<Int64>(0)

/// A managed object's identity: its entity and primary key in one store. `Sendable`, so it
/// is what crosses threads and contexts; each context turns it back into its own object with
/// ``ManagedObjectContext/object(with:)`` or ``ManagedObjectContext/existingObject(with:)``.
///
/// An inserted object has a temporary ID until its context saves, then a permanent one.
///
/// For example:
///
/// ```swift
/// let id = employee.objectID                  // after save: permanent
/// id.uriRepresentation                        // x-coredata://<store UUID>/Employee/p12
/// let same = try background.existingObject(with: id)
/// ```
public struct ObjectID: Hashable, Sendable, CustomStringConvertible {
    // Entities and store identities live as long as the process (see `EntityDescription` and
    // `StoreIdentity`), so an ID holds them without reference counts: copying, hashing and
    // comparing IDs costs no atomic operations.
    //
    // The fields are in this order (a reference, the key, a reference) so that a `SlotValue`
    // holding an ID stays 24 bytes: the enum keeps its case in the spare bits of the last
    // word, which every other case leaves free. With the key last, the case took a 25th byte
    // and every slot of every object took 32 (`FetchedObjectMemoryTests`).

    /// The object's entity (a sub-entity for an object of one).
    public unowned(unsafe) let entity: EntityDescription
    /// The primary key (`Z_PK`) when permanent; a negative serial number when temporary.
    let key: Int64
    /// The store, or `StoreIdentity.none` for a temporary ID.
    unowned(unsafe) let storeIdentity: StoreIdentity

    init(entity: EntityDescription, store: StoreIdentity, primaryKey: Int64) {
        self.entity = entity
        self.storeIdentity = store
        self.key = primaryKey
    }

    /// The store, or nil for a temporary ID.
    var store: StoreIdentity? { storeIdentity === StoreIdentity.none ? nil : storeIdentity }

    /// A new temporary ID, unique in this process.
    static func temporary(for entity: EntityDescription) -> ObjectID {
        let serial = temporaryKeys.wrappingAdd(1, ordering: .relaxed).newValue
        return ObjectID(entity: entity, key: -serial)
    }

    private init(entity: EntityDescription, key: Int64) {
        self.entity = entity
        self.storeIdentity = StoreIdentity.none
        self.key = key
    }

    /// Whether the object has not been saved yet.
    public var isTemporaryID: Bool { key < 0 }

    /// The primary key in the store (`Z_PK`), or nil while the ID is temporary.
    public var primaryKey: Int64? { key > 0 ? key : nil }

    /// The object's entity name.
    public var entityName: String { entity.name }

    /// `x-coredata://<store UUID>/<Entity>/p<pk>`, or `x-coredata:///<Entity>/t<serial>` while
    /// temporary. ``PersistentStoreCoordinator/managedObjectID(forURIRepresentation:)`` reads it back.
    public var uriRepresentation: URL {
        if let store {
            return URL(string: "x-coredata://\(store.uuid)/\(entity.name)/p\(key)")!
        }
        return URL(string: "x-coredata:///\(entity.name)/t\(-key)")!
    }

    public var description: String { uriRepresentation.absoluteString }

    public static func == (lhs: ObjectID, rhs: ObjectID) -> Bool {
        lhs.key == rhs.key && lhs.entity.root === rhs.entity.root && lhs.storeIdentity === rhs.storeIdentity
    }

    public func hash(into hasher: inout Hasher) {
        // One word (key and root entity mixed) instead of two: IDs are hashed on every
        // to-many append, identity and change-set lookup, so a combine less counts.
        let root = UInt64(UInt(bitPattern: ObjectIdentifier(entity.root)))
        hasher.combine(UInt64(bitPattern: key) &* 0x9E37_79B9_7F4A_7C15 ^ root)
    }
}

// MARK: Keys of the open-addressing tables (identity map, row cache)

extension ObjectID {
    /// The root entity and the store as addresses: with the key, what tables compare IDs by.
    @inline(__always)
    var tableParts: (root: UnsafeRawPointer, store: UnsafeRawPointer) {
        (UnsafeRawPointer(Unmanaged.passUnretained(entity.root).toOpaque()),
         UnsafeRawPointer(Unmanaged.passUnretained(storeIdentity).toOpaque()))
    }
}

/// The home slot of a key of a root entity in a table of `2^(64 - shift)` slots: the key and
/// the root's address mixed, times the golden ratio, top bits (Fibonacci hashing).
@inline(__always)
func fibonacciHome(_ key: Int64, _ root: UnsafeRawPointer, shift: UInt64) -> Int {
    let mixed = UInt64(bitPattern: key) ^ (UInt64(UInt(bitPattern: root)) &>> 4)
    return Int(truncatingIfNeeded: (mixed &* 0x9E37_79B9_7F4A_7C15) &>> shift)
}
