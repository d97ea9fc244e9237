import Foundation

/// The reference transformation: what the store must hold after migrating a case's rows
/// from v1 to v2, worked out on the rows alone (docs/migration.md's rules), and what the
/// migration would drop.
extension MigrationGeneratorCase {
    /// What migrating must give: the rows, or the failures that must stop it.
    struct Expectation {
        var objects: [Int64: GenObject] = [:]
        /// Codes of `MigrationError`s that may stop the migration (empty: it succeeds).
        var failures: Set<String> = []
        /// Entity and attribute drops (entity, property or nil, rows), which the error must list.
        var drops: Set<DroppedItem> = []
        /// Relationship drops (the error lists them by either side).
        var relationshipDrops: [(DroppedItem, DroppedItem?)] = []
        /// `ident.attribute` of values that may also read nil: in a store without its model,
        /// an attribute new to an entity whose table has another entity's column of that
        /// name, empty in this entity's rows, cannot be told from an attribute that was nil.
        var nilAllowed: Set<String> = []

        var dropsData: Bool { !drops.isEmpty || !relationshipDrops.isEmpty }

        /// Links of `relationship` (on `entity`) to rows that are kept but are no longer of
        /// its destination: the migration removes them, which it may do only when allowed.
        mutating func lostLink(_ entity: String, _ relationship: GenRelationship, _ inverse: GenRelationship) {
            relationshipDrops.append((DroppedItem(entity: entity, property: relationship.name, rows: 0),
                                      DroppedItem(entity: relationship.destination, property: inverse.name, rows: 0)))
        }
    }

    struct DroppedItem: Hashable, CustomStringConvertible {
        let entity: String
        let property: String?
        let rows: Int
        var description: String { "\(entity)\(property.map { ".\($0)" } ?? ""): \(rows)" }
    }

    /// The v1 entity a v2 entity takes its rows from: by name, else by renaming identifier.
    func oldEntity(of entity: GenEntity) -> GenEntity? {
        v1.entity(entity.name) ?? entity.renamedFrom.flatMap { v1.entity($0) }
    }

    /// The v2 entity `old`'s rows go to.
    func newEntity(ofOld old: String) -> GenEntity? {
        v2.entities.first { oldEntity(of: $0)?.name == old }
    }

    /// The old attribute a new one reads: its renaming identifier's, else its name's.
    private func oldAttribute(_ attribute: GenAttribute, in old: String) -> GenAttribute? {
        let attributes = v1.attributes(of: old)
        return [attribute.renamedFrom, attribute.name].compactMap { $0 }.lazy.compactMap { name in attributes.first { $0.name == name } }.first
    }

    private func oldRelationship(_ relationship: GenRelationship, in old: String) -> GenRelationship? {
        let relationships = v1.relationships(of: old)
        return [relationship.renamedFrom, relationship.name].compactMap { $0 }.lazy.compactMap { name in relationships.first { $0.name == name } }.first
    }

    func expectation(oldKeys: [Int64: Int64], withoutRecordedModel: Bool) -> Expectation {
        var result = Expectation()
        let byIdent = Dictionary(uniqueKeysWithValues: objects.map { ($0.ident, $0) })
        // Entities and rows that are kept.
        for entity in v1.entities {
            let own = objects.filter { $0.entity == entity.name }
            guard let target = newEntity(ofOld: entity.name) else {
                if !own.isEmpty { result.drops.insert(DroppedItem(entity: entity.name, property: nil, rows: own.count)) }
                continue
            }
            let newAttributes = v2.attributes(of: target.name)
            let newRelationships = v2.relationships(of: target.name)
            // What the new entity has no place for.
            for attribute in v1.attributes(of: entity.name) where !newAttributes.contains(where: { oldAttribute($0, in: entity.name)?.name == attribute.name }) {
                let rows = own.filter { $0.values[attribute.name] != nil }.count
                if rows > 0 { result.drops.insert(DroppedItem(entity: entity.name, property: attribute.name, rows: rows)) }
            }
            for relationship in v1.relationships(of: entity.name) where !newRelationships.contains(where: { oldRelationship($0, in: entity.name)?.name == relationship.name }) {
                let rows = own.filter { !relationship.isToMany ? $0.toOne[relationship.name] != nil : !($0.toMany[relationship.name] ?? []).isEmpty }.count
                guard rows > 0 else { continue }
                let inverse = v1.inverse(of: relationship)
                result.relationshipDrops.append((DroppedItem(entity: entity.name, property: relationship.name, rows: rows),
                                                 inverse.map { DroppedItem(entity: relationship.destination, property: $0.name, rows: 0) }))
            }
            for object in own {
                var migrated = GenObject(entity: target.name, ident: object.ident)
                for attribute in newAttributes {
                    var value: GenValue?
                    if let old = oldAttribute(attribute, in: entity.name) {
                        if let stored = object.values[old.name] {
                            do { value = try Self.convert(stored, to: attribute.type) } catch { result.failures.insert("unconvertibleValue") }
                        }
                        if value == nil && !attribute.isOptional { value = attribute.defaultValue }
                    } else {
                        value = attribute.defaultValue
                        let table = v1.family(of: v1.root(of: entity.name))
                        let names = [attribute.name, attribute.renamedFrom].compactMap { $0 }
                        if withoutRecordedModel && table.contains(where: { v1.attributes(of: $0).contains { names.contains($0.name) } }) {
                            result.nilAllowed.insert("\(object.ident).\(attribute.name)")
                        }
                    }
                    if value == nil && !attribute.isOptional { result.failures.insert("missingValue") }
                    if let value { migrated.values[attribute.name] = normalized(value, attribute.type) }
                }
                result.objects[object.ident] = migrated
            }
        }
        // Relationships: stored sides first (to-ones, and many-to-many edges), then the
        // to-many sides of one-to-many relationships, which read their inverse's keys.
        let newEntityOf = { (ident: Int64) -> String? in result.objects[ident]?.entity }
        for (ident, migrated) in result.objects {
            let object = byIdent[ident]!
            for relationship in v2.relationships(of: migrated.entity) {
                guard let inverse = v2.inverse(of: relationship) else { continue }
                let family = Set(v2.family(of: relationship.destination))
                let oldMembers = oldRelationship(relationship, in: object.entity).map { old in
                    old.isToMany ? object.toMany[old.name] ?? [] : Set(object.toOne[old.name].map { [$0] } ?? [])
                } ?? []
                if !relationship.isToMany {
                    // The member with the smallest old key, if it is still of the destination.
                    if let first = oldMembers.min(by: { oldKeys[$0]! < oldKeys[$1]! }), let entity = newEntityOf(first) {
                        if family.contains(entity) {
                            result.objects[ident]!.toOne[relationship.name] = first
                        } else {
                            result.lostLink(migrated.entity, relationship, inverse)
                        }
                    }
                } else if inverse.isToMany {
                    // Many-to-many: the old edges, from whichever side stored them.
                    var members = oldMembers
                    if oldRelationship(relationship, in: object.entity) == nil {
                        members = Set(objects.filter { other in
                            guard let otherEntity = newEntityOf(other.ident), v2.family(of: relationship.destination).contains(otherEntity),
                                  let oldInverse = oldRelationship(inverse, in: other.entity) else { return false }
                            return oldInverse.isToMany ? (other.toMany[oldInverse.name] ?? []).contains(ident) : other.toOne[oldInverse.name] == ident
                        }.map(\.ident))
                    }
                    let kept = members.filter { newEntityOf($0).map(family.contains) ?? false }
                    if members.contains(where: { newEntityOf($0).map { !family.contains($0) } ?? false }) {
                        result.lostLink(migrated.entity, relationship, inverse)
                    }
                    if !kept.isEmpty { result.objects[ident]!.toMany[relationship.name] = kept }
                }
            }
        }
        for (ident, migrated) in result.objects {
            for relationship in v2.relationships(of: migrated.entity) where relationship.isToMany {
                guard let inverse = v2.inverse(of: relationship), !inverse.isToMany else { continue }
                let family = Set(v2.family(of: relationship.destination))
                let members = result.objects.values.filter { family.contains($0.entity) && $0.toOne[inverse.name] == ident }.map(\.ident)
                if !members.isEmpty { result.objects[ident]!.toMany[relationship.name] = Set(members) }
            }
        }
        return result
    }

    /// `value` as the store gives it back for `type`.
    func normalized(_ value: GenValue, _ type: GenType) -> GenValue {
        switch (value, type) {
        case (.integer(let v), .boolean): return .boolean(v != 0)
        case (.boolean(let b), _) where type.isInteger: return .integer(b ? 1 : 0)
        default: return value
        }
    }
}
