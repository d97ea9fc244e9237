import Foundation
import OrderedCollections

extension ManagedObjectContext {
    /// Loads the destinations of `keyPaths` (relationship names, or dotted paths such as
    /// `department.employees`) for `objects`: one query per relationship and level (per 500
    /// owners), never one per object.
    ///
    /// Destination rows go to the coordinator's row cache, so their faults fire without SQL
    /// later; the fetched objects' to-many relationships are filled in. A to-many after a
    /// to-one step (`department.employees`) is filled into the intermediate objects, which
    /// keep it while something holds them.
    func prefetch(_ keyPaths: [String], for objects: [some ManagedObject], entity: EntityDescription) throws {
        for keyPath in keyPaths {
            let steps = try PredicateBinder.relationshipPath(keyPath, on: entity)
            var owners: [ManagedObject] = objects
            for relationship in steps {
                owners = try prefetch(relationship, of: owners)
            }
        }
    }

    /// Loads `relationship` for every owner that has it and returns the destinations.
    private func prefetch(_ relationship: RelationshipDescription, of owners: [ManagedObject]) throws -> [ManagedObject] {
        var owners = owners.filter { $0.context === self && $0.entity.isKind(of: relationship.entity) }
        let faults = OrderedSet(owners.lazy.filter(\.isFault).map(\.objectID))
        if !faults.isEmpty {
            _ = try loadObjects(with: faults)   // one query per 500, while `owners` holds them
            for owner in owners where owner.isFault { try loadFault(owner) }    // the rest from the row cache
            owners = owners.filter { !$0.isFault && $0.context === self }
        }
        guard !relationship.isToMany else { return try prefetchToMany(relationship, of: owners) }
        var ids = OrderedSet<ObjectID>()
        var loaded: [ManagedObject] = []
        defer { awakeFetched(loaded) }      // hooks run once the reads are over
        for owner in owners {
            guard case .object(let id) = owner.primitiveValue(slot: relationship.slot) else { continue }
            if let object = registered[id], !object.isFault {
                loaded.append(object)
            } else if !id.isTemporaryID || parent != nil {
                ids.append(id)
            }
        }
        let coordinator = persistentStoreCoordinator
        var cached: [(ObjectID, RowCache.Entry)] = []
        try store.rows(of: Array(ids)) { row in
            loaded.append(register(row))
            cached.append((row.id, RowCache.Entry(values: row.values, version: row.version)))
        }
        if parent == nil { coordinator.rowCache.store(cached) }
        return loaded
    }

    private func prefetchToMany(_ relationship: RelationshipDescription, of owners: [ManagedObject]) throws -> [ManagedObject] {
        let unloaded = owners.filter { (!$0.objectID.isTemporaryID || parent != nil) && $0.values[relationship.slot] == .unloaded }
        var loaded: [ManagedObject] = owners.filter { $0.values[relationship.slot] != .unloaded }
            .flatMap { $0.relatedObjects(relationship) }
        guard !unloaded.isEmpty else { return loaded }
        defer { awakeFetched(loaded) }      // hooks run once the reads are over
        let coordinator = persistentStoreCoordinator
        var members: [Int64: OrderedSet<ObjectID>] = [:]
        var cached: [(ObjectID, RowCache.Entry)] = []
        try store.relatedRows(relationship, owners: unloaded.map(\.objectID.key)) { owner, row in
            let object = register(row)
            members[owner, default: []].append(object.objectID)
            loaded.append(object)
            cached.append((row.id, RowCache.Entry(values: row.values, version: row.version)))
        }
        if parent == nil { coordinator.rowCache.store(cached) }
        for owner in unloaded {
            let ids = members[owner.objectID.key] ?? []
            owner.values[relationship.slot] = .objects(ids)
            if !owner.snapshot.isEmpty, case .unloaded = owner.snapshot[relationship.slot] { owner.snapshot[relationship.slot] = .objects(ids) }
        }
        return loaded
    }
}
