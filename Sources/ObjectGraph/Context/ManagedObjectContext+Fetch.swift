import Foundation

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
        let objects = Self.downcast(try fetchObjects(plan, includesPendingChanges: request.includesPendingChanges,
                                                     limit: request.fetchLimit, offset: request.fetchOffset), to: T.self)
        if !request.relationshipKeyPathsForPrefetching.isEmpty {
            try prefetch(request.relationshipKeyPathsForPrefetching, for: objects, entity: plan.entity)
        }
        return objects
    }

    /// The objects `plan` selects, registered in this context, with its unsaved changes
    /// applied when `includesPendingChanges` (then sorted and paged in memory), in order.
    func fetchObjects(_ plan: FetchPlan, includesPendingChanges: Bool, limit: Int, offset: Int) throws -> ContiguousArray<ManagedObject> {
        let pending = includesPendingChanges && hasPendingChanges(for: plan.entity)
        // With pending changes the page is taken in memory, after they are applied.
        let query = pending ? plan.query() : plan.query(limit: limit, offset: offset)
        var fetched = ContiguousArray<ManagedObject>()
        do {
            defer { awakeFetched(fetched) }
            try store.fetchRows(query) { fetched.append(register($0)) }
        }
        guard pending else { return fetched }
        var merged = applyPendingChanges(to: Array(fetched), plan: plan, includesSubentities: plan.includesSubentities)
        if !plan.order.keys.isEmpty { merged.sort(by: plan.order.areInIncreasingOrder) }
        return ContiguousArray(Self.page(merged, limit: limit, offset: offset))
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
            // (In a child context an object its parent inserted has a temporary ID and is left
            // out by that ID: ParentContextStore reads keys back as IDs.)
            let changed = updatedSet.union(deletedSet).filter {
                $0.entity.root === plan.entity.root && (parent != nil || !$0.objectID.isTemporaryID)
            }
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
        count = try store.count(plan.query(), excluding: excluded)
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
        return try store.fetchObjectIDs(plan.query(limit: request.fetchLimit, offset: request.fetchOffset))
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
}
