import Foundation

/// Compiles a having predicate: comparisons between fetched column names and constants.
struct HavingCompiler {
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
