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
            if let object = registered[id]?.takeUnretainedValue(), !object.isFault {
                loaded.append(object)
            } else if !id.isTemporaryID {
                ids.append(id)
            }
        }
        let coordinator = persistentStoreCoordinator
        let codec = coordinator.rowCodec
        var cached: [(ObjectID, RowCache.Entry)] = []
        for (root, group) in Dictionary(grouping: Array(ids), by: { ObjectIdentifier($0.entity.root) }).map({ ($0.value[0].entity.root, $0.value) }) {
            let mapping = coordinator.mapping(for: root)
            for chunk in group.chunks(500) {
                let sql = "SELECT \(mapping.table.selectList) FROM \(mapping.table.name) t WHERE t.Z_PK IN (\(BatchDeleter.marks(chunk.count)))"
                try coordinator.read { connection in
                    try connection.query(sql, chunk.map { .integer($0.key) }) { statement in
                        guard let decoded = codec.decode(statement) else { return }
                        let row = try codec.checked(decoded, from: mapping.table, url: coordinator.storeURL)
                        loaded.append(register(row))
                        cached.append((row.id, RowCache.Entry(values: row.values, version: row.version)))
                    }
                }
            }
        }
        coordinator.rowCache.store(cached)
        return loaded
    }

    private func prefetchToMany(_ relationship: RelationshipDescription, of owners: [ManagedObject]) throws -> [ManagedObject] {
        let unloaded = owners.filter { !$0.objectID.isTemporaryID && $0.values[relationship.slot] == .unloaded }
        var loaded: [ManagedObject] = owners.filter { $0.values[relationship.slot] != .unloaded }
            .flatMap { $0.relatedObjects(relationship) }
        guard !unloaded.isEmpty else { return loaded }
        defer { awakeFetched(loaded) }      // hooks run once the reads are over
        let coordinator = persistentStoreCoordinator
        let destination = coordinator.mapping(for: relationship.destinationEntity)
        var ownerColumn = ""
        var from = "\(destination.table.name) t"
        var order = ""
        if let join = coordinator.mapping(for: relationship.entity).joinTableBySlot[relationship.slot] {
            from += " JOIN \(join.name) j ON j.\(join.memberColumn) = t.Z_PK"
            ownerColumn = "j.\(join.ownerColumn)"
            if let column = join.orderColumn { order = ", j.\(column)" }
        } else if let inverse = relationship.inverseRelationship,
                  let column = coordinator.mapping(for: inverse.entity).columnBySlot[inverse.slot] {
            ownerColumn = "t.\(column)"
            if let column = coordinator.mapping(for: relationship.entity).orderColumnBySlot[relationship.slot] { order = ", t.\(column)" }
        } else {
            return loaded
        }
        var members: [Int64: OrderedSet<ObjectID>] = [:]
        var cached: [(ObjectID, RowCache.Entry)] = []
        let codec = coordinator.rowCodec
        let width = Int32(destination.table.columns.count + 3)
        for start in stride(from: 0, to: unloaded.count, by: 500) {
            let chunk = unloaded[start..<min(unloaded.count, start + 500)]
            let marks = Array(repeating: "?", count: chunk.count).joined(separator: ", ")
            let sql = "SELECT \(destination.table.selectList), \(ownerColumn) FROM \(from) WHERE \(ownerColumn) IN (\(marks)) ORDER BY \(ownerColumn)\(order)"
            try coordinator.read { connection in
                try connection.query(sql, chunk.map { .integer($0.objectID.key) }) { statement in
                    guard let decoded = codec.decode(statement) else { return }
                    let row = try codec.checked(decoded, from: destination.table, url: coordinator.storeURL)
                    let object = register(row)
                    members[statement.int64(width), default: []].append(object.objectID)
                    loaded.append(object)
                    cached.append((row.id, RowCache.Entry(values: row.values, version: row.version)))
                }
            }
        }
        coordinator.rowCache.store(cached)
        for owner in unloaded {
            let ids = members[owner.objectID.key] ?? []
            owner.values[relationship.slot] = .objects(ids)
            if !owner.snapshot.isEmpty, case .unloaded = owner.snapshot[relationship.slot] { owner.snapshot[relationship.slot] = .objects(ids) }
        }
        return loaded
    }
}
