import Foundation
import OrderedCollections

// Faults: objects registered with their ID only, whose values (or to-many members) are read
// when first touched, from the row cache or with one query; a read that fails under a
// property access, which cannot throw, stops the process.
extension ManagedObjectContext {
    /// The coordinator's cache of stored rows, or nil in a child context: what a child reads
    /// is its parent's state, which the cache of stored rows does not know.
    var sharedRowCache: RowCache? { parent == nil ? persistentStoreCoordinator.rowCache : nil }

    /// Loads a fault's values (from the row cache, else one query) for a property access,
    /// which cannot throw. A row that no longer exists leaves the object deleted and
    /// unregistered, with default values (Core Data's `shouldDeleteInaccessibleFaults`).
    /// A read that fails stops the process (Core Data's "could not fulfill a fault"): the
    /// values are unknown, and neither the object nor the store may change.
    func fulfillFault(_ object: ManagedObject) {
        do {
            try loadFault(object)
        } catch {
            stopAfterFailedRead("could not fulfill a fault for \(object.objectID.uriRepresentation.absoluteString)", error)
        }
    }

    /// Loads a fault's values, or throws what the read threw, leaving the fault as it was.
    func loadFault(_ object: ManagedObject) throws {
        guard object.state.contains(.fault) else { return }
        if let cached = sharedRowCache?.row(for: object.objectID) {
            fill(object, with: cached.values, version: cached.version)
            awake(object)
            return
        }
        var found = false
        try store.rows(of: [object.objectID]) { row in
            found = true
            fill(object, with: row.values, version: row.version)
        }
        if found {
            awake(object)
        } else {
            logger.warning("\(object.objectID) no longer exists in the store: it is now deleted")
            markVanished(object)
        }
    }

    /// An object whose row is gone: deleted, unregistered, with default values, and no
    /// longer among the changes to save.
    func markVanished(_ object: ManagedObject) {
        object.values = object.entity.newObjectValues()
        object.snapshot = object.values
        object.state = [.deleted]
        updatedSet.remove(object)
        deletedSet.remove(object)
        unregister(object)
    }

    /// The objects for `ids`, firing all of their faults with one query per 500. When the
    /// query fails the objects stay faults (each loads, or stops, when touched).
    func objects(with ids: OrderedSet<ObjectID>) -> [ManagedObject] {
        do {
            return try loadObjects(with: ids)
        } catch {
            logger.error("cannot load \(ids.count) objects: \(error)")
            return ids.map { object(with: $0) }.filter { $0.context === self }
        }
    }

    /// The objects for `ids`, firing all of their faults with one query per 500, or throws
    /// what the query threw.
    func loadObjects(with ids: OrderedSet<ObjectID>) throws -> [ManagedObject] {
        let objects = ids.map { object(with: $0) }
        let cache = sharedRowCache
        let faults = objects.filter { $0.state.contains(.fault) && cache?.row(for: $0.objectID) == nil }
        if faults.count > 1 { try loadFaults(faults) }
        return objects.filter { $0.context === self }
    }

    private func loadFaults(_ faults: [ManagedObject]) throws {
        defer { awakeFetched(faults) }
        try store.rows(of: faults.map(\.objectID)) { _ = register($0) }
        let vanished = faults.filter { $0.state.contains(.fault) }
        if !vanished.isEmpty { logger.warning("\(vanished.count) objects no longer exist in the store: they are now deleted") }
        for fault in vanished { markVanished(fault) }
    }

    /// Loads a to-many relationship for a property access, which cannot throw: a read that
    /// fails stops the process, since an empty relationship in its place would be saved
    /// (a join table rewritten with only new members) and skipped by delete rules.
    @discardableResult
    func loadToMany(_ object: ManagedObject, _ relationship: RelationshipDescription) -> [ManagedObject] {
        do {
            return try readToMany(object, relationship)
        } catch {
            stopAfterFailedRead("could not load \(object.entity.name).\(relationship.name) of \(object.objectID.uriRepresentation.absoluteString)", error)
        }
    }

    /// Loads a to-many relationship with one query that also fills its members' values, or
    /// throws what the query threw, leaving the relationship unloaded.
    func readToMany(_ object: ManagedObject, _ relationship: RelationshipDescription) throws -> [ManagedObject] {
        var members: [ManagedObject] = []
        do {
            try store.relatedRows(relationship, owners: [object.objectID.key]) { _, row in
                members.append(register(row))
            }
        } catch {
            awakeFetched(members)
            throw error
        }
        // Sized once (appending to an empty set regrows and rehashes its table repeatedly).
        var ids = OrderedSet<ObjectID>(minimumCapacity: members.count)
        for member in members { ids.append(member.objectID) }
        if ids.count != members.count {     // a join table may list a member twice
            var seen = Set<ObjectIdentifier>()
            members = members.filter { seen.insert(ObjectIdentifier($0)).inserted }
        }
        object.values[relationship.slot] = .objects(ids)
        if !object.snapshot.isEmpty, case .unloaded = object.snapshot[relationship.slot] {
            object.snapshot[relationship.slot] = .objects(ids)
        }
        awakeFetched(members)       // with the relationship in place, for hooks that look at it
        return members
    }

    /// Stops the process after a read of the store failed under a property access, which
    /// cannot throw (Core Data raises "could not fulfill a fault" there). The values are
    /// unknown: showing defaults or an empty relationship instead would let a later save write
    /// them back, so nothing changes and the process stops with what failed and what to do.
    func stopAfterFailedRead(_ what: String, _ error: any Error) -> Never {
        fatalError("""
            ManagedRecord: \(what): \(error). The store could not be read, so these values are \
            unknown; rather than show defaults or an empty relationship (which a later save would \
            write back), the process stops. Check the store file and its disk (permissions, free \
            space, I/O errors). To get such failures as thrown errors instead, load objects with \
            existingObject(with:) or fetch(_:) (relationshipKeyPathsForPrefetching for \
            relationships) before touching them.
            """)
    }
}
