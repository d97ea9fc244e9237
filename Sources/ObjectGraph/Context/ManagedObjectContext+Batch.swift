import Foundation

extension ManagedObjectContext {
    /// Deletes what `request` selects, in SQL inside one write transaction, applying delete
    /// rules; then every context on the coordinator (this one at once, others at their next
    /// entry point) marks the deleted objects deleted and refreshes nullified ones.
    ///
    /// With a predicate, the selected keys are kept in a temporary table (so that nullify
    /// rules cannot change the selection) and read back to tell the contexts. Without one
    /// (or with `TRUEPREDICATE`) the rows are deleted with one `DELETE` and never read:
    /// contexts are told that every object of the entity (and of its sub-entities, when
    /// included) saved before the delete is gone, and find those among their registered
    /// objects; objects saved afterwards, and unsaved inserted ones, are not affected.
    ///
    /// Observers hear `.objectsDidChange` in each context, listing the deleted and refreshed
    /// objects that context had registered; a batch delete posts no `.didSave`.
    ///
    /// - Complexity: a handful of statements per entity and relationship touched (cascaded
    ///   IDs in chunks of 500); no object is materialized. Without a predicate, no row is read
    ///   unless ``BatchDeleteRequest/resultType`` asks for ``BatchDeleteRequest/ResultType/objectIDs``,
    ///   and each context makes one pass over its registered objects.
    /// - Throws: ``BatchRequestError`` (`denied`) when a deny rule finds destinations,
    ///   ``FetchPredicateError`` for a bad predicate, ``StoreError``; the store is then unchanged.
    @discardableResult
    public func execute(_ request: BatchDeleteRequest) throws -> BatchResult {
        willAccess()
        let entity = try batchEntity(request.entityName)
        let plan = try FetchPlan(entity: entity, predicate: request.predicate, includesSubentities: request.includesSubentities,
                                 sortKeys: [])
        let listsIDs = request.resultType == .objectIDs
        let outcome = try store.batchDelete(plan.query(), listingIDs: listsIDs, author: transactionAuthor, contextName: name)
        let updatedRows = outcome.nullified.map { (id: $0.id, values: $0.values, version: $0.version) }
        var changes = ChangeSet()
        changes.deleted = Array(outcome.deleted)
        changes.deletedEntities = outcome.deletedEntities.map { [$0] } ?? []
        changes.changes.deleted = outcome.deleted
        changes.updated = updatedRows
        changes.changes.updated = Set(updatedRows.map(\.id))
        publishBatch(changes)
        return BatchResult(count: outcome.count, objectIDs: listsIDs ? outcome.listed : [], cascadedObjectIDs: outcome.cascaded,
                           nullifiedObjectIDs: updatedRows.map(\.id))
    }

    /// Sets ``BatchUpdateRequest/propertiesToUpdate`` on what `request` selects with one SQL
    /// `UPDATE` (per 500 rows) inside one transaction; then every context's registered objects
    /// show the new values (objects with unsaved changes keep theirs until they save).
    ///
    /// - Throws: ``BatchRequestError`` (`invalidUpdate`) for a key that is not a stored
    ///   attribute, a value of the wrong type, or a number the store would not read back
    ///   unchanged (NaN; a long Decimal on SQLite, as a save refuses it); ``FetchPredicateError``; ``StoreError``.
    @discardableResult
    public func execute(_ request: BatchUpdateRequest) throws -> BatchResult {
        willAccess()
        let entity = try batchEntity(request.entityName)
        var values: [(attribute: AttributeDescription, value: SlotValue)] = []
        for (key, value) in request.propertiesToUpdate.sorted(by: { $0.key < $1.key }) {
            guard let attribute = entity.propertiesByName[key] as? AttributeDescription, !attribute.isTransient,
                  persistentStoreCoordinator.layout.mappings[entity.index].columnBySlot[attribute.slot] != nil else {
                throw BatchRequestError(code: .invalidUpdate, entity: entity.name, key: key, message: "\(entity.name) has no stored attribute named '\(key)'")
            }
            let given = try PredicateValue.from(value.map { $0 as Any })
            guard var (stored, _) = PredicateBinder.convert(given, to: ValueKind(attribute.attributeType)),
                  !(stored.isNull && !attribute.isOptional) else {
                throw BatchRequestError(code: .invalidUpdate, entity: entity.name, key: key,
                                        message: "\(entity.name).\(key) is \(attribute.isOptional ? "an optional " : "a non-optional ")\(attribute.attributeType.swiftTypeName), not \(given.typeName) \(given)")
            }
            // A Decimal stays one (a predicate compares it as a double): the store keeps what it can exactly.
            if attribute.attributeType == .decimal, case .decimal(let decimal) = given { stored = .decimal(decimal) }
            if let reason = stored.unstorableReason(decimals: store.decimalStorage) {
                throw BatchRequestError(code: .invalidUpdate, entity: entity.name, key: key,
                                        message: "\(entity.name).\(key) \(reason); nothing was written")
            }
            values.append((attribute, stored))
        }
        let plan = try FetchPlan(entity: entity, predicate: request.predicate, includesSubentities: request.includesSubentities,
                                 sortKeys: [])
        let stored = try store.batchUpdate(plan.query(), values, author: transactionAuthor, contextName: name)
        let rows = stored.map { (id: $0.id, values: $0.values, version: $0.version) }
        var changes = ChangeSet()
        changes.updated = rows
        changes.changes.updated = Set(rows.map(\.id))
        let keys = Set(request.propertiesToUpdate.keys)
        for row in rows { changes.changes.changedKeys[row.id] = keys }
        publishBatch(changes)
        return BatchResult(count: rows.count, objectIDs: rows.map(\.id), cascadedObjectIDs: [], nullifiedObjectIDs: [])
    }

    private func batchEntity(_ name: String) throws -> EntityDescription {
        guard let entity = managedObjectModel.entitiesByName[name] else {
            throw ModelError(.unknownEntity, entity: name, "the model has no entity named \(name)")
        }
        return entity
    }

    /// Tells every context (this one now, the others at their next entry point).
    private func publishBatch(_ changes: ChangeSet) {
        let coordinator = persistentStoreCoordinator
        coordinator.rowCache.remove(changes.deleted + changes.updated.map(\.id))
        for deletion in changes.deletedEntities { coordinator.rowCache.remove(deletion) }
        coordinator.broadcast(changes, from: self)
        enqueue(changes)
        drainInbox()
    }
}

extension Array {
    /// Consecutive slices of at most `size` elements.
    func chunks(_ size: Int) -> [ArraySlice<Element>] {
        stride(from: 0, to: count, by: size).map { self[$0..<Swift.min(count, $0 + size)] }
    }
}
