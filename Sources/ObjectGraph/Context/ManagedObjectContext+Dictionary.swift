import Foundation

extension ManagedObjectContext {
    /// Rows of values rather than objects: one dictionary per matching object (or per group),
    /// keyed by the names of ``FetchRequest/propertiesToFetch`` (every attribute when empty).
    /// One SQL statement; materializes no objects; reads the saved state of the store.
    ///
    /// For example, the mean salary per department with more than two people:
    ///
    /// ```swift
    /// var request = FetchRequest<Employee>()
    /// request.propertiesToFetch = ["department.name", .aggregate(.average, of: "salary", as: "mean"),
    ///                              .aggregate(.count, of: "age", as: "n")]
    /// request.propertiesToGroupBy = ["department.name"]
    /// request.havingPredicate = try FetchPredicate("n > 2")
    /// request.sortDescriptors = [SortKey("department.name")]
    /// let rows = try context.fetchDictionaries(request)   // [["department.name": "Sales", "mean": 6666.6, "n": 3]]
    /// ```
    ///
    /// Values are as ``ManagedObject/value(forKey:)`` returns them (object IDs for to-one
    /// relationships); nil values are left out of their dictionary. `.count` gives `Int`,
    /// `.average` `Double` (an exact `Decimal` for a Decimal attribute), `.sum` `Int` over
    /// integers, an exact `Decimal` over Decimals, else `Double`; `.min` and `.max` the
    /// attribute's type.
    ///
    /// - Throws: ``FetchPredicateError`` for an unknown key or a having predicate that names
    ///   something not fetched; ``StoreError`` when the store fails.
    public func fetchDictionaries<T: ManagedObject>(_ request: FetchRequest<T>) throws -> [[String: Any]] {
        willAccess()
        let entity = try fetchEntity(request)
        let plan = try FetchPlan(entity: entity, predicate: request.predicate, includesSubentities: request.includesSubentities,
                                 sortKeys: [])
        var expressions = request.propertiesToFetch
        if expressions.isEmpty {
            expressions = entity.attributes.filter { !$0.isTransient }.map { FetchExpression($0.name) }
        }
        var columns: [DictionaryQuery.Column] = []
        for expression in expressions {
            let (path, kind) = try PredicateBinder.scalarPath(expression.keyPath, on: entity)
            if let function = expression.function, (function == .sum || function == .average) && kind != .number {
                throw FetchPredicateError(.typeMismatch, "\(function.rawValue) needs a number, but \(entity.name).\(expression.keyPath) is a \(kind)",
                                          entity: entity.name, key: expression.keyPath)
            }
            columns.append(.init(name: expression.name, path: path, kind: kind, function: expression.function))
        }
        let groups = try request.propertiesToGroupBy.map { try PredicateBinder.scalarPath($0, on: entity).0 }
        // A sort key naming a fetched column (an aggregate's name, too) sorts by that column.
        let order: [DictionaryQuery.Order] = try request.sortDescriptors.map { key in
            if let index = columns.firstIndex(where: { $0.name == key.key }) { return .column(index, key) }
            return .path(try SortPlan([key], entity: entity).keys[0])
        }
        let query = DictionaryQuery(query: plan.query(limit: request.fetchLimit, offset: request.fetchOffset), columns: columns,
                                    groupBy: groups, having: request.havingPredicate?.node, order: order,
                                    distinct: request.returnsDistinctResults)
        return try store.dictionaryRows(query).map { values in
            var row: [String: Any] = [:]
            for (column, value) in zip(columns, values) where !value.isNull {
                switch (column.function, value) {
                case (.count?, .int(let v)): row[column.name] = Int(v)
                case (.sum?, .int(let v)): row[column.name] = Int(v)
                case (.sum?, .double(let v)), (.average?, .double(let v)): row[column.name] = v
                case (.sum?, .decimal(let v)), (.average?, .decimal(let v)): row[column.name] = v
                default:
                    if let external = Self.external(value, column.path) { row[column.name] = external }
                }
            }
            return row
        }
    }
}
