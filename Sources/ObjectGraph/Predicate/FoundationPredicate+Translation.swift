import Foundation

// Translating a Foundation `Predicate` (`#Predicate<Employee> { $0.age > 40 }`) into the
// predicate tree the format strings parse to: key paths become property names, captured
// values become constants, Swift's operators become the language's. The binder then checks
// the tree against the entity, and the SQL compilers and the in-memory evaluator answer it,
// so a `#Predicate` means exactly what its format string (`FetchPredicate.predicateFormat`)
// means.

/// A translated sub-expression of a `#Predicate`.
indirect enum FoundationTerm {
    /// A condition (`Bool`).
    case condition(PredicateNode)
    /// A value that depends on no object: a literal, a captured value, `nil`.
    case constant(PredicateValue)
    /// A key path to an object: the evaluated object, a closure's element, a to-one destination.
    case object(KeyPathExpression)
    /// A key path to a stored attribute.
    case attribute(KeyPathExpression)
    /// A to-many relationship, with the condition of a `filter { }` on it.
    case toMany(KeyPathExpression, filter: (variable: String, predicate: PredicateNode)?)
    /// A computed single value: arithmetic, `??`, a conditional, a count.
    case value(PredicateExpression)
    /// A `Bool?` from an optional chain (`$0.department?.name.starts(with: "S")`): nil unless
    /// `present`, else `condition`.
    case optionalCondition(present: PredicateNode, condition: PredicateNode)

    /// The term as one side of a comparison.
    func expression(_ t: FoundationPredicateTranslator) throws -> PredicateExpression {
        switch self {
        case .condition(let node): return .ternary(node, .value(.bool(true)), .value(.bool(false)))
        case .constant(.double(let value)) where value.isNaN: return .value(.null)    // no number: nil, as in arithmetic
        case .constant(let value): return .value(value)
        case .object(let path), .attribute(let path): return .keyPath(path)
        case .value(let expression): return expression
        case .optionalCondition(let present, let condition):
            return .ternary(present, .ternary(condition, .value(.bool(true)), .value(.bool(false))), .value(.null))
        case .toMany(let path, _):
            throw t.unsupported("the to-many relationship '\(path)' is not a single value; use contains(where:), allSatisfy, isEmpty or count", key: path.description)
        }
    }

    /// The term as a condition.
    func condition(_ t: FoundationPredicateTranslator) throws -> PredicateNode {
        switch self {
        case .condition(let node): return node
        case .constant(.bool(let value)): return .constant(value)
        case .attribute, .value:
            return .comparison(PredicateComparison(lhs: try expression(t), op: .equal, rhs: .value(.bool(true))))
        default:
            throw t.unsupported("'\(try expression(t))' is not a condition", key: nil)
        }
    }

    var isConstant: Bool { if case .constant = self { return true } else { return false } }

    /// The constant `Double.nan`.
    var isNaN: Bool { if case .constant(.double(let value)) = self { return value.isNaN } else { return false } }

    /// `chain == true`, `chain != false`, `chain == nil`, ... on an optional chain's `Bool?`,
    /// as plain conditions; nil when neither side is one.
    static func comparingOptionalCondition(_ lhs: FoundationTerm, _ rhs: FoundationTerm, negated: Bool) -> FoundationTerm? {
        let chain: (present: PredicateNode, condition: PredicateNode), other: PredicateValue
        switch (lhs, rhs) {
        case (.optionalCondition(let present, let condition), .constant(let value)),
             (.constant(let value), .optionalCondition(let present, let condition)):
            chain = (present, condition)
            other = value
        default: return nil
        }
        let equal: PredicateNode
        switch other {
        case .bool(let value): equal = .and([chain.present, value ? chain.condition : .not(chain.condition)])
        case .null: equal = .not(chain.present)
        default: return nil
        }
        return .condition(negated ? .not(equal) : equal)
    }
}

/// The state of one translation: what each closure variable stands for.
struct FoundationPredicateTranslator {
    /// The entity name for messages (the predicate's input type).
    let rootName: String
    var variables: [PredicateExpressions.VariableID: FoundationTerm] = [:]
    private var variableCount = 0

    init(rootName: String) {
        self.rootName = rootName
    }

    /// The tree of `predicate` in the library's terms.
    static func translate<Input: ManagedObject>(_ predicate: Predicate<Input>) throws -> PredicateNode {
        var translator = FoundationPredicateTranslator(rootName: "\(Input.self)")
        translator.variables[predicate.variable.key] = .object(KeyPathExpression(variable: nil, components: []))
        return try translator.term(predicate.expression).condition(translator)
    }

    /// The translation of one sub-expression.
    mutating func term<E>(_ expression: E) throws -> FoundationTerm {
        guard let translatable = expression as? any FoundationTranslatable else {
            throw unsupported("\(Self.typeName(of: expression)) has no meaning the stores can answer", key: nil)
        }
        return try translatable.translate(&self)
    }

    /// A name for the element variable of a SUBQUERY.
    mutating func newVariable() -> String {
        variableCount += 1
        return "v\(variableCount)"
    }

    /// Translates `body` with `variable` standing for `term`.
    mutating func with<R>(_ variable: PredicateExpressions.VariableID, as term: FoundationTerm, _ body: (inout Self) throws -> R) rethrows -> R {
        let saved = variables[variable]
        variables[variable] = term
        defer { variables[variable] = saved }
        return try body(&self)
    }

    /// The value of an expression that depends on no object, computed by Foundation.
    func fold<E: Foundation.PredicateExpression>(_ expression: E) throws -> FoundationTerm {
        let value: E.Output
        do {
            value = try expression.evaluate(PredicateBindings())
        } catch {
            throw FetchPredicateError(.argument, "\(Self.typeName(of: expression)) could not be computed: \(error)", entity: rootName)
        }
        return .constant(try PredicateValue.from(value))
    }

    func unsupported(_ message: String, key: String?) -> FetchPredicateError {
        FetchPredicateError(.unsupported, "#Predicate<\(rootName)>: \(message)", entity: rootName, key: key)
    }

    /// `Comparison`, without its generic arguments.
    static func typeName(of expression: Any) -> String {
        let name = String(describing: type(of: expression))
        return "PredicateExpressions." + (name.firstIndex(of: "<").map { String(name[..<$0]) } ?? name)
    }

    /// `lhs op rhs`, with both sides translated.
    /// A comparison with the constant `Double.nan` is decided here, as Swift decides it: NaN
    /// is equal to nothing and ordered with nothing, so only `!=` holds. (The stores hold no
    /// NaN: bound as a parameter, SQLite reads NULL and PostgreSQL a NaN greater than every
    /// number.)
    func compare(_ lhs: FoundationTerm, _ op: PredicateOperator, _ rhs: FoundationTerm) throws -> FoundationTerm {
        if lhs.isNaN || rhs.isNaN { return .condition(.constant(op == .notEqual)) }
        return .condition(.comparison(PredicateComparison(lhs: try lhs.expression(self), op: op, rhs: try rhs.expression(self))))
    }

    /// `lhs op rhs` between two `Double`s (or `Float`s) that depend on the object. A computation
    /// with no number (NaN: `0 / 0`, `∞ - ∞`) is nil in the stores and in memory, and nil
    /// equals nil there, while Swift's NaN equals nothing and is ordered with nothing: so `==`,
    /// `<=` and `>=` also ask for a number on the left, and `!=` holds when it has none.
    /// (A Swift `Double` is never nil, so nil can only be a NaN here.)
    func compareNumbers(_ lhs: FoundationTerm, _ op: PredicateOperator, _ rhs: FoundationTerm) throws -> FoundationTerm {
        let found = try compare(lhs, op, rhs)
        guard !lhs.isConstant, !rhs.isConstant, case .condition(let node) = found else { return found }
        let missing = PredicateNode.comparison(PredicateComparison(lhs: try lhs.expression(self), op: .equal, rhs: .value(.null)))
        switch op {
        case .equal, .lessOrEqual, .greaterOrEqual: return .condition(.and([node, .not(missing)]))
        case .notEqual: return .condition(.or([node, missing]))
        default: return found
        }
    }

    /// `base.contains(needle)` or `base.starts(with: needle)` of strings. Swift finds an empty
    /// needle in every string, while the format string's `CONTAINS`/`BEGINSWITH` keep
    /// NSString's meaning and find no empty string: so a constant `""` is true, and a needle
    /// that depends on the object is tested for `""` first (`(needle == "") OR (base CONTAINS
    /// needle)`). (Issue 38, item 8: `FoundationPredicateEmptyStringTests`.)
    func search(_ base: FoundationTerm, _ op: PredicateOperator, _ needle: FoundationTerm) throws -> FoundationTerm {
        if case .constant(.string("")) = needle { return .condition(.constant(true)) }
        let found = try compare(base, op, needle)
        guard !needle.isConstant, case .condition(let search) = found else { return found }
        let empty = PredicateNode.comparison(PredicateComparison(lhs: try needle.expression(self), op: .equal, rhs: .value(.string(""))))
        return .condition(.or([empty, search]))
    }

    /// A function of single values (`add:to:`, ...).
    func function(_ function: PredicateFunction, _ arguments: [FoundationTerm]) throws -> FoundationTerm {
        .value(.function(function.rawValue, try arguments.map { try $0.expression(self) }))
    }
}

/// A `PredicateExpressions` node the translation knows.
protocol FoundationTranslatable {
    func translate(_ t: inout FoundationPredicateTranslator) throws -> FoundationTerm
}

/// The to-many collection types, whose `count` and `isEmpty` a predicate can ask.
protocol ToManyCollectionKeyPaths {
    static var countKeyPath: AnyKeyPath { get }
    static var isEmptyKeyPath: AnyKeyPath { get }
}

extension Set: ToManyCollectionKeyPaths {
    static var countKeyPath: AnyKeyPath { \Set<Element>.count }
    static var isEmptyKeyPath: AnyKeyPath { \Set<Element>.isEmpty }
}

extension Array: ToManyCollectionKeyPaths {
    static var countKeyPath: AnyKeyPath { \Array<Element>.count }
    static var isEmptyKeyPath: AnyKeyPath { \Array<Element>.isEmpty }
}

/// The bounds of a constant range (`20...40`, `..<10`).
protocol ConstantRangeBounds {
    var lowerBoundValue: Any? { get }
    var upperBoundValue: Any? { get }
    var includesUpperBound: Bool { get }
}

extension ClosedRange: ConstantRangeBounds {
    var lowerBoundValue: Any? { lowerBound }
    var upperBoundValue: Any? { upperBound }
    var includesUpperBound: Bool { true }
}

extension Range: ConstantRangeBounds {
    var lowerBoundValue: Any? { lowerBound }
    var upperBoundValue: Any? { upperBound }
    var includesUpperBound: Bool { false }
}

extension PartialRangeFrom: ConstantRangeBounds {
    var lowerBoundValue: Any? { lowerBound }
    var upperBoundValue: Any? { nil }
    var includesUpperBound: Bool { true }
}

extension PartialRangeThrough: ConstantRangeBounds {
    var lowerBoundValue: Any? { nil }
    var upperBoundValue: Any? { upperBound }
    var includesUpperBound: Bool { true }
}

extension PartialRangeUpTo: ConstantRangeBounds {
    var lowerBoundValue: Any? { nil }
    var upperBoundValue: Any? { upperBound }
    var includesUpperBound: Bool { false }
}

/// A range built in the predicate (`(lower...upper)`), whose bounds may depend on the object.
protocol RangeOperands {
    func bounds(_ t: inout FoundationPredicateTranslator) throws -> (lower: FoundationTerm, upper: FoundationTerm)
    var includesUpperBound: Bool { get }
}
