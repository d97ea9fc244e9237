import Foundation

/// A fetch request resolved against the model of one context: its entity and table, its
/// predicate bound and compiled to SQL, its sort keys resolved. Built per fetch; holds no
/// objects.
struct FetchPlan {
    let entity: EntityDescription
    let mapping: EntityMapping
    /// The predicate bound to the entity, for judging unsaved objects in memory.
    let predicate: BoundNode?
    /// `" WHERE ..."` (entity condition and predicate) or empty.
    let whereClause: String
    let arguments: [SQLiteValue]
    let order: SortPlan

    /// The plan of `request`; without `sorted`, its sort keys are left out (counts, aggregates).
    init<T: ManagedObject>(_ request: FetchRequest<T>, _ context: ManagedObjectContext, sorted: Bool = true) throws {
        let entity = try context.fetchEntity(request)
        try self.init(entity: entity, predicate: request.predicate, includesSubentities: request.includesSubentities,
                      sortKeys: sorted ? request.sortDescriptors : [], coordinator: context.persistentStoreCoordinator)
    }

    init(entity: EntityDescription, predicate: FetchPredicate?, includesSubentities: Bool, sortKeys: [SortKey],
         coordinator: PersistentStoreCoordinator) throws {
        self.entity = entity
        mapping = coordinator.mapping(for: entity)
        var compiler = PredicateSQLCompiler(layout: coordinator.layout)
        var conditions: [String] = []
        if let condition = mapping.entityCondition(includesSubentities: includesSubentities) { conditions.append(condition) }
        if let predicate {
            var binder = PredicateBinder(entity: entity)
            let bound = try binder.bind(predicate.node)
            self.predicate = bound
            if case .constant(true) = bound {} else { conditions.append("(" + compiler.condition(bound) + ")") }
        } else {
            self.predicate = nil
        }
        order = try SortPlan(sortKeys, entity: entity, compiler: &compiler)
        whereClause = conditions.isEmpty ? "" : " WHERE " + conditions.joined(separator: " AND ")
        arguments = compiler.arguments
    }

    /// Whether the predicate admits every row (none, or `TRUEPREDICATE`): the entity
    /// condition alone selects, and ``whereClause`` takes no arguments.
    var admitsEveryRow: Bool {
        guard let predicate else { return true }
        if case .constant(true) = predicate { return true }
        return false
    }

    /// Whether an object (typically an unsaved one) belongs in the results, judged in memory.
    func matches(_ object: ManagedObject, includesSubentities: Bool) -> Bool {
        guard includesSubentities ? object.entity.isKind(of: entity) : object.entity === entity else { return false }
        guard let predicate else { return true }
        return PredicateEvaluator.evaluate(predicate, object)
    }
}

/// Sort keys as SQL `ORDER BY` terms and as an in-memory comparator with the same order.
struct SortPlan {
    var sql = ""
    /// Each key's SQL expression and what follows it (collation and direction).
    var clauses: [(expression: String, suffix: String)] = []
    var keys: [(path: BoundPath, ascending: Bool, comparison: SortKey.Comparison)] = []

    init(_ sortKeys: [SortKey], entity: EntityDescription, compiler: inout PredicateSQLCompiler) throws {
        var terms: [String] = []
        for key in sortKeys {
            let path: BoundPath
            do {
                path = try PredicateBinder.scalarPath(key.key, on: entity).0
            } catch let error as FetchPredicateError where error.code == .unknownKey {
                throw KeyValueError.unknownKey(key.key, entity: entity)
            }
            let expression = compiler.expression(path)
            let suffix = Self.suffix(for: key)
            clauses.append((expression, suffix))
            terms.append(expression + suffix)
            keys.append((path, key.ascending, key.comparison))
        }
        sql = terms.joined(separator: ", ")
    }

    /// The collation and direction that follow a sort key's expression.
    static func suffix(for key: SortKey) -> String {
        var suffix = ""
        switch key.comparison {
        case .binary: break
        case .caseInsensitive: suffix += " COLLATE OG_NOCASE"
        case .localizedStandard: suffix += " COLLATE OG_LOCALIZED"
        }
        return suffix + (key.ascending ? " ASC" : " DESC")
    }

    func areInIncreasingOrder(_ a: ManagedObject, _ b: ManagedObject) -> Bool {
        for key in keys {
            let order = Self.compare(PredicateEvaluator.value(key.path, [a]), PredicateEvaluator.value(key.path, [b]), key.comparison)
            if order == .orderedSame { continue }
            return key.ascending ? order == .orderedAscending : order == .orderedDescending
        }
        return false
    }

    /// SQLite's order with the sort key's collation: NULL first, numbers, text, bytes.
    static func compare(_ a: SlotValue, _ b: SlotValue, _ comparison: SortKey.Comparison) -> ComparisonResult {
        if let x = PredicateEvaluator.text(a), let y = PredicateEvaluator.text(b) {
            switch comparison {
            case .binary: return TextOrder.scalars(x, y)
            case .caseInsensitive: return TextOrder.caseInsensitive(x, y)
            case .localizedStandard: return TextOrder.localizedStandard(x, y)
            }
        }
        return PredicateEvaluator.order(a, b) ?? SlotValue.compare(a, b, caseInsensitive: false)
    }
}
