import Foundation

extension SQLiteSaveTransaction {
    /// Enforces uniqueness constraints before this save writes anything, inside its
    /// transaction (so no other writer can interleave): after the save, no two rows of a
    /// constrained entity (sub-entities included) may hold equal values for a constraint's
    /// attributes. A nil never conflicts. Only inserted objects and updated objects whose
    /// constrained attributes changed are checked: one indexed query per object and
    /// constraint (Core Data's stores carry a unique index per constraint), none for entities
    /// without constraints. Rows this save deletes, or moves to other values, do not count.
    ///
    /// A conflict left here (the context's merge policy resolved what it could before the
    /// save, see `ManagedObjectContext.resolveConstraintConflicts`) refuses the save with a
    /// ``ConstraintConflictError``.
    func checkUniqueness() throws {
        let conflicts = try uniquenessConflicts()
        if !conflicts.isEmpty { throw ConstraintConflictError(conflicts: conflicts) }
    }

    /// The conflicts `checkUniqueness` refuses, one per object that has another's values.
    func uniquenessConflicts() throws -> [ConstraintConflictError.Conflict] {
        let constrained = layout.model.entitiesWithUniquenessConstraints
        guard !constrained.isEmpty else { return [] }
        var conflicts: [ConstraintConflictError.Conflict] = []
        for declaring in constrained {
            let mapping = layout.mappings[declaring.index]
            let family = mapping.familyNumbers.map(String.init).joined(separator: ", ")
            for constraint in declaring.fileDetails.uniquenessConstraints {
                let slots = constraint.compactMap { declaring.propertiesByName[$0]?.slot }
                let moved = updated.filter { $0.object.entity.isKind(of: declaring) && slots.contains(where: $0.changes.contains) }.map(\.object)
                let candidates = inserted.filter { $0.entity.isKind(of: declaring) } + moved
                guard !candidates.isEmpty else { continue }
                // Rows whose present values will be gone after this save.
                var leaving = Set(moved.map(\.objectID))
                for object in deleted where object.entity.isKind(of: declaring) { leaving.insert(object.objectID) }

                var byValues: [[SlotValue]: [ObjectID]] = [:]
                for object in candidates {
                    let values = slots.map { object.values[$0] }
                    if !values.contains(where: \.isNull) { byValues[values, default: []].append(object.objectID) }
                }
                let columns = slots.map { "t.\(mapping.columnBySlot[$0]!) = ?" }.joined(separator: " AND ")
                let statement = try connection.prepare("SELECT t.Z_PK, t.Z_ENT FROM \(mapping.table.name) t WHERE t.Z_ENT IN (\(family)) AND \(columns)")
                defer { statement.reset() }
                for (values, objects) in byValues {
                    for (index, value) in values.enumerated() { try RowCodec.bind(value, to: statement, at: Int32(index), keys: [:]) }
                    var stored: [ObjectID] = []
                    while try statement.step() {
                        guard let entity = layout.entitiesByNumber[statement.int64(1)] else { continue }
                        let id = ObjectID(entity: entity, store: store, primaryKey: statement.int64(0))
                        if !leaving.contains(id) { stored.append(id) }
                    }
                    statement.resetKeepingBindings()
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
