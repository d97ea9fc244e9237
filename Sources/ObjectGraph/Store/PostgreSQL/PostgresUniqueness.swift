import Foundation

/// Uniqueness constraints of a save in PostgreSQL: the conflicts a save would create (the
/// same answer as ``SQLiteSaveTransaction/uniquenessConflicts()``), checked before it writes.
///
/// The check reads committed rows; two processes saving equal values at the same moment are
/// kept apart by the unique index of each constraint: the later insert fails with SQLSTATE
/// 23505, the save is rolled back, and the store reports the conflict it then finds
/// (``PostgresStore/save(_:)``).
struct PostgresUniqueness {
    let session: PostgresSession
    let layout: StoreLayout
    let store: StoreIdentity
    let request: SaveRequest

    /// One conflict per object that has another's values (nil never conflicts).
    func conflicts() throws -> [ConstraintConflictError.Conflict] {
        let constrained = layout.model.entitiesWithUniquenessConstraints
        guard !constrained.isEmpty else { return [] }
        var conflicts: [ConstraintConflictError.Conflict] = []
        for declaring in constrained {
            let mapping = layout.mappings[declaring.index]
            let family = mapping.familyNumbers.map(String.init).joined(separator: ", ")
            for constraint in declaring.fileDetails.uniquenessConstraints {
                let slots = constraint.compactMap { declaring.propertiesByName[$0]?.slot }
                let moved = request.updated.filter { $0.object.entity.isKind(of: declaring) && slots.contains(where: $0.changes.contains) }.map(\.object)
                let candidates = request.inserted.filter { $0.entity.isKind(of: declaring) } + moved
                guard !candidates.isEmpty else { continue }
                // Rows whose present values will be gone after this save.
                var leaving = Set(moved.map(\.objectID))
                for object in request.deleted where object.entity.isKind(of: declaring) { leaving.insert(object.objectID) }

                var byValues: [[SlotValue]: [ObjectID]] = [:]
                for object in candidates {
                    let values = slots.map { object.values[$0] }
                    if !values.contains(where: \.isNull) { byValues[values, default: []].append(object.objectID) }
                }
                let columns = slots.map { "t.\(mapping.columnBySlot[$0]!) = ?" }.joined(separator: " AND ")
                let sql = "SELECT t.Z_PK, t.Z_ENT FROM \(mapping.table.name) t WHERE t.Z_ENT IN (\(family)) AND \(columns)"
                for (values, objects) in byValues {
                    var stored: [ObjectID] = []
                    try session.query(sql, values.map(\.storedValue)) { row in
                        guard case .integer(let key) = row[0], case .integer(let number) = row[1],
                              let entity = layout.entitiesByNumber[number] else { return }
                        let id = ObjectID(entity: entity, store: store, primaryKey: key)
                        if !leaving.contains(id) { stored.append(id) }
                    }
                    guard objects.count + stored.count > 1 else { continue }
                    for object in objects {
                        let others = objects.filter { $0 != object } + stored
                        conflicts.append(.init(entity: declaring.name, constraint: constraint, objectID: object, conflictingObjectIDs: others))
                    }
                }
            }
        }
        return conflicts
    }
}
