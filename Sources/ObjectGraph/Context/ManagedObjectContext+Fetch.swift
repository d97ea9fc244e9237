import Foundation
import OrderedCollections

extension ManagedObjectContext {
    /// Fetches the objects `request` asks for, registering each once (uniquing): an object
    /// already registered in this context is returned as it is, with its unsaved changes.
    ///
    /// The store answers the predicate, the sort order and the paging. With
    /// `includesPendingChanges` (the default) the context's unsaved changes count too: an
    /// unsaved insert that matches is included, an unsaved delete left out, an unsaved edit
    /// judged by its new value, and all of them sorted in with the same order.
    ///
    /// - Complexity: one SQL query (plus one per prefetched relationship); in memory, the
    ///   predicate and sort run only over the context's unsaved changes to the entity.
    /// - Throws: ``FetchPredicateError`` for an unknown key or a type mismatch in the predicate,
    ///   ``KeyValueError`` for an unknown sort key, ``ModelError`` for an unknown entity,
    ///   ``StoreError`` when the store fails.
    public func fetch<T: ManagedObject>(_ request: FetchRequest<T>) throws -> [T] {
        willAccess()
        processPendingChanges()
        let plan = try FetchPlan(request, self)
        let pending = request.includesPendingChanges && hasPendingChanges(for: plan.entity)
        // With pending changes the page is taken in memory, after they are applied.
        let query = pending ? plan.query() : plan.query(limit: request.fetchLimit, offset: request.fetchOffset)
        var fetched = ContiguousArray<ManagedObject>()
        do {
            defer { awakeFetched(fetched) }
            try persistentStoreCoordinator.store.fetchRows(query) { fetched.append(register($0)) }
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

    /// The number of objects `fetch(request)` would return, counted by the store with one
    /// `SELECT COUNT(*)` and adjusted for unsaved changes. Materializes nothing.
    public func count<T: ManagedObject>(for request: FetchRequest<T>) throws -> Int {
        willAccess()
        let plan = try FetchPlan(request, self, sorted: false)
        var excluded: [Int64] = []
        var count = 0
        var extra = 0
        if request.includesPendingChanges && hasPendingChanges(for: plan.entity) {
            // Rows of changed objects are judged in memory on their new values instead.
            let changed = updatedSet.union(deletedSet).filter { $0.entity.root === plan.entity.root && !$0.objectID.isTemporaryID }
            if changed.count > 16_384 {   // too many keys for one statement to leave out: count a fetch
                var plain = request
                (plain.fetchLimit, plain.fetchOffset, plain.relationshipKeyPathsForPrefetching) = (0, 0, [])
                count = try fetchObjectIDs(plain).count
                count = max(0, count - request.fetchOffset)
                return request.fetchLimit > 0 ? min(count, request.fetchLimit) : count
            }
            excluded = changed.map(\.objectID.key)
            for object in insertedSet.union(updatedSet) where !object.isDeleted && plan.matches(object, includesSubentities: request.includesSubentities) {
                extra += 1
            }
        }
        count = try persistentStoreCoordinator.store.count(plan.query(), excluding: excluded)
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
        return try persistentStoreCoordinator.store.fetchObjectIDs(plan.query(limit: request.fetchLimit, offset: request.fetchOffset))
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
    func register(_ row: StoreRow) -> ManagedObject {
        if let existing = registered[row.id] {
            if existing.state.contains(.fault) { fill(existing, with: row.values, version: row.version) }
            return existing
        }
        let object = ReflectionRecorder.materialize(row.id)
        object.context = self
        registered.set(object, for: row.id)
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
        var found = false
        try persistentStoreCoordinator.store.rows(of: [object.objectID]) { row in
            found = true
            fill(object, with: row.values, version: row.version)
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
        try persistentStoreCoordinator.store.rows(of: faults.map(\.objectID)) { _ = register($0) }
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
        var members: [ManagedObject] = []
        do {
            try persistentStoreCoordinator.store.relatedRows(relationship, owners: [object.objectID.key]) { _, row in
                members.append(register(row))
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
