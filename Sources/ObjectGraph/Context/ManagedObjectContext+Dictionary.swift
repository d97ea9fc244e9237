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
    ///   something not fetched; ``SQLiteError`` when the store fails.
    public func fetchDictionaries<T: ManagedObject>(_ request: FetchRequest<T>) throws -> [[String: Any]] {
        willAccess()
        let entity = try fetchEntity(request)
        let plan = try FetchPlan(entity: entity, predicate: request.predicate, includesSubentities: request.includesSubentities,
                                 sortKeys: [], coordinator: persistentStoreCoordinator)
        var expressions = request.propertiesToFetch
        if expressions.isEmpty {
            expressions = entity.attributes.filter { !$0.isTransient }.map { FetchExpression($0.name) }
        }
        var compiler = PredicateSQLCompiler(layout: persistentStoreCoordinator.layout)
        var columns: [(name: String, path: BoundPath, kind: ValueKind, function: AggregateFunction?)] = []
        var terms: [String] = []
        for (index, expression) in expressions.enumerated() {
            let (path, kind) = try PredicateBinder.scalarPath(expression.keyPath, on: entity)
            let value = compiler.expression(path)
            if let function = expression.function {
                if (function == .sum || function == .average) && kind != .number {
                    throw FetchPredicateError(.typeMismatch, "\(function.rawValue) needs a number, but \(entity.name).\(expression.keyPath) is a \(kind)",
                                              entity: entity.name, key: expression.keyPath)
                }
                terms.append("\(function.sql(of: value, type: path.attributeType)) AS c\(index)")
            } else {
                terms.append("\(value) AS c\(index)")
            }
            columns.append((expression.name, path, kind, expression.function))
        }
        var groups: [String] = []
        for key in request.propertiesToGroupBy {
            let (path, _) = try PredicateBinder.scalarPath(key, on: entity)
            groups.append(compiler.expression(path))
        }
        let selectArguments = compiler.arguments
        var sql = "SELECT \(request.returnsDistinctResults ? "DISTINCT " : "")\(terms.joined(separator: ", ")) FROM \(plan.mapping.table.name) t"
        sql += plan.whereClause
        var arguments = selectArguments + plan.arguments
        if !groups.isEmpty { sql += " GROUP BY " + groups.joined(separator: ", ") }
        if let having = request.havingPredicate {
            var havingCompiler = HavingCompiler(names: Dictionary(uniqueKeysWithValues: columns.enumerated().map { ($1.name, "c\($0)") }), entity: entity)
            sql += " HAVING " + (try havingCompiler.compile(having.node))
            arguments += havingCompiler.arguments
        }
        if !request.sortDescriptors.isEmpty {
            // A sort key naming a fetched column (an aggregate's name, too) sorts by that column.
            var terms: [String] = []
            for key in request.sortDescriptors {
                if let index = columns.firstIndex(where: { $0.name == key.key }) {
                    terms.append("c\(index)" + SortPlan.suffix(for: key))
                } else {
                    var sortCompiler = PredicateSQLCompiler(layout: persistentStoreCoordinator.layout)
                    let order = try SortPlan([key], entity: entity, compiler: &sortCompiler)
                    terms.append(order.clauses[0].expression + order.clauses[0].suffix)
                }
            }
            sql += " ORDER BY " + terms.joined(separator: ", ")
        }
        sql += Self.pagingClause(limit: request.fetchLimit, offset: request.fetchOffset, arguments: &arguments)

        var rows: [[String: Any]] = []
        try persistentStoreCoordinator.read { connection in
            try connection.query(sql, arguments) { statement in
                var row: [String: Any] = [:]
                for (index, column) in columns.enumerated() {
                    let i = Int32(index)
                    if statement.isNull(i) { continue }
                    switch column.function {
                    case .count?: row[column.name] = Int(statement.int64(i))
                    case .sum? where column.path.attributeType == .decimal, .average? where column.path.attributeType == .decimal:
                        row[column.name] = Self.exactDecimal(statement, i)
                    case .average?: row[column.name] = statement.double(i)
                    case .sum?:
                        row[column.name] = statement.columnType(i) == 1 ? Int(statement.int64(i)) as Any : statement.double(i) as Any
                    default:
                        if let value = Self.external(slotValue(statement, i, kind: column.kind, path: column.path), column.path) { row[column.name] = value }
                    }
                }
                rows.append(row)
            }
        }
        return rows
    }
}

/// Compiles a having predicate: comparisons between fetched column names and constants.
private struct HavingCompiler {
    let names: [String: String]
    let entity: EntityDescription
    var arguments: [SQLiteValue] = []

    init(names: [String: String], entity: EntityDescription) {
        self.names = names
        self.entity = entity
    }

    mutating func compile(_ node: PredicateNode) throws -> String {
        switch node {
        case .constant(let value): return value ? "1" : "0"
        case .not(let inner): return "NOT COALESCE((\(try compile(inner))), 0)"
        case .and(let nodes): return try nodes.map { "(\(try compile($0)))" }.joined(separator: " AND ")
        case .or(let nodes): return try nodes.map { "(\(try compile($0)))" }.joined(separator: " OR ")
        case .comparison(let c):
            guard c.quantifier == .direct, c.options.isEmpty else { throw unsupported(c) }
            let left = try operand(c.lhs)
            switch c.op {
            case .equal: return "\(left) IS \(try operand(c.rhs))"
            case .notEqual: return "\(left) IS NOT \(try operand(c.rhs))"
            case .less: return "\(left) < \(try operand(c.rhs))"
            case .lessOrEqual: return "\(left) <= \(try operand(c.rhs))"
            case .greater: return "\(left) > \(try operand(c.rhs))"
            case .greaterOrEqual: return "\(left) >= \(try operand(c.rhs))"
            case .in, .between:
                guard case .value(.list(let values)) = c.rhs else { throw unsupported(c) }
                let marks = try values.map { try bind($0) }
                if c.op == .between, marks.count == 2 { return "\(left) BETWEEN \(marks[0]) AND \(marks[1])" }
                return "\(left) IN (\(marks.joined(separator: ", ")))"
            default: throw unsupported(c)
            }
        }
    }

    private func unsupported(_ c: PredicateComparison) -> FetchPredicateError {
        FetchPredicateError(.unsupported, "a having predicate compares fetched names with ==, !=, <, <=, >, >=, IN or BETWEEN; not '\(PredicateNode.comparison(c))'",
                            entity: entity.name)
    }

    private mutating func operand(_ expression: PredicateExpression) throws -> String {
        switch expression {
        case .keyPath(let path):
            guard path.variable == nil, let column = names[path.components.joined(separator: ".")] else {
                throw FetchPredicateError(.unknownKey, "the having predicate names '\(path)', which is not fetched (fetched: \(names.keys.sorted().joined(separator: ", ")))",
                                          entity: entity.name, key: path.description)
            }
            return column
        case .value(let value): return try bind(value)
        default: throw FetchPredicateError(.unsupported, "a having predicate compares fetched names with constants, not \(expression)", entity: entity.name)
        }
    }

    private mutating func bind(_ value: PredicateValue) throws -> String {
        switch value {
        case .null: arguments.append(.null)
        case .bool(let v): arguments.append(.integer(v ? 1 : 0))
        case .int(let v): arguments.append(.integer(v))
        case .double(let v): arguments.append(.real(v))
        case .decimal(let v): arguments.append(.real(v.storedDouble))
        case .string(let v): arguments.append(.text(v))
        case .date(let v): arguments.append(.real(v.timeIntervalSinceReferenceDate))
        case .uuid(let v): arguments.append(.blob(v.blobData))
        case .data(let v): arguments.append(.blob(v))
        case .url(let v): arguments.append(.text(v.absoluteString))
        case .object(let id): arguments.append(.integer(id.key))
        case .list: throw FetchPredicateError(.unsupported, "a collection can only follow IN or BETWEEN", entity: entity.name)
        }
        return "?"
    }
}
