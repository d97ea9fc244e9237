import Foundation
import OrderedCollections

extension ManagedObjectContext {
    /// Fetches the objects `request` asks for, registering each once (uniquing): an object
    /// already registered in this context is returned as it is, with its unsaved changes.
    ///
    /// SQLite answers the predicate, the sort order and the paging. With
    /// `includesPendingChanges` (the default) the context's unsaved changes count too: an
    /// unsaved insert that matches is included, an unsaved delete left out, an unsaved edit
    /// judged by its new value, and all of them sorted in with the same order.
    ///
    /// - Complexity: one SQL query (plus one per prefetched relationship); in memory, the
    ///   predicate and sort run only over the context's unsaved changes to the entity.
    /// - Throws: ``FetchPredicateError`` for an unknown key or a type mismatch in the predicate,
    ///   ``KeyValueError`` for an unknown sort key, ``ModelError`` for an unknown entity,
    ///   ``SQLiteError`` when the store fails.
    public func fetch<T: ManagedObject>(_ request: FetchRequest<T>) throws -> [T] {
        willAccess()
        processPendingChanges()
        let plan = try FetchPlan(request, self)
        let pending = request.includesPendingChanges && hasPendingChanges(for: plan.entity)
        var sql = "SELECT \(plan.mapping.table.selectList) FROM \(plan.mapping.table.name) t" + plan.whereClause
        if !plan.order.sql.isEmpty { sql += " ORDER BY \(plan.order.sql)" }
        var arguments = plan.arguments
        if !pending { sql += Self.pagingClause(limit: request.fetchLimit, offset: request.fetchOffset, arguments: &arguments) }

        var fetched = ContiguousArray<ManagedObject>()
        let codec = persistentStoreCoordinator.rowCodec
        do {
            defer { awakeFetched(fetched) }
            try persistentStoreCoordinator.read { connection in
                let statement = try connection.prepare(sql)
                defer { statement.reset() }
                try statement.bind(arguments)
                while try statement.step() {
                    guard let row = codec.decode(statement) else { continue }
                    guard row.id.entity.isKind(of: plan.entity) else {
                        throw codec.misplaced(row, table: plan.mapping.table.name, url: persistentStoreCoordinator.storeURL)
                    }
                    fetched.append(register(row))
                }
            }
        }
        var objects = Self.downcast(fetched, to: T.self)
        if pending {
            var merged = applyPendingChanges(to: objects, plan: plan, includesSubentities: request.includesSubentities)
            if !plan.order.keys.isEmpty { merged.sort(by: plan.order.areInIncreasingOrder) }
            objects = Self.page(merged, limit: request.fetchLimit, offset: request.fetchOffset).map { unsafeDowncast($0, to: T.self) }
        }
        if !request.relationshipKeyPathsForPrefetching.isEmpty {
            try prefetch(request.relationshipKeyPathsForPrefetching, for: objects, entity: plan.entity)
        }
        return objects
    }

    /// The number of objects `fetch(request)` would return, counted by SQLite with one
    /// `SELECT COUNT(*)` and adjusted for unsaved changes. Materializes nothing.
    public func count<T: ManagedObject>(for request: FetchRequest<T>) throws -> Int {
        willAccess()
        let plan = try FetchPlan(request, self, sorted: false)
        var sql = "SELECT COUNT(*) FROM \(plan.mapping.table.name) t" + plan.whereClause
        var arguments = plan.arguments
        var count = 0
        var extra = 0
        if request.includesPendingChanges && hasPendingChanges(for: plan.entity) {
            // Rows of changed objects are judged in memory on their new values instead.
            let changed = updatedSet.union(deletedSet).filter { $0.entity.root === plan.entity.root && !$0.objectID.isTemporaryID }
            if ParameterList.paddedCount(changed.count) > 16_384 {   // near SQLite's parameter limit: count a fetch
                var plain = request
                (plain.fetchLimit, plain.fetchOffset, plain.relationshipKeyPathsForPrefetching) = (0, 0, [])
                count = try fetchObjectIDs(plain).count
                count = max(0, count - request.fetchOffset)
                return request.fetchLimit > 0 ? min(count, request.fetchLimit) : count
            }
            if !changed.isEmpty {
                sql += (plan.whereClause.isEmpty ? " WHERE " : " AND ") + "t.Z_PK NOT IN (\(ParameterList.placeholders(changed.count)))"
                ParameterList.append(changed.map { .integer($0.objectID.key) }, to: &arguments)
            }
            for object in insertedSet.union(updatedSet) where !object.isDeleted && plan.matches(object, includesSubentities: request.includesSubentities) {
                extra += 1
            }
        }
        try persistentStoreCoordinator.read { connection in
            if case .integer(let value)? = try connection.scalar(sql, arguments) { count = Int(value) }
        }
        count = max(0, count + extra - request.fetchOffset)
        return request.fetchLimit > 0 ? min(count, request.fetchLimit) : count
    }

    /// The IDs of the objects `fetch(request)` would return, without materializing objects
    /// (when the context has no unsaved changes to the entity).
    public func fetchObjectIDs<T: ManagedObject>(_ request: FetchRequest<T>) throws -> [ObjectID] {
        willAccess()
        let plan = try FetchPlan(request, self)
        if request.includesPendingChanges && hasPendingChanges(for: plan.entity) {
            var plain = request
            plain.relationshipKeyPathsForPrefetching = []
            return try fetch(plain).map(\.objectID)
        }
        var sql = "SELECT t.Z_PK, t.Z_ENT FROM \(plan.mapping.table.name) t" + plan.whereClause
        if !plan.order.sql.isEmpty { sql += " ORDER BY \(plan.order.sql)" }
        var arguments = plan.arguments
        sql += Self.pagingClause(limit: request.fetchLimit, offset: request.fetchOffset, arguments: &arguments)
        let layout = persistentStoreCoordinator.layout
        let store = persistentStoreCoordinator.store.identity
        var ids: [ObjectID] = []
        try persistentStoreCoordinator.read { connection in
            try connection.query(sql, arguments) { statement in
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
        case .dictionary: return .dictionaries(try fetchDictionaries(request))
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

    /// `objects` as `[T]`. Objects of the entity (or a sub-entity) are instances of T or of a
    /// subclass of T. (Collecting rows into a non-generic array and converting once avoids a
    /// generic-metadata lookup per appended row in this unspecialized code.)
    static func downcast<T: ManagedObject>(_ objects: ContiguousArray<ManagedObject>, to type: T.Type) -> [T] {
        [T](unsafeUninitializedCapacity: objects.count) { buffer, count in
            for index in objects.indices {
                (buffer.baseAddress.unsafelyUnwrapped + index).initialize(to: unsafeDowncast(objects[index], to: T.self))
            }
            count = objects.count
        }
    }

    /// `LIMIT ? OFFSET ?` with its two values appended to `arguments` (bound, so every page
    /// of a request shares one SQL text and one prepared statement), or nothing.
    static func pagingClause(limit: Int, offset: Int, arguments: inout [SQLiteValue]) -> String {
        guard limit > 0 || offset > 0 else { return "" }
        arguments += [.integer(Int64(limit > 0 ? limit : -1)), .integer(Int64(max(0, offset)))]
        return " LIMIT ? OFFSET ?"
    }

    static func page(_ objects: [ManagedObject], limit: Int, offset: Int) -> [ManagedObject] {
        let start = min(max(0, offset), objects.count)
        let end = limit > 0 ? min(objects.count, start + limit) : objects.count
        return Array(objects[start..<end])
    }

    func hasPendingChanges(for entity: EntityDescription) -> Bool {
        let root = entity.root
        return insertedSet.contains { $0.entity.root === root }
            || deletedSet.contains { $0.entity.root === root }
            || updatedSet.contains { $0.entity.root === root }
    }

    /// The store's matches with the context's unsaved changes applied: deleted objects out,
    /// changed objects judged on their new values, matching inserted objects in.
    func applyPendingChanges(to objects: [some ManagedObject], plan: FetchPlan, includesSubentities: Bool) -> [ManagedObject] {
        var result: [ManagedObject] = objects.filter { !$0.isDeleted && (!$0.isUpdated || plan.matches($0, includesSubentities: includesSubentities)) }
        var present = Set(result.lazy.map(ObjectIdentifier.init))
        for object in insertedSet.union(updatedSet) where !object.isDeleted && !present.contains(ObjectIdentifier(object)) {
            if plan.matches(object, includesSubentities: includesSubentities) {
                result.append(object)
                present.insert(ObjectIdentifier(object))
            }
        }
        return result
    }

    // MARK: Materializing rows

    /// The registered object for a fetched row: an existing one (a fault gets the row's
    /// values; an object with values keeps them), or a new one. A filled object awaits its
    /// `awakeFromFetch()`, which the caller runs once the read is over (``awakeFetched(_:)``).
    @inline(__always)
    func register(_ row: RowCodec.Row) -> ManagedObject {
        if let existing = registered[row.id]?.takeUnretainedValue() {
            if existing.state.contains(.fault) { fill(existing, with: row.values, version: row.version) }
            return existing
        }
        let object = ReflectionRecorder.materialize(row.id)
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
        object.state.insert(.awaitingAwake)
    }

    // MARK: Faults

    /// Loads a fault's values (from the row cache, else one query) for a property access,
    /// which cannot throw. A row that no longer exists leaves the object deleted and
    /// unregistered, with default values (Core Data's `shouldDeleteInaccessibleFaults`).
    /// A read that fails stops the process (Core Data's "could not fulfill a fault"): the
    /// values are unknown, and neither the object nor the store may change.
    func fulfillFault(_ object: ManagedObject) {
        do {
            try loadFault(object)
        } catch {
            stopAfterFailedRead("could not fulfill a fault for \(object.objectID.uriRepresentation.absoluteString)", error)
        }
    }

    /// Loads a fault's values, or throws what the read threw, leaving the fault as it was.
    func loadFault(_ object: ManagedObject) throws {
        guard object.state.contains(.fault) else { return }
        if let cached = persistentStoreCoordinator.rowCache.row(for: object.objectID) {
            fill(object, with: cached.values, version: cached.version)
            awake(object)
            return
        }
        let mapping = persistentStoreCoordinator.mapping(for: object.entity)
        let sql = "SELECT \(mapping.table.selectList) FROM \(mapping.table.name) t WHERE t.Z_PK = ?"
        let codec = persistentStoreCoordinator.rowCodec
        var found = false
        try persistentStoreCoordinator.read { connection in
            try connection.query(sql, [.integer(object.objectID.key)]) { statement in
                guard let decoded = codec.decode(statement) else { return }
                let row = try codec.checked(decoded, from: mapping.table, url: persistentStoreCoordinator.storeURL)
                found = true
                fill(object, with: row.values, version: row.version)
            }
        }
        if found {
            awake(object)
        } else {
            logger.warning("\(object.objectID) no longer exists in the store: it is now deleted")
            markVanished(object)
        }
    }

    /// An object whose row is gone: deleted, unregistered, with default values, and no
    /// longer among the changes to save.
    func markVanished(_ object: ManagedObject) {
        object.values = object.entity.newObjectValues()
        object.snapshot = object.values
        object.state = [.deleted]
        updatedSet.remove(object)
        deletedSet.remove(object)
        unregister(object)
    }

    /// The objects for `ids`, firing all of their faults with one query per 500. When the
    /// query fails the objects stay faults (each loads, or stops, when touched).
    func objects(with ids: OrderedSet<ObjectID>) -> [ManagedObject] {
        do {
            return try loadObjects(with: ids)
        } catch {
            logger.error("cannot load \(ids.count) objects: \(error)")
            return ids.map { object(with: $0) }.filter { $0.context === self }
        }
    }

    /// The objects for `ids`, firing all of their faults with one query per 500, or throws
    /// what the query threw.
    func loadObjects(with ids: OrderedSet<ObjectID>) throws -> [ManagedObject] {
        let objects = ids.map { object(with: $0) }
        let faults = objects.filter { $0.state.contains(.fault) && persistentStoreCoordinator.rowCache.row(for: $0.objectID) == nil }
        if faults.count > 1 { try loadFaults(faults) }
        return objects.filter { $0.context === self }
    }

    private func loadFaults(_ faults: [ManagedObject]) throws {
        defer { awakeFetched(faults) }
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
                        if let row = codec.decode(statement) {
                            _ = register(try codec.checked(row, from: mapping.table, url: persistentStoreCoordinator.storeURL))
                        }
                    }
                }
            }
        }
        let vanished = faults.filter { $0.state.contains(.fault) }
        if !vanished.isEmpty { logger.warning("\(vanished.count) objects no longer exist in the store: they are now deleted") }
        for fault in vanished { markVanished(fault) }
    }

    /// Loads a to-many relationship for a property access, which cannot throw: a read that
    /// fails stops the process, since an empty relationship in its place would be saved
    /// (a join table rewritten with only new members) and skipped by delete rules.
    @discardableResult
    func loadToMany(_ object: ManagedObject, _ relationship: RelationshipDescription) -> [ManagedObject] {
        do {
            return try readToMany(object, relationship)
        } catch {
            stopAfterFailedRead("could not load \(object.entity.name).\(relationship.name) of \(object.objectID.uriRepresentation.absoluteString)", error)
        }
    }

    /// Loads a to-many relationship with one query that also fills its members' values, or
    /// throws what the query threw, leaving the relationship unloaded.
    func readToMany(_ object: ManagedObject, _ relationship: RelationshipDescription) throws -> [ManagedObject] {
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
        var members: [ManagedObject] = []
        let codec = coordinator.rowCodec
        do {
            try coordinator.read { connection in
                try connection.query(sql, [.integer(object.objectID.key)]) { statement in
                    guard let row = codec.decode(statement) else { return }
                    members.append(register(try codec.checked(row, from: destination.table, url: coordinator.storeURL)))
                }
            }
        } catch {
            awakeFetched(members)
            throw error
        }
        // Sized once (appending to an empty set regrows and rehashes its table repeatedly).
        var ids = OrderedSet<ObjectID>(minimumCapacity: members.count)
        for member in members { ids.append(member.objectID) }
        if ids.count != members.count {     // a join table may list a member twice
            var seen = Set<ObjectIdentifier>()
            members = members.filter { seen.insert(ObjectIdentifier($0)).inserted }
        }
        object.values[relationship.slot] = .objects(ids)
        if !object.snapshot.isEmpty, case .unloaded = object.snapshot[relationship.slot] {
            object.snapshot[relationship.slot] = .objects(ids)
        }
        awakeFetched(members)       // with the relationship in place, for hooks that look at it
        return members
    }
}
