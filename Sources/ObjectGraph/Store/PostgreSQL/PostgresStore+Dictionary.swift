import Foundation

// Dictionary fetches (columns, aggregates, GROUP BY, HAVING, DISTINCT) in PostgreSQL.
extension PostgresStore {
    func dictionaryRows(_ request: DictionaryQuery) throws -> [[SlotValue]] {
        let select = PostgresSelect(request.query, layout: layout)
        let entity = request.query.entity
        var compiler = PostgresPredicateCompiler(layout: layout)
        var terms: [String] = []
        var expressions: [(sql: String, parameters: [SQLiteValue])] = []
        for (index, column) in request.columns.enumerated() {
            let mark = compiler.arguments.count
            let value = compiler.expression(column.path)
            expressions.append((value, Array(compiler.arguments[mark...])))
            if let function = column.function {
                terms.append("\(Self.aggregateSQL(function, of: value, type: column.path.attributeType)) AS c\(index)")
            } else {
                terms.append("\(value) AS c\(index)")
            }
        }
        let selectArguments = compiler.arguments
        var groupCompiler = PostgresPredicateCompiler(layout: layout)
        let groups = request.groupBy.map { groupCompiler.expression($0) }
        var sql = "SELECT \(request.distinct ? "DISTINCT " : "")\(terms.joined(separator: ", ")) FROM \(select.table) t" + select.whereClause
        var arguments = selectArguments + select.arguments
        if !groups.isEmpty {
            sql += " GROUP BY " + groups.joined(separator: ", ")
            arguments += groupCompiler.arguments
        }
        if let having = request.having {
            // PostgreSQL's HAVING cannot name the select list's aliases: the columns' SQL again.
            var names: [String: (sql: String, parameters: [SQLiteValue])] = [:]
            for (index, column) in request.columns.enumerated() {
                var sql = expressions[index].sql
                if let function = column.function {
                    // Compared as numbers: a Decimal's exact sum stays numeric here.
                    sql = Self.aggregateSQL(function, of: sql, type: column.path.attributeType, comparable: true)
                }
                names[column.name] = (sql, expressions[index].parameters)
            }
            var havingCompiler = PostgresHavingCompiler(names: names, entity: entity)
            sql += " HAVING " + (try havingCompiler.compile(having))
            arguments += havingCompiler.arguments
        }
        if !request.order.isEmpty {
            var terms: [String] = []
            for order in request.order {
                switch order {
                case .column(let index, let key):
                    let column = request.columns[index]
                    let isText = column.function == nil && PostgresSelect.isText(column.path)
                    terms.append(PostgresSelect.sortTerm("c\(index)", path: nil, isText: isText, comparison: key.comparison, ascending: key.ascending))
                case .path(let key):
                    var sortCompiler = PostgresPredicateCompiler(layout: layout)
                    terms.append(PostgresSelect.sortTerm(sortCompiler.expression(key.path), path: key.path, comparison: key.comparison, ascending: key.ascending))
                    arguments += sortCompiler.arguments
                }
            }
            sql += " ORDER BY " + terms.joined(separator: ", ")
        }
        sql += PostgresSelect.pagingClause(limit: request.query.limit, offset: request.query.offset, arguments: &arguments)

        var rows: [[SlotValue]] = []
        try session { session in
            try session.query(sql, arguments) { cells in
                var row: [SlotValue] = []
                row.reserveCapacity(request.columns.count)
                for (index, column) in request.columns.enumerated() {
                    if let function = column.function {
                        row.append(aggregateResult(function, column.path.attributeType, cells[index], kind: column.kind, path: column.path))
                    } else {
                        row.append(slotValue(cells[index], kind: column.kind, path: column.path))
                    }
                }
                rows.append(row)
            }
        }
        return rows
    }
}

/// A having predicate in PostgreSQL: comparisons between fetched columns (their SQL, since
/// HAVING cannot name select-list aliases) and constants.
struct PostgresHavingCompiler {
    /// Each fetched column's SQL and the parameters it binds, by name.
    let names: [String: (sql: String, parameters: [SQLiteValue])]
    let entity: EntityDescription
    var arguments: [SQLiteValue] = []

    init(names: [String: (sql: String, parameters: [SQLiteValue])], entity: EntityDescription) {
        self.names = names
        self.entity = entity
    }

    mutating func compile(_ node: PredicateNode) throws -> String {
        switch node {
        case .constant(let value): return value ? "TRUE" : "FALSE"
        case .not(let inner): return "NOT COALESCE((\(try compile(inner))), FALSE)"
        case .and(let nodes): return nodes.isEmpty ? "TRUE" : try nodes.map { "(\(try compile($0)))" }.joined(separator: " AND ")
        case .or(let nodes): return nodes.isEmpty ? "FALSE" : try nodes.map { "(\(try compile($0)))" }.joined(separator: " OR ")
        case .comparison(let c):
            guard c.quantifier == .direct, c.options.isEmpty else { throw unsupported(c) }
            let left = try operand(c.lhs)
            switch c.op {
            case .equal: return "\(left) IS NOT DISTINCT FROM \(try operand(c.rhs))"
            case .notEqual: return "\(left) IS DISTINCT FROM \(try operand(c.rhs))"
            case .less: return "\(left) < \(try operand(c.rhs))"
            case .lessOrEqual: return "\(left) <= \(try operand(c.rhs))"
            case .greater: return "\(left) > \(try operand(c.rhs))"
            case .greaterOrEqual: return "\(left) >= \(try operand(c.rhs))"
            case .in, .between:
                guard case .value(.list(let values)) = c.rhs else { throw unsupported(c) }
                let marks = try values.map { try bind($0) }
                if c.op == .between, marks.count == 2 { return "\(left) BETWEEN \(marks[0]) AND \(marks[1])" }
                return marks.isEmpty ? "FALSE" : "\(left) IN (\(marks.joined(separator: ", ")))"
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
            arguments += column.parameters
            return "(\(column.sql))"
        case .value(let value): return try bind(value)
        default: throw FetchPredicateError(.unsupported, "a having predicate compares fetched names with constants, not \(expression)", entity: entity.name)
        }
    }

    private mutating func bind(_ value: PredicateValue) throws -> String {
        switch value {
        case .null: return "NULL"
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
