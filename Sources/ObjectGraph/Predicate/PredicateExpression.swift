import Foundation

/// A predicate's expression tree, as both the format-string parser and the typed key-path
/// operators build it. Unbound: key paths are names until ``PredicateBinder`` resolves them
/// against an entity.
indirect enum PredicateNode: Sendable, Hashable {
    case constant(Bool)
    case not(PredicateNode)
    case and([PredicateNode])
    case or([PredicateNode])
    case comparison(PredicateComparison)
}

/// `ANY`, `ALL`, `NONE` before a comparison whose left side goes through a to-many.
enum PredicateQuantifier: String, Sendable, Hashable {
    case direct = "", any = "ANY", all = "ALL", none = "NONE"
}

/// The comparison operators of the language.
enum PredicateOperator: String, Sendable, Hashable {
    case equal = "==", notEqual = "!=", less = "<", lessOrEqual = "<=", greater = ">", greaterOrEqual = ">="
    case beginsWith = "BEGINSWITH", endsWith = "ENDSWITH", contains = "CONTAINS", like = "LIKE", matches = "MATCHES"
    case `in` = "IN", between = "BETWEEN"

    var isStringOperator: Bool {
        switch self {
        case .beginsWith, .endsWith, .like, .matches: return true
        default: return false
        }
    }

    var isOrdering: Bool {
        switch self {
        case .less, .lessOrEqual, .greater, .greaterOrEqual: return true
        default: return false
        }
    }
}

/// `[c]`, `[d]`, `[cd]` after a string operator.
public struct StringOptions: OptionSet, Sendable, Hashable {
    public let rawValue: Int32
    public init(rawValue: Int32) { self.rawValue = rawValue }
    /// `[c]`: ignore case, for all of Unicode.
    public static let caseInsensitive = StringOptions(rawValue: 1)
    /// `[d]`: ignore diacritics (`é` matches `e`).
    public static let diacriticInsensitive = StringOptions(rawValue: 2)

    var suffix: String {
        if isEmpty { return "" }
        return "[" + (contains(.caseInsensitive) ? "c" : "") + (contains(.diacriticInsensitive) ? "d" : "") + "]"
    }
}

/// `lhs op[options] rhs`, with a quantifier.
struct PredicateComparison: Sendable, Hashable {
    var quantifier: PredicateQuantifier = .direct
    var lhs: PredicateExpression
    var op: PredicateOperator
    var rhs: PredicateExpression
    var options: StringOptions = []
}

/// A key path: `department.name`, `reports.@count`, `$r.age`, `self`.
struct KeyPathExpression: Sendable, Hashable, CustomStringConvertible {
    /// The variable the path starts at (`r` for `$r.age`), or nil for the evaluated object.
    var variable: String?
    /// The keys in order; collection operators keep their `@`.
    var components: [String]

    var description: String {
        let head = variable.map { "$" + $0 }
        let parts = (head.map { [$0] } ?? []) + components
        return parts.isEmpty ? "SELF" : parts.joined(separator: ".")
    }
}

/// One side of a comparison.
indirect enum PredicateExpression: Sendable, Hashable, CustomStringConvertible {
    case value(PredicateValue)
    case keyPath(KeyPathExpression)
    /// `{a, b, c}`: a literal aggregate.
    case aggregate([PredicateExpression])
    /// `SUBQUERY(collection, $variable, predicate)`, followed by `trailing` keys (`@count`).
    case subquery(collection: KeyPathExpression, variable: String, predicate: PredicateNode, trailing: [String])
    /// A function by its Foundation name (`add:to:` for `+`, `lowercase:`, ...); the binder
    /// checks the name and the arguments.
    case function(String, [PredicateExpression])
    /// `TERNARY(predicate, then, else)`.
    case ternary(PredicateNode, PredicateExpression, PredicateExpression)
    /// `collection[FIRST]`, `[LAST]`, `[SIZE]`, `[n]`.
    case index(PredicateExpression, PredicateIndex)

    var description: String {
        switch self {
        case .value(let value): return value.description
        case .keyPath(let path): return path.description
        case .aggregate(let items): return "{" + items.map(\.description).joined(separator: ", ") + "}"
        case .subquery(let collection, let variable, let predicate, let trailing):
            return "SUBQUERY(\(collection), $\(variable), \(predicate))" + trailing.map { "." + $0 }.joined()
        case .function(let name, let arguments):
            if let infix = PredicateFunction(rawValue: name)?.infix {
                if arguments.count == 2 { return "(\(arguments[0]) \(infix) \(arguments[1]))" }
                if arguments.count == 1 { return "\(infix)\(arguments[0])" }
            }
            return name + "(" + arguments.map(\.description).joined(separator: ", ") + ")"
        case .ternary(let condition, let then, let otherwise): return "TERNARY(\(condition), \(then), \(otherwise))"
        case .index(let base, let index): return "\(base)[\(index)]"
        }
    }
}

extension PredicateNode: CustomStringConvertible {
    var description: String {
        switch self {
        case .constant(let value): return value ? "TRUEPREDICATE" : "FALSEPREDICATE"
        case .not(let node): return "NOT (\(node))"
        case .and(let nodes): return nodes.map { "(\($0))" }.joined(separator: " AND ")
        case .or(let nodes): return nodes.map { "(\($0))" }.joined(separator: " OR ")
        case .comparison(let c):
            let quantifier = c.quantifier == .direct ? "" : c.quantifier.rawValue + " "
            return "\(quantifier)\(c.lhs) \(c.op.rawValue)\(c.options.suffix) \(c.rhs)"
        }
    }

    /// The tree with every `$NAME` that `variables` names replaced by its value.
    func substituting(_ variables: [String: PredicateValue], bound: Set<String> = []) -> PredicateNode {
        switch self {
        case .constant: return self
        case .not(let node): return .not(node.substituting(variables, bound: bound))
        case .and(let nodes): return .and(nodes.map { $0.substituting(variables, bound: bound) })
        case .or(let nodes): return .or(nodes.map { $0.substituting(variables, bound: bound) })
        case .comparison(var c):
            c.lhs = c.lhs.substituting(variables, bound: bound)
            c.rhs = c.rhs.substituting(variables, bound: bound)
            return .comparison(c)
        }
    }
}

extension PredicateExpression {
    func substituting(_ variables: [String: PredicateValue], bound: Set<String>) -> PredicateExpression {
        switch self {
        case .value: return self
        case .keyPath(let path):
            if let name = path.variable, !bound.contains(name), path.components.isEmpty, let value = variables[name] {
                return .value(value)
            }
            return self
        case .aggregate(let items): return .aggregate(items.map { $0.substituting(variables, bound: bound) })
        case .function(let name, let arguments): return .function(name, arguments.map { $0.substituting(variables, bound: bound) })
        case .ternary(let condition, let then, let otherwise):
            return .ternary(condition.substituting(variables, bound: bound), then.substituting(variables, bound: bound),
                            otherwise.substituting(variables, bound: bound))
        case .index(let base, let index): return .index(base.substituting(variables, bound: bound), index)
        case .subquery(let collection, let variable, let predicate, let trailing):
            return .subquery(collection: collection, variable: variable,
                             predicate: predicate.substituting(variables, bound: bound.union([variable])), trailing: trailing)
        }
    }
}

/// The subscript of `collection[...]`.
enum PredicateIndex: Sendable, Hashable, CustomStringConvertible {
    case first, last, size
    case at(Int64)

    var description: String {
        switch self {
        case .first: return "FIRST"
        case .last: return "LAST"
        case .size: return "SIZE"
        case .at(let n): return String(n)
        }
    }
}
