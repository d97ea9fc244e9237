import Foundation

/// A fetch request resolved against the model of one context: its entity, its predicate
/// bound, its sort keys resolved. Built per fetch; holds no objects and no SQL (each store
/// compiles ``query`` in its own dialect).
struct FetchPlan {
    let entity: EntityDescription
    let includesSubentities: Bool
    /// The predicate bound to the entity, for the store and for judging unsaved objects in memory.
    let predicate: BoundNode?
    let order: SortPlan

    /// The plan of `request`; without `sorted`, its sort keys are left out (counts, aggregates).
    init<T: ManagedObject>(_ request: FetchRequest<T>, _ context: ManagedObjectContext, sorted: Bool = true) throws {
        let entity = try context.fetchEntity(request)
        try self.init(entity: entity, predicate: request.predicate, includesSubentities: request.includesSubentities,
                      sortKeys: sorted ? request.sortDescriptors : [])
    }

    init(entity: EntityDescription, predicate: FetchPredicate?, includesSubentities: Bool, sortKeys: [SortKey]) throws {
        self.entity = entity
        self.includesSubentities = includesSubentities
        if let predicate {
            var binder = PredicateBinder(entity: entity)
            self.predicate = try binder.bind(predicate.translatedNode())
        } else {
            self.predicate = nil
        }
        order = try SortPlan(sortKeys, entity: entity)
    }

    /// The plan a child context's query stands for, to run in its parent (same model).
    init(_ query: StoreQuery) {
        entity = query.entity
        includesSubentities = query.includesSubentities
        predicate = query.predicate
        order = SortPlan(keys: query.sortKeys)
    }

    /// What the store is asked: this plan, with a page (`limit` 0: all).
    func query(limit: Int = 0, offset: Int = 0) -> StoreQuery {
        StoreQuery(entity: entity, includesSubentities: includesSubentities, predicate: predicate, sortKeys: order.keys,
                   limit: limit, offset: offset)
    }

    /// Whether the predicate admits every row (none, or `TRUEPREDICATE`).
    var admitsEveryRow: Bool { query().admitsEveryRow }

    /// Whether an object (typically an unsaved one) belongs in the results, judged in memory.
    func matches(_ object: ManagedObject, includesSubentities: Bool) -> Bool {
        guard includesSubentities ? object.entity.isKind(of: entity) : object.entity === entity else { return false }
        guard let predicate else { return true }
        return PredicateEvaluator.evaluate(predicate, object)
    }
}
