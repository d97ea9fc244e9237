import Foundation

/// Core Data's SQLite layout for a model: tables, columns, join tables and indexes, with the
/// entity numbers (`Z_ENT`) of one store.
///
/// One table per root entity (`Z` + uppercased name) holding its sub-entities' rows too;
/// columns `Z_PK`, `Z_ENT`, `Z_OPT`, then `Z` + uppercased property name: foreign keys first,
/// then attributes by column type. Many-to-many relationships use `Z_<n><REL>` join tables.
struct StoreLayout {
    let model: ManagedObjectModel
    /// By entity index.
    let mappings: [EntityMapping]
    let tables: [TableMapping]
    /// `Z_ENT` by entity name, and back.
    let numbers: [String: Int64]
    let entitiesByNumber: [Int64: EntityDescription]
    /// Entities indexed by `Z_ENT`, for reading rows without hashing.
    let entityByNumber: [EntityDescription?]
    /// Each join table once: its naming side's mapping, its two key columns, its order columns.
    private(set) var joinTables: [(JoinTableMapping, ownerColumn: String, memberColumn: String, orderColumns: [String])] = []

    /// Core Data's numbering: roots alphabetically, each followed by its sub-entities.
    static func defaultNumbers(for model: ManagedObjectModel) -> [String: Int64] {
        var numbers: [String: Int64] = [:]
        for (index, entity) in model.entities.enumerated() { numbers[entity.name] = Int64(index + 1) }
        return numbers
    }

    init(model: ManagedObjectModel, numbers: [String: Int64]) {
        self.model = model
        self.numbers = numbers
        var byNumber: [Int64: EntityDescription] = [:]
        for entity in model.entities { byNumber[numbers[entity.name]!] = entity }
        entitiesByNumber = byNumber
        var indexed = [EntityDescription?](repeating: nil, count: Int(byNumber.keys.max() ?? 0) + 1)
        for (number, entity) in byNumber { indexed[Int(number)] = entity }
        entityByNumber = indexed

        var tables: [ObjectIdentifier: TableMapping] = [:]
        var mappings: [EntityMapping] = []
        for entity in model.entities {
            let root = entity.root
            let table = tables[ObjectIdentifier(root)] ?? TableMapping(root: root)
            tables[ObjectIdentifier(root)] = table
            let mapping = EntityMapping(entity: entity, entityNumber: numbers[entity.name]!, table: table)
            mapping.familyNumbers = entity.selfAndDescendants.map { numbers[$0.name]! }
            mappings.append(mapping)
        }
        self.mappings = mappings
        self.tables = model.entities.filter { $0.superentity == nil }.map { tables[ObjectIdentifier($0)]! }

        for table in self.tables { addColumns(of: table) }
        addRelationshipStorage()
        for table in self.tables { table.finish() }
        for mapping in mappings {
            Self.buildInsert(mapping)
            mapping.buildReadPlan()
            mapping.deleteSQL = "DELETE FROM \(mapping.table.name) WHERE Z_PK = ? AND Z_OPT = ?"
            var seen = Set<String>()
            for case let join? in mapping.joinTableBySlot where seen.insert(join.name + join.ownerColumn).inserted {
                mapping.joinRowDeletes.append("DELETE FROM \(join.name) WHERE \(join.ownerColumn) = ?")
            }
        }
    }

    /// Adds every stored property of a table's entities as a column, Core Data's order.
    private func addColumns(of table: TableMapping) {
        var seen = Set<ObjectIdentifier>()
        var foreignKeys: [RelationshipDescription] = []
        var attributes: [AttributeDescription] = []
        for entity in table.root.selfAndDescendants {
            for property in entity.properties where seen.insert(ObjectIdentifier(property)).inserted {
                if let attribute = property as? AttributeDescription, !attribute.isTransient { attributes.append(attribute) }
                if let relationship = property as? RelationshipDescription, !relationship.isToMany { foreignKeys.append(relationship) }
            }
        }
        let typeOrder = ["INTEGER", "FLOAT", "DECIMAL", "TIMESTAMP", "VARCHAR", "BLOB"]
        attributes.sort {
            let (a, b) = (typeOrder.firstIndex(of: $0.attributeType.columnType)!, typeOrder.firstIndex(of: $1.attributeType.columnType)!)
            return a != b ? a < b : $0.name.uppercased() < $1.name.uppercased()
        }
        var used = Set<String>()
        func uniqueColumn(_ name: String) -> String {
            var column = "Z" + name.uppercased()
            var suffix = 1
            while used.contains(column) { column = "Z" + name.uppercased() + String(suffix); suffix += 1 }
            used.insert(column)
            return column
        }
        for relationship in foreignKeys {
            let column = uniqueColumn(relationship.name)
            let index = table.addColumn(column, type: "INTEGER", indexed: true)
            var entityColumn: String?
            var entityIndex: Int32 = -1
            if !relationship.destinationEntity.subentities.isEmpty {
                let name = "Z\(numbers[relationship.destinationEntity.root.name]!)_\(relationship.name.uppercased())"
                entityColumn = name
                entityIndex = table.addColumn(name, type: "INTEGER")
            }
            for mapping in mappingsHaving(relationship) {
                mapping.columnBySlot[relationship.slot] = column
                mapping.readIndexBySlot[relationship.slot] = index
                mapping.entityColumnBySlot[relationship.slot] = entityColumn
                mapping.readEntityIndexBySlot[relationship.slot] = entityIndex
            }
        }
        for attribute in attributes {
            let column = uniqueColumn(attribute.name)
            let index = table.addColumn(column, type: attribute.attributeType.columnType)
            for mapping in mappingsHaving(attribute) {
                mapping.columnBySlot[attribute.slot] = column
                mapping.readIndexBySlot[attribute.slot] = index
            }
        }
    }

    /// Mappings of the entities that have `property` (its entity and the sub-entities below).
    private func mappingsHaving(_ property: PropertyDescription) -> [EntityMapping] {
        property.entity.selfAndDescendants.map { mappings[$0.index] }
    }

    /// Join tables and ordering columns for to-many relationships.
    private mutating func addRelationshipStorage() {
        var done = Set<ObjectIdentifier>()
        for entity in model.entities {
            for relationship in entity.properties.compactMap({ $0 as? RelationshipDescription })
            where relationship.entity === entity && relationship.isToMany && done.insert(ObjectIdentifier(relationship)).inserted {
                if !relationship.usesJoinTable {
                    // One-to-many: stored as the inverse's foreign key; ordered adds Z_FOK_.
                    guard relationship.isOrdered, let inverse = relationship.inverseRelationship else { continue }
                    let column = "Z_FOK_" + inverse.name.uppercased()
                    mappings[inverse.entity.index].table.addColumn(column, type: "INTEGER")
                    for mapping in mappingsHaving(relationship) { mapping.orderColumnBySlot[relationship.slot] = column }
                    continue
                }
                let inverse = relationship.inverseRelationship
                if let inverse { done.insert(ObjectIdentifier(inverse)) }
                let primary = Self.namingSide(relationship, inverse, numbers: numbers)
                let other = primary === relationship ? inverse : relationship
                let owner = numbers[primary.entity.name]!
                let table = "Z_\(owner)\(primary.name.uppercased())"
                let memberColumn = "Z_\(numbers[primary.destinationEntity.name]!)\(primary.name.uppercased())"
                let ownerColumn = "Z_\(owner)\((other?.name ?? primary.entity.name).uppercased())"
                // The ordered side (if exactly one is ordered) writes the rows, so its order is
                // kept in a Z_FOK_ column; otherwise the side that names the table writes.
                let primaryWrites = primary.isOrdered || !(other?.isOrdered ?? false)
                let primaryJoin = JoinTableMapping(name: table, ownerColumn: ownerColumn, memberColumn: memberColumn,
                                                   orderColumn: primary.isOrdered ? "Z_FOK_" + memberColumn.dropFirst(2) : nil,
                                                   isWritingSide: primaryWrites)
                for mapping in mappingsHaving(primary) { mapping.joinTableBySlot[primary.slot] = primaryJoin }
                var orderColumns = primaryJoin.orderColumn.map { [$0] } ?? []
                if let other {
                    let otherJoin = JoinTableMapping(name: table, ownerColumn: memberColumn, memberColumn: ownerColumn,
                                                     orderColumn: other.isOrdered ? "Z_FOK_" + ownerColumn.dropFirst(2) : nil,
                                                     isWritingSide: !primaryWrites)
                    for mapping in mappingsHaving(other) { mapping.joinTableBySlot[other.slot] = otherJoin }
                    if let order = otherJoin.orderColumn { orderColumns.append(order) }
                }
                joinTables.append((primaryJoin, ownerColumn, memberColumn, orderColumns))
            }
        }
    }

    /// The side whose name the join table takes: the larger name; on a tie, the lower entity.
    private static func namingSide(_ a: RelationshipDescription, _ b: RelationshipDescription?, numbers: [String: Int64]) -> RelationshipDescription {
        guard let b else { return a }
        let (nameA, nameB) = (a.name.uppercased(), b.name.uppercased())
        if nameA != nameB { return nameA > nameB ? a : b }
        return numbers[a.entity.name]! <= numbers[b.entity.name]! ? a : b
    }

    private static func buildInsert(_ mapping: EntityMapping) {
        var columns = ["Z_PK", "Z_ENT", "Z_OPT"]
        for slot in mapping.columnBySlot.indices {
            guard let column = mapping.columnBySlot[slot] else { continue }
            mapping.insertSlots.append(slot)
            columns.append(column)
            if let entityColumn = mapping.entityColumnBySlot[slot] { columns.append(entityColumn) }
        }
        let marks = Array(repeating: "?", count: columns.count).joined(separator: ", ")
        mapping.insertSQL = "INSERT INTO \(mapping.table.name) (\(columns.joined(separator: ", "))) VALUES (\(marks))"
    }

    // MARK: DDL

    /// The statements that create an empty store of this layout.
    func createStatements() -> [String] {
        var statements: [String] = []
        for table in tables {
            let columns = ["Z_PK INTEGER PRIMARY KEY", "Z_ENT INTEGER", "Z_OPT INTEGER"] + table.columns.map { "\($0.name) \($0.type)" }
            statements.append("CREATE TABLE \(table.name) ( \(columns.joined(separator: ", ")) )")
            statements += indexStatements(for: table)
        }
        for (join, ownerColumn, memberColumn, orderColumns) in joinTables {
            statements += joinTableStatements(join, ownerColumn: ownerColumn, memberColumn: memberColumn, orderColumns: orderColumns)
        }
        statements += uniqueIndexStatements()
        statements.append("CREATE TABLE Z_PRIMARYKEY (Z_ENT INTEGER PRIMARY KEY, Z_NAME VARCHAR, Z_SUPER INTEGER, Z_MAX INTEGER)")
        statements.append("CREATE TABLE Z_METADATA (Z_VERSION INTEGER PRIMARY KEY, Z_UUID VARCHAR(255), Z_PLIST BLOB)")
        statements.append("CREATE TABLE Z_MODELCACHE (Z_CONTENT BLOB)")
        return statements
    }

    func indexStatements(for table: TableMapping) -> [String] {
        var statements = table.indexedColumns.map { "CREATE INDEX IF NOT EXISTS \(table.name)_\($0)_INDEX ON \(table.name) (\($0))" }
        if table.root.selfAndDescendants.count > 1 {
            statements.append("CREATE INDEX IF NOT EXISTS \(table.name)_Z_ENT_INDEX ON \(table.name) (Z_ENT)")
        }
        return statements
    }

    /// The table (and its member index) for `join`: its owner, member and order columns.
    func joinTableStatements(_ join: JoinTableMapping, ownerColumn: String, memberColumn: String, orderColumns: [String]) -> [String] {
        let columns = ["\(ownerColumn) INTEGER", "\(memberColumn) INTEGER"] + orderColumns.map { "\($0) INTEGER" }
        return [
            "CREATE TABLE IF NOT EXISTS \(join.name) ( \(columns.joined(separator: ", ")), PRIMARY KEY (\(ownerColumn), \(memberColumn)) )",
            "CREATE INDEX IF NOT EXISTS \(join.name)_\(memberColumn)_INDEX ON \(join.name) (\(memberColumn), \(ownerColumn))",
        ]
    }

    /// Rows for `Z_PRIMARYKEY`: each entity's number, name and parent's number.
    func primaryKeyRows() -> [(number: Int64, name: String, parent: Int64)] {
        model.entities.map { entity in
            (numbers[entity.name]!, entity.name, entity.superentity.map { numbers[$0.name]! } ?? 0)
        }
    }
}
