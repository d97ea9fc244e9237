import Foundation

extension SaveRequest {
    /// The uniqueness conflicts this save would leave, one per object that has another's
    /// values for a constraint's attributes (sub-entities included; a nil never conflicts),
    /// the same in every store. Only inserted objects and updated objects whose constrained
    /// attributes changed are checked: one indexed query per distinct set of values and
    /// constraint, none for entities without constraints. Rows this save deletes, or moves to
    /// other values, do not count.
    ///
    /// `storedIDs` runs a statement selecting `t.Z_PK, t.Z_ENT` with `values` bound to its
    /// parameters and returns the IDs of the rows it reads; `placeholder` is the parameter
    /// compared with a column of an attribute type (PostgreSQL casts a Decimal's exact text
    /// to `numeric`, ``SQLDialect/columnPlaceholder(_:)``).
    func uniquenessConflicts(in layout: StoreLayout, placeholder: (AttributeType?) -> String = { _ in "?" },
                             storedIDs: (_ sql: String, _ values: [SlotValue]) throws -> [ObjectID]) throws -> [ConstraintConflictError.Conflict] {
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
                let columns = slots.map { "t.\(mapping.columnBySlot[$0]!) = \(placeholder(declaring.attributeAtSlot[$0]?.attributeType))" }
                    .joined(separator: " AND ")
                let sql = "SELECT t.Z_PK, t.Z_ENT FROM \(mapping.table.name) t WHERE t.Z_ENT IN (\(family)) AND \(columns)"
                for (values, objects) in byValues {
                    let stored = try storedIDs(sql, values).filter { !leaving.contains($0) }
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
