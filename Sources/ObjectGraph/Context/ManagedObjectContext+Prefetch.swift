import Foundation
import OrderedCollections

extension ManagedObjectContext {
    /// Loads the destinations of `keyPaths` (relationship names, or dotted paths such as
    /// `department.employees`) for `objects`: one query per relationship and level (per 500
    /// owners), never one per object.
    func prefetch(_ keyPaths: [String], for objects: [ManagedObject], entity: EntityDescription) throws {
        for keyPath in keyPaths {
            let steps = try PredicateBinder.relationshipPath(keyPath, on: entity)
            var owners = objects
            for relationship in steps {
                owners = try prefetch(relationship, of: owners)
            }
        }
    }

    /// Loads `relationship` for every owner that has it and returns the destinations.
    private func prefetch(_ relationship: RelationshipDescription, of owners: [ManagedObject]) throws -> [ManagedObject] {
        let owners = owners.filter { $0.context === self && $0.entity.isKind(of: relationship.entity) }
        guard !relationship.isToMany else { return try prefetchToMany(relationship, of: owners) }
        var ids = OrderedSet<ObjectID>()
        for owner in owners {
            if case .object(let id) = owner.primitiveValue(slot: relationship.slot) { ids.append(id) }
        }
        return ids.isEmpty ? [] : objects(with: ids)
    }

    private func prefetchToMany(_ relationship: RelationshipDescription, of owners: [ManagedObject]) throws -> [ManagedObject] {
        let unloaded = owners.filter { !$0.objectID.isTemporaryID && $0.values[relationship.slot] == .unloaded }
        var loaded: [ManagedObject] = owners.filter { $0.values[relationship.slot] != .unloaded }
            .flatMap { $0.relatedObjects(relationship) }
        guard !unloaded.isEmpty else { return loaded }
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
        let codec = coordinator.rowCodec
        let width = Int32(destination.table.columns.count + 3)
        for start in stride(from: 0, to: unloaded.count, by: 500) {
            let chunk = unloaded[start..<min(unloaded.count, start + 500)]
            let marks = Array(repeating: "?", count: chunk.count).joined(separator: ", ")
            let sql = "SELECT \(destination.table.selectList), \(ownerColumn) FROM \(from) WHERE \(ownerColumn) IN (\(marks)) ORDER BY \(ownerColumn)\(order)"
            try coordinator.read { connection in
                try connection.query(sql, chunk.map { .integer($0.objectID.key) }) { statement in
                    guard let row = codec.decode(statement) else { return }
                    let object = register(row)
                    members[statement.int64(width), default: []].append(object.objectID)
                    loaded.append(object)
                }
            }
        }
        for owner in unloaded {
            let ids = members[owner.objectID.key] ?? []
            owner.values[relationship.slot] = .objects(ids)
            if !owner.snapshot.isEmpty, case .unloaded = owner.snapshot[relationship.slot] { owner.snapshot[relationship.slot] = .objects(ids) }
        }
        return loaded
    }
}
