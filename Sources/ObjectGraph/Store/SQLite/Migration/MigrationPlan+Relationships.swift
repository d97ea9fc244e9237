import Foundation

/// Relationships in a migration: to-one foreign keys, join tables, and the conversions
/// between them when a relationship changes between to-one and to-many (the old storage is
/// read whichever form it had: a foreign key on either side, or a join table).
extension MigrationPlan {
    /// An old join table that stored `relationship`, with the column holding the keys of
    /// `relationship`'s own side and the column holding its destination's keys.
    struct SourceJoin {
        let table: String
        let ownColumn: String
        let destinationColumn: String
    }

    private static func names(of relationship: RelationshipDescription?) -> Set<String> {
        guard let relationship else { return [] }
        var names: Set<String> = [relationship.name.uppercased()]
        if let old = relationship.fileDetails.renamingIdentifier { names.insert(old.uppercased()) }
        return names
    }

    /// `Z_<digits><NAME>` split into the number and the name, or nil.
    static func splitNumbered(_ name: String) -> (number: Int64, name: String)? {
        guard name.hasPrefix("Z_"), !name.hasPrefix("Z_FOK_") else { return nil }
        let rest = name.dropFirst(2)
        let digits = rest.prefix { $0.isNumber }
        guard !digits.isEmpty, let number = Int64(digits), digits.count < rest.count else { return nil }
        return (number, String(rest.dropFirst(digits.count)))
    }

    /// The old join table of `relationship` (or of its inverse), if the store has one.
    func sourceJoin(for relationship: RelationshipDescription) -> SourceJoin? {
        let own = Self.names(of: relationship)
        let inverse = Self.names(of: relationship.inverseRelationship)
        let ownNumber = sourceEntity(of: relationship.entity)?.number
        let inverseNumber = relationship.inverseRelationship.flatMap { sourceEntity(of: $0.entity)?.number }
        for (table, columns) in source.columns.sorted(by: { $0.key < $1.key }) {
            guard let (number, name) = Self.splitNumbered(table) else { continue }
            let keys = columns.keys.sorted().filter { Self.splitNumbered($0) != nil }
            guard keys.count == 2 else { continue }
            // The table is named after the side whose destination the member column holds:
            // `Z_<owner><NAME>` with columns `Z_<owner's other name>` and `Z_<destination><NAME>`.
            let namedAfterOwn = own.contains(name) && number == ownNumber
            let namedAfterInverse = inverse.contains(name) && number == inverseNumber
            guard namedAfterOwn || namedAfterInverse else { continue }
            let members = keys.filter { Self.splitNumbered($0)?.name == name }
            guard let member = members.last, let other = keys.first(where: { $0 != member }) else { continue }
            return namedAfterOwn ? SourceJoin(table: table, ownColumn: other, destinationColumn: member)
                                 : SourceJoin(table: table, ownColumn: member, destinationColumn: other)
        }
        return nil
    }

    /// The SQL giving a to-one's new foreign key from an old row `s` of the old entity
    /// `from`: its old column, else the first destination of what was a to-many (join table,
    /// or the inverse's foreign key) when `from` had it.
    func toOneExpression(_ relationship: RelationshipDescription, from: SourceSchema.Entity) -> String {
        let destination = relationship.destinationEntity!
        let shift = offset(of: destination)
        if let old = sourceColumn(for: relationship, of: from) {
            return "s.\(quote(old)) + \(shift)"
        }
        // A join table or an inverse's foreign key holds keys of the old rows of the
        // relationship's entity; rows that came from another table (an entity that moved
        // into the hierarchy) had no such relationship, and their keys would match others'.
        guard sourceEntity(of: relationship.entity).map({ source.family(of: $0).contains(from.number) }) ?? true else { return "NULL" }
        if let join = sourceJoin(for: relationship) {
            reads.tables.insert(join.table)
            return "(SELECT min(j.\(quote(join.destinationColumn))) FROM \(dialect.source).\(quote(join.table)) j WHERE j.\(quote(join.ownColumn)) = s.Z_PK) + \(shift)"
        }
        if let inverse = relationship.inverseRelationship, let target = sourceEntity(of: destination) {
            let destinationTable = source.table(of: target)
            if let key = sourceColumn(for: inverse, of: target, family: destination) {
                return "(SELECT min(d.Z_PK) FROM \(dialect.source).\(quote(destinationTable)) d WHERE d.\(quote(key)) = s.Z_PK AND d.Z_ENT IN (\(sourceNumbers(of: destination)))) + \(shift)"
            }
        }
        return "NULL"
    }

    /// The old entity numbers of `entity` and the entities below it, for SQL: only their
    /// rows hold `entity`'s relationships (another entity's same-named column is not read).
    private func sourceNumbers(of entity: EntityDescription) -> String {
        let numbers = entity.selfAndDescendants.compactMap { sourceEntity(of: $0)?.number }
        return numbers.isEmpty ? "NULL" : numbers.map(String.init).joined(separator: ", ")
    }

    // MARK: Join tables

    /// Fills each new join table from the old join table, or from the foreign key of what
    /// was a one-to-many.
    mutating func planJoinTables() throws {
        for (join, ownerColumn, memberColumn, orderColumns) in layout.joinTables {
            guard let primary = primaryRelationship(of: join) else { continue }
            let owner = primary.entity
            let member = primary.destinationEntity!
            let (ownerShift, memberShift) = (offset(of: owner), offset(of: member))
            var select: String?
            var extraColumns: [String] = []
            var extraValues: [String] = []
            if let old = sourceJoin(for: primary) {
                reads.tables.insert(old.table)
                for order in orderColumns {
                    guard let sourceOrder = sourceOrderColumn(for: order, in: old.table) else { continue }
                    extraColumns.append(order)
                    extraValues.append("j.\(quote(sourceOrder))")
                }
                select = "SELECT j.\(quote(old.ownColumn)) + \(ownerShift), j.\(quote(old.destinationColumn)) + \(memberShift)\(extraValues.map { ", " + $0 }.joined()) FROM \(dialect.source).\(quote(old.table)) j"
            } else if let from = sourceEntity(of: owner), let key = sourceColumn(for: primary, of: from, family: owner) {
                select = "SELECT o.Z_PK + \(ownerShift), o.\(quote(key)) + \(memberShift) FROM \(dialect.source).\(quote(source.table(of: from))) o WHERE o.\(quote(key)) IS NOT NULL AND o.Z_ENT IN (\(sourceNumbers(of: owner)))"
            } else if let inverse = primary.inverseRelationship, let from = sourceEntity(of: member),
                      let key = sourceColumn(for: inverse, of: from, family: member) {
                select = "SELECT d.\(quote(key)) + \(ownerShift), d.Z_PK + \(memberShift) FROM \(dialect.source).\(quote(source.table(of: from))) d WHERE d.\(quote(key)) IS NOT NULL AND d.Z_ENT IN (\(sourceNumbers(of: member)))"
            }
            guard let select else { continue }
            joinCopies.append(dialect.insertIgnoring("\(dialect.target).\(join.name)", ([ownerColumn, memberColumn] + extraColumns).joined(separator: ", "), select))
            let ownerMapping = layout.mappings[owner.index]
            let memberMapping = layout.mappings[member.index]
            let lost = """
                FROM \(dialect.target).\(join.name) WHERE \(ownerColumn) NOT IN (SELECT Z_PK FROM \(dialect.target).\(ownerMapping.table.name) WHERE Z_ENT IN (\(ownerMapping.familyNumbers.map(String.init).joined(separator: ", ")))) \
                OR \(memberColumn) NOT IN (SELECT Z_PK FROM \(dialect.target).\(memberMapping.table.name) WHERE Z_ENT IN (\(memberMapping.familyNumbers.map(String.init).joined(separator: ", "))))
                """
            fixUps.append("DELETE " + lost)
            lossChecks.append(LossCheck(entity: owner.name, property: primary.name, sql: "SELECT count(*) " + lost))
        }
    }

    /// The old join table's order column for a new one: `Z_FOK_<n><NAME>` with the same
    /// name, whatever the entity number (which renumbering changes).
    private func sourceOrderColumn(for column: String, in table: String) -> String? {
        if source.columnType(column, in: table) != nil { return column }
        func name(_ order: String) -> String? {
            guard order.hasPrefix("Z_FOK_") else { return nil }
            return Self.splitNumbered("Z_" + order.dropFirst(6))?.name
        }
        guard let wanted = name(column) else { return nil }
        return source.columns[table]?.keys.sorted().first { name($0) == wanted }
    }

    /// The relationship whose join table `join` is, seen from the side that names it.
    private func primaryRelationship(of join: JoinTableMapping) -> RelationshipDescription? {
        for entity in layout.model.entities {
            for relationship in entity.relationships where relationship.entity === entity {
                if let mapped = layout.mappings[entity.index].joinTableBySlot[relationship.slot],
                   mapped.name == join.name, mapped.ownerColumn == join.ownerColumn {
                    return relationship
                }
            }
        }
        return nil
    }

    // MARK: Fix-ups

    /// To-ones pointing at rows that were not kept become nil (as deleting them would make
    /// them), and the entity column beside a to-one is filled from its destination's row.
    /// Each fix-up that removes links has a ``LossCheck`` counting them first.
    mutating func planFixUps() {
        for entity in layout.model.entities {
            let mapping = layout.mappings[entity.index]
            for relationship in entity.relationships where relationship.entity === entity && !relationship.isToMany {
                guard let column = mapping.columnBySlot[relationship.slot] else { continue }
                let destination = layout.mappings[relationship.destinationEntity.index]
                let family = mapping.familyNumbers.map(String.init).joined(separator: ", ")
                let destinationFamily = destination.familyNumbers.map(String.init).joined(separator: ", ")
                let table = mapping.table.name
                let lost = "WHERE Z_ENT IN (\(family)) AND \(column) IS NOT NULL AND \(column) NOT IN (SELECT Z_PK FROM \(dialect.target).\(destination.table.name) WHERE Z_ENT IN (\(destinationFamily)))"
                fixUps.append("UPDATE \(dialect.target).\(table) SET \(column) = NULL " + lost)
                lossChecks.append(LossCheck(entity: entity.name, property: relationship.name, sql: "SELECT count(*) FROM \(dialect.target).\(table) " + lost))
                if let entityColumn = mapping.entityColumnBySlot[relationship.slot] {
                    fixUps.append("UPDATE \(dialect.target).\(table) SET \(entityColumn) = (SELECT d.Z_ENT FROM \(dialect.target).\(destination.table.name) d WHERE d.Z_PK = \(dialect.target).\(table).\(column)) WHERE Z_ENT IN (\(family))")
                }
            }
        }
    }
}
