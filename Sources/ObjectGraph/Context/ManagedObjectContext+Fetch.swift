import Foundation
import OrderedCollections

extension ManagedObjectContext {
    /// Fetches the objects `request` asks for, registering each once (uniquing): an object
    /// already registered in this context is returned as it is, with its unsaved changes.
    ///
    /// With `includesPendingChanges` (the default) unsaved inserts of the entity are included,
    /// unsaved deletes left out, and the sort order applied to unsaved edits too.
    ///
    /// - Complexity: one SQL query; O(n log n) in memory only while the context has unsaved
    ///   changes to the entity.
    /// - Throws: ``KeyValueError`` for an unknown sort key, ``ModelError`` for an unknown
    ///   entity, ``SQLiteError`` when the store fails.
    public func fetch<T: ManagedObject>(_ request: FetchRequest<T>) throws -> [T] {
        willAccess()
        processPendingChanges()
        let entity = try fetchEntity(request)
        let mapping = persistentStoreCoordinator.mapping(for: entity)
        let order = try sortColumns(request.sortDescriptors, entity)
        let pending = request.includesPendingChanges && hasPendingChanges(for: entity)
        var sql = "SELECT \(mapping.table.selectList) FROM \(mapping.table.name) t"
        if let condition = mapping.entityCondition(includesSubentities: request.includesSubentities) { sql += " WHERE \(condition)" }
        if !order.sql.isEmpty { sql += " ORDER BY \(order.sql)" }
        if !pending { sql += Self.pagingClause(limit: request.fetchLimit, offset: request.fetchOffset) }

        var objects: [ManagedObject] = []
        let codec = persistentStoreCoordinator.rowCodec
        try persistentStoreCoordinator.read { connection in
            try connection.query(sql) { statement in
                guard let row = codec.decode(statement) else { return }
                objects.append(register(row))
            }
        }
        if pending {
            objects = applyPendingChanges(to: objects, entity: entity, includesSubentities: request.includesSubentities)
            if !order.slots.isEmpty { objects.sort(by: order.areInIncreasingOrder) }
            objects = Self.page(objects, limit: request.fetchLimit, offset: request.fetchOffset)
        }
        return objects.map { unsafeDowncast($0, to: T.self) }
    }

    /// The number of objects `fetch(request)` would return, counted by SQLite
    /// (`SELECT COUNT(*)`), adjusted for unsaved inserts and deletes. Materializes nothing.
    public func count<T: ManagedObject>(for request: FetchRequest<T>) throws -> Int {
        willAccess()
        let entity = try fetchEntity(request)
        let mapping = persistentStoreCoordinator.mapping(for: entity)
        var sql = "SELECT COUNT(*) FROM \(mapping.table.name) t"
        if let condition = mapping.entityCondition(includesSubentities: request.includesSubentities) { sql += " WHERE \(condition)" }
        var count = 0
        try persistentStoreCoordinator.read { connection in
            if case .integer(let value)? = try connection.scalar(sql) { count = Int(value) }
        }
        if request.includesPendingChanges {
            let matches = { (object: ManagedObject) in
                request.includesSubentities ? object.entity.isKind(of: entity) : object.entity === entity
            }
            count += insertedSet.filter(matches).count
            count -= deletedSet.filter { !$0.isInserted && matches($0) }.count
        }
        count = max(0, count - request.fetchOffset)
        return request.fetchLimit > 0 ? min(count, request.fetchLimit) : count
    }

    /// The IDs of the objects `fetch(request)` would return, without materializing objects
    /// (when the context has no unsaved changes to the entity).
    public func fetchObjectIDs<T: ManagedObject>(_ request: FetchRequest<T>) throws -> [ObjectID] {
        willAccess()
        let entity = try fetchEntity(request)
        if request.includesPendingChanges && hasPendingChanges(for: entity) {
            return try fetch(request).map(\.objectID)
        }
        let mapping = persistentStoreCoordinator.mapping(for: entity)
        let order = try sortColumns(request.sortDescriptors, entity)
        var sql = "SELECT t.Z_PK, t.Z_ENT FROM \(mapping.table.name) t"
        if let condition = mapping.entityCondition(includesSubentities: request.includesSubentities) { sql += " WHERE \(condition)" }
        if !order.sql.isEmpty { sql += " ORDER BY \(order.sql)" }
        sql += Self.pagingClause(limit: request.fetchLimit, offset: request.fetchOffset)
        let layout = persistentStoreCoordinator.layout
        let store = persistentStoreCoordinator.store.identity
        var ids: [ObjectID] = []
        try persistentStoreCoordinator.read { connection in
            try connection.query(sql) { statement in
                guard let concrete = layout.entitiesByNumber[statement.int64(1)] else { return }
                ids.append(ObjectID(entity: concrete, store: store, primaryKey: statement.int64(0)))
            }
        }
        return ids
    }

    /// Runs `request` for its ``FetchRequest/resultType``.
    public func execute<T: ManagedObject>(_ request: FetchRequest<T>) throws -> FetchResults<T> {
        switch request.resultType {
        case .managedObject: return .objects(try fetch(request))
        case .managedObjectID: return .objectIDs(try fetchObjectIDs(request))
        case .count: return .count(try count(for: request))
        }
    }

    // MARK: Request parts

    func fetchEntity<T: ManagedObject>(_ request: FetchRequest<T>) throws -> EntityDescription {
        if let name = request.entityName {
            guard let entity = managedObjectModel.entitiesByName[name] else {
                throw ModelError(.unknownEntity, entity: name, "the model has no entity named \(name)")
            }
            guard entity.managedClass is T.Type else {
                throw ModelError(.unknownEntity, entity: name, "objects of \(name) are \(entity.managedClass), not \(T.self); use FetchRequest<ManagedObject> or FetchRequest<\(entity.managedClass)>")
            }
            return entity
        }
        guard let entity = managedObjectModel.entity(for: T.self) else {
            throw ModelError(.unknownEntity, entity: "\(T.self)", "\(T.self) is not an entity of this model; give the request an entityName")
        }
        return entity
    }

    static func pagingClause(limit: Int, offset: Int) -> String {
        if limit > 0 { return " LIMIT \(limit) OFFSET \(max(0, offset))" }
        if offset > 0 { return " LIMIT -1 OFFSET \(offset)" }
        return ""
    }

    static func page(_ objects: [ManagedObject], limit: Int, offset: Int) -> [ManagedObject] {
        let start = min(max(0, offset), objects.count)
        let end = limit > 0 ? min(objects.count, start + limit) : objects.count
        return Array(objects[start..<end])
    }

    struct SortOrder {
        var sql = ""
        var slots: [(slot: Int, ascending: Bool, caseInsensitive: Bool)] = []

        func areInIncreasingOrder(_ a: ManagedObject, _ b: ManagedObject) -> Bool {
            for key in slots {
                let order = SlotValue.compare(a.primitiveValue(slot: key.slot), b.primitiveValue(slot: key.slot), caseInsensitive: key.caseInsensitive)
                if order == .orderedSame { continue }
                return key.ascending ? order == .orderedAscending : order == .orderedDescending
            }
            return false
        }
    }

    /// SQL `ORDER BY` terms and in-memory comparators for `keys` on `entity`.
    func sortColumns(_ keys: [SortKey], _ entity: EntityDescription) throws -> SortOrder {
        var order = SortOrder()
        let mapping = persistentStoreCoordinator.mapping(for: entity)
        var terms: [String] = []
        for key in keys {
            guard let property = entity.propertiesByName[key.key],
                  let column = mapping.columnBySlot[property.slot] else {
                throw KeyValueError.unknownKey(key.key, entity: entity)
            }
            let collation = key.comparison == .caseInsensitive ? " COLLATE NOCASE" : ""
            terms.append("t.\(column)\(collation) \(key.ascending ? "ASC" : "DESC")")
            order.slots.append((property.slot, key.ascending, key.comparison == .caseInsensitive))
        }
        order.sql = terms.joined(separator: ", ")
        return order
    }

    func hasPendingChanges(for entity: EntityDescription) -> Bool {
        let root = entity.root
        return insertedSet.contains { $0.entity.root === root }
            || deletedSet.contains { $0.entity.root === root }
            || updatedSet.contains { $0.entity.root === root }
    }

    /// Removes deleted objects from `objects` and adds matching inserted ones.
    func applyPendingChanges(to objects: [ManagedObject], entity: EntityDescription, includesSubentities: Bool) -> [ManagedObject] {
        var result = objects.filter { !$0.isDeleted }
        for object in insertedSet where !object.isDeleted {
            if includesSubentities ? object.entity.isKind(of: entity) : object.entity === entity {
                result.append(object)
            }
        }
        return result
    }

    // MARK: Materializing rows

    /// The registered object for a fetched row: an existing one (a fault gets the row's
    /// values; an object with values keeps them), or a new one.
    @inline(__always)
    func register(_ row: RowCodec.Row) -> ManagedObject {
        if let existing = registered[row.id]?.takeUnretainedValue() {
            if existing.state.contains(.fault) { fill(existing, with: row.values, version: row.version) }
            return existing
        }
        let recorder = ReflectionRecorder.current
        recorder.materializing = true
        recorder.materializingID = row.id
        let object = row.id.entity.managedClass.init(entity: row.id.entity, insertInto: nil)
        object.context = self
        registered[row.id] = Unmanaged.passUnretained(object)
        fill(object, with: row.values, version: row.version)
        return object
    }

    @inline(__always)
    func fill(_ object: ManagedObject, with values: ContiguousArray<SlotValue>, version: Int64) {
        object.values = values
        object.snapshot = values
        object.version = version
        object.state.remove(.fault)
        object.awakeFromFetch()
    }

    // MARK: Faults

    /// Loads a fault's values (from the row cache, else one query). A row that no longer
    /// exists leaves the object deleted and unregistered, with default values.
    func fulfillFault(_ object: ManagedObject) {
        do {
            try loadFault(object)
        } catch {
            logger.error("cannot load \(object.objectID): \(error)")
            markVanished(object)
        }
    }

    func loadFault(_ object: ManagedObject) throws {
        guard object.state.contains(.fault) else { return }
        if let cached = persistentStoreCoordinator.rowCache.row(for: object.objectID) {
            fill(object, with: cached.values, version: cached.version)
            return
        }
        let mapping = persistentStoreCoordinator.mapping(for: object.entity)
        let sql = "SELECT \(mapping.table.selectList) FROM \(mapping.table.name) t WHERE t.Z_PK = ?"
        let codec = persistentStoreCoordinator.rowCodec
        var found = false
        try persistentStoreCoordinator.read { connection in
            try connection.query(sql, [.integer(object.objectID.key)]) { statement in
                guard let row = codec.decode(statement) else { return }
                found = true
                fill(object, with: row.values, version: row.version)
            }
        }
        if !found { markVanished(object) }
    }

    /// An object whose row is gone: deleted, unregistered, with default values.
    func markVanished(_ object: ManagedObject) {
        object.values = object.entity.newObjectValues()
        object.snapshot = object.values
        object.state = [.deleted]
        unregister(object)
    }

    /// The objects for `ids`, firing all of their faults with one query per 500.
    func objects(with ids: OrderedSet<ObjectID>) -> [ManagedObject] {
        let objects = ids.map { object(with: $0) }
        let faults = objects.filter { $0.state.contains(.fault) && persistentStoreCoordinator.rowCache.row(for: $0.objectID) == nil }
        if faults.count > 1 {
            do { try loadFaults(faults) } catch { logger.error("cannot load \(faults.count) objects: \(error)") }
        }
        return objects.filter { $0.context === self }
    }

    private func loadFaults(_ faults: [ManagedObject]) throws {
        let codec = persistentStoreCoordinator.rowCodec
        var byRoot: [ObjectIdentifier: [ManagedObject]] = [:]
        for fault in faults { byRoot[ObjectIdentifier(fault.entity.root), default: []].append(fault) }
        for group in byRoot.values {
            let mapping = persistentStoreCoordinator.mapping(for: group[0].entity)
            for start in stride(from: 0, to: group.count, by: 500) {
                let chunk = group[start..<min(group.count, start + 500)]
                let marks = Array(repeating: "?", count: chunk.count).joined(separator: ", ")
                let sql = "SELECT \(mapping.table.selectList) FROM \(mapping.table.name) t WHERE t.Z_PK IN (\(marks))"
                try persistentStoreCoordinator.read { connection in
                    try connection.query(sql, chunk.map { .integer($0.objectID.key) }) { statement in
                        if let row = codec.decode(statement) { _ = register(row) }
                    }
                }
            }
        }
        for fault in faults where fault.state.contains(.fault) { markVanished(fault) }
    }

    /// Loads a to-many relationship with one query that also fills its members' values.
    func loadToMany(_ object: ManagedObject, _ relationship: RelationshipDescription) {
        let coordinator = persistentStoreCoordinator
        let ownerMapping = coordinator.mapping(for: object.entity)
        let destination = coordinator.mapping(for: relationship.destinationEntity)
        var sql = "SELECT \(destination.table.selectList) FROM \(destination.table.name) t"
        if let join = ownerMapping.joinTableBySlot[relationship.slot] {
            sql += " JOIN \(join.name) j ON j.\(join.memberColumn) = t.Z_PK WHERE j.\(join.ownerColumn) = ?"
            if let order = join.orderColumn { sql += " ORDER BY j.\(order)" }
        } else if let inverse = relationship.inverseRelationship,
                  let column = coordinator.mapping(for: inverse.entity).columnBySlot[inverse.slot] {
            sql += " WHERE t.\(column) = ?"
            if let order = ownerMapping.orderColumnBySlot[relationship.slot] { sql += " ORDER BY t.\(order)" }
        }
        var ids = OrderedSet<ObjectID>()
        let codec = coordinator.rowCodec
        do {
            try coordinator.read { connection in
                try connection.query(sql, [.integer(object.objectID.key)]) { statement in
                    guard let row = codec.decode(statement) else { return }
                    ids.append(register(row).objectID)
                }
            }
        } catch {
            logger.error("cannot load \(object.entity.name).\(relationship.name) of \(object.objectID): \(error)")
        }
        object.values[relationship.slot] = .objects(ids)
        if !object.snapshot.isEmpty, case .unloaded = object.snapshot[relationship.slot] {
            object.snapshot[relationship.slot] = .objects(ids)
        }
    }
}
