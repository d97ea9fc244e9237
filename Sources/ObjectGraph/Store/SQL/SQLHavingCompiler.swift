import Foundation

/// Compiles a having predicate, in `Dialect`: comparisons between fetched columns and constants.
/// An empty `AND`, `OR` or `IN` list is spelled as the literal it stands for.
struct SQLHavingCompiler<Dialect: SQLDialect> {
    /// Each fetched column's SQL as the having clause names it, and the parameters it binds, by name.
    let names: [String: (sql: String, parameters: [SQLValue])]
    let entity: EntityDescription
    var arguments: [SQLValue] = []

    init(names: [String: (sql: String, parameters: [SQLValue])], entity: EntityDescription) {
        self.names = names
        self.entity = entity
    }

    mutating func compile(_ node: PredicateNode) throws -> String {
        switch node {
        case .constant(let value): return Dialect.literal(value)
        case .not(let inner): return "NOT COALESCE((\(try compile(inner))), \(Dialect.falseLiteral))"
        case .and(let nodes):
            if nodes.isEmpty { return Dialect.trueLiteral }
            return try nodes.map { "(\(try compile($0)))" }.joined(separator: " AND ")
        case .or(let nodes):
            if nodes.isEmpty { return Dialect.falseLiteral }
            return try nodes.map { "(\(try compile($0)))" }.joined(separator: " OR ")
        case .comparison(let c):
            guard c.quantifier == .direct, c.options.isEmpty else { throw unsupported(c) }
            let left = try operand(c.lhs)
            switch c.op {
            case .equal: return "\(left) \(Dialect.isEqual) \(try operand(c.rhs))"
            case .notEqual: return "\(left) \(Dialect.isNotEqual) \(try operand(c.rhs))"
            case .less: return "\(left) < \(try operand(c.rhs))"
            case .lessOrEqual: return "\(left) <= \(try operand(c.rhs))"
            case .greater: return "\(left) > \(try operand(c.rhs))"
            case .greaterOrEqual: return "\(left) >= \(try operand(c.rhs))"
            case .in, .between:
                guard case .value(.list(let values)) = c.rhs else { throw unsupported(c) }
                let marks = try values.map { try bind($0) }
                if c.op == .between, marks.count == 2 { return "\(left) BETWEEN \(marks[0]) AND \(marks[1])" }
                if marks.isEmpty { return Dialect.falseLiteral }
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
            arguments += column.parameters
            return column.sql
        case .value(let value): return try bind(value)
        default: throw FetchPredicateError(.unsupported, "a having predicate compares fetched names with constants, not \(expression)", entity: entity.name)
        }
    }

    private mutating func bind(_ value: PredicateValue) throws -> String {
        let stored: SQLValue
        switch value {
        case .null: stored = .null
        case .bool(let v): stored = .integer(v ? 1 : 0)
        case .int(let v): stored = .integer(v)
        case .double(let v): stored = .real(v)
        case .decimal(let v):
            // As a saved Decimal is sent (PostgreSQL: exact text cast to `numeric`).
            arguments.append(Dialect.columnValue(.decimal(v)))
            return Dialect.columnPlaceholder(.decimal)
        case .string(let v): stored = .text(v)
        case .date(let v): stored = .real(v.timeIntervalSinceReferenceDate)
        case .uuid(let v): stored = .blob(v.blobData)
        case .data(let v): stored = .blob(v)
        case .url(let v): stored = .text(v.absoluteString)
        case .object(let id): stored = .integer(id.key)
        case .list: throw FetchPredicateError(.unsupported, "a collection can only follow IN or BETWEEN", entity: entity.name)
        }
        return Dialect.bind(stored, into: &arguments)
    }
}
