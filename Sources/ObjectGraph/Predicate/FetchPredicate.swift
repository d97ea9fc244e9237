import Foundation

/// A condition on objects of an entity: Core Data's predicate language, parsed from a format
/// string or built from typed key paths, answered by SQLite in fetches and in memory by
/// ``evaluate(with:)`` (the same meaning on both sides).
///
/// Named `FetchPredicate` because Foundation already exports `Predicate`. An immutable value:
/// `Sendable`, safe to share between threads. Parsing touches no store; key paths are checked
/// against the entity when the predicate is used.
///
/// For example:
///
/// ```swift
/// request.predicate = try FetchPredicate("age > %@ AND department.name == %@", 40, "Sales")
/// request.predicate = try FetchPredicate("lastName BEGINSWITH[c] %@ OR lastName IN %@", "s", ["Jones", "Wu"])
/// request.predicate = \Employee.$age > 40 && \Employee.$lastName == "Smith"
/// ```
///
/// See `docs/predicates.md` for the grammar.
public struct FetchPredicate: Sendable, Hashable, CustomStringConvertible {
    let node: PredicateNode
    /// Why a `#Predicate` could not be translated (thrown when the predicate is used).
    let failure: FoundationPredicateFailure?

    init(node: PredicateNode, failure: FoundationPredicateFailure? = nil) {
        self.node = node
        self.failure = failure
    }

    /// Parses `format`, taking `%@`, `%K`, `%d`, ... arguments in order.
    ///
    /// - Throws: ``FetchPredicateError`` for a malformed string (with the position and what was
    ///   expected), a missing or extra argument, or an argument of an unsupported type.
    public init(_ format: String, _ arguments: Any?...) throws {
        try self.init(format, argumentArray: arguments)
    }

    /// Parses `format` with its arguments given as an array.
    public init(_ format: String, argumentArray arguments: [Any?]) throws {
        var parser = try PredicateParser(format, arguments: arguments)
        node = try parser.parse()
        failure = nil
    }

    /// A predicate every object matches (`TRUEPREDICATE`).
    public static let always = FetchPredicate(node: .constant(true))
    /// A predicate no object matches (`FALSEPREDICATE`).
    public static let never = FetchPredicate(node: .constant(false))

    /// The predicate as a format string, with values inlined (for logs; not for parsing
    /// untrusted input back).
    public var predicateFormat: String { node.description }
    public var description: String { predicateFormat }

    /// The predicate with each `$NAME` replaced by `variables[NAME]` (values as for `%@`).
    ///
    /// ```swift
    /// let template = try FetchPredicate("lastName == $NAME")
    /// request.predicate = try template.withSubstitutionVariables(["NAME": "Wu"])
    /// ```
    ///
    /// - Throws: ``FetchPredicateError`` for a value of an unsupported type.
    public func withSubstitutionVariables(_ variables: [String: Any?]) throws -> FetchPredicate {
        var values: [String: PredicateValue] = [:]
        for (name, value) in variables { values[name] = try PredicateValue.from(value) }
        return FetchPredicate(node: node.substituting(values), failure: failure)
    }

    /// Whether `object` matches, judged in memory on its current (unsaved) values; follows
    /// relationships through the object's context, firing faults as needed.
    ///
    /// - Throws: ``FetchPredicateError`` for an unknown key or a type mismatch on the object's entity.
    public func evaluate(with object: ManagedObject) throws -> Bool {
        var binder = PredicateBinder(entity: object.entity)
        let bound = try binder.bind(translatedNode())
        return PredicateEvaluator.evaluate(bound, object)
    }

    // MARK: Combining

    /// Both predicates.
    public static func && (lhs: FetchPredicate, rhs: FetchPredicate) -> FetchPredicate {
        FetchPredicate(node: .and(lhs.conjuncts + rhs.conjuncts), failure: lhs.failure ?? rhs.failure)
    }

    /// Either predicate.
    public static func || (lhs: FetchPredicate, rhs: FetchPredicate) -> FetchPredicate {
        FetchPredicate(node: .or(lhs.disjuncts + rhs.disjuncts), failure: lhs.failure ?? rhs.failure)
    }

    /// The opposite of `predicate`.
    public static prefix func ! (predicate: FetchPredicate) -> FetchPredicate {
        FetchPredicate(node: .not(predicate.node), failure: predicate.failure)
    }

    private var conjuncts: [PredicateNode] { if case .and(let nodes) = node { return nodes } else { return [node] } }
    private var disjuncts: [PredicateNode] { if case .or(let nodes) = node { return nodes } else { return [node] } }
}
