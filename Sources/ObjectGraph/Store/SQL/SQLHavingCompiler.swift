import Foundation

/// How a SQL store spells what a having predicate compiles to where the dialects differ.
struct SQLHavingDialect: Sendable {
    let trueLiteral: String
    let falseLiteral: String
    /// Null-safe equality and inequality.
    let isEqual: String
    let isNotEqual: String
    /// Whether an empty `AND`, `OR` or `IN` list is spelled as a literal (otherwise it is
    /// joined as is).
    let spellsEmptyLists: Bool
    /// Whether a null constant is a parameter (otherwise it is spelled `NULL`).
    let bindsNull: Bool

    static let sqlite = SQLHavingDialect(trueLiteral: "1", falseLiteral: "0", isEqual: "IS", isNotEqual: "IS NOT",
                                         spellsEmptyLists: false, bindsNull: true)
    static let postgres = SQLHavingDialect(trueLiteral: "TRUE", falseLiteral: "FALSE", isEqual: "IS NOT DISTINCT FROM", isNotEqual: "IS DISTINCT FROM",
                                           spellsEmptyLists: true, bindsNull: false)
}

/// Compiles a having predicate: comparisons between fetched columns and constants.
struct SQLHavingCompiler {
    /// Each fetched column's SQL as the having clause names it, and the parameters it binds, by name.
    let names: [String: (sql: String, parameters: [SQLValue])]
    let entity: EntityDescription
    let dialect: SQLHavingDialect
    var arguments: [SQLValue] = []

    init(names: [String: (sql: String, parameters: [SQLValue])], entity: EntityDescription, dialect: SQLHavingDialect) {
        self.names = names
        self.entity = entity
        self.dialect = dialect
    }

    mutating func compile(_ node: PredicateNode) throws -> String {
        switch node {
        case .constant(let value): return value ? dialect.trueLiteral : dialect.falseLiteral
        case .not(let inner): return "NOT COALESCE((\(try compile(inner))), \(dialect.falseLiteral))"
        case .and(let nodes):
            if nodes.isEmpty, dialect.spellsEmptyLists { return dialect.trueLiteral }
            return try nodes.map { "(\(try compile($0)))" }.joined(separator: " AND ")
        case .or(let nodes):
            if nodes.isEmpty, dialect.spellsEmptyLists { return dialect.falseLiteral }
            return try nodes.map { "(\(try compile($0)))" }.joined(separator: " OR ")
        case .comparison(let c):
            guard c.quantifier == .direct, c.options.isEmpty else { throw unsupported(c) }
            let left = try operand(c.lhs)
            switch c.op {
            case .equal: return "\(left) \(dialect.isEqual) \(try operand(c.rhs))"
            case .notEqual: return "\(left) \(dialect.isNotEqual) \(try operand(c.rhs))"
            case .less: return "\(left) < \(try operand(c.rhs))"
            case .lessOrEqual: return "\(left) <= \(try operand(c.rhs))"
            case .greater: return "\(left) > \(try operand(c.rhs))"
            case .greaterOrEqual: return "\(left) >= \(try operand(c.rhs))"
            case .in, .between:
                guard case .value(.list(let values)) = c.rhs else { throw unsupported(c) }
                let marks = try values.map { try bind($0) }
                if c.op == .between, marks.count == 2 { return "\(left) BETWEEN \(marks[0]) AND \(marks[1])" }
                if marks.isEmpty, dialect.spellsEmptyLists { return dialect.falseLiteral }
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
        switch value {
        case .null:
            guard dialect.bindsNull else { return "NULL" }
            arguments.append(.null)
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
