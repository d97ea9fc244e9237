import Foundation

/// Why a Foundation `Predicate` could not be translated; kept in the ``FetchPredicate`` and
/// thrown when it is used (fetch, count, batch request, evaluation), before any SQL runs.
struct FoundationPredicateFailure: Sendable, Hashable {
    let error: FetchPredicateError

    static func == (lhs: Self, rhs: Self) -> Bool { lhs.error.description == rhs.error.description }
    func hash(into hasher: inout Hasher) { hasher.combine(error.description) }
}

extension FetchPredicate {
    /// A predicate from Foundation's `#Predicate` macro, answered by the store like the
    /// equivalent format string (``predicateFormat`` shows it):
    ///
    /// ```swift
    /// let seniors = FetchPredicate(#Predicate<Employee> { $0.age > 40 && $0.department?.name == "Sales" })
    /// print(seniors.predicateFormat)   // (age > 40) AND (department.name == "Sales")
    /// ```
    ///
    /// Key paths name the entity's stored attributes and relationships (`$0.age`,
    /// `$0.department?.name`, `$0.reports`); the supported operators are listed in
    /// `docs/predicates.md`. The translation is made here, once; a construct the stores cannot
    /// answer (a computed property, a method with no SQL meaning, a transient attribute) is
    /// not an error yet: it is thrown as a ``FetchPredicateError`` naming the expression when
    /// the predicate is used, before any SQL runs.
    public init<Entity: ManagedObject>(_ predicate: Predicate<Entity>) {
        do {
            self.init(node: try FoundationPredicateTranslator.translate(predicate))
        } catch let error as FetchPredicateError {
            self.init(failing: error)
        } catch {
            self.init(failing: FetchPredicateError(.unsupported, "#Predicate<\(Entity.self)>: \(error)", entity: "\(Entity.self)"))
        }
    }

    /// A predicate that stands for an untranslatable `#Predicate`: every use throws `error`.
    /// Its node names the problem and is refused by every compiler, in case a path reads it.
    private init(failing error: FetchPredicateError) {
        let marker = KeyPathExpression(variable: nil, components: ["#Predicate"])
        self.init(node: .comparison(PredicateComparison(lhs: .keyPath(marker), op: .matches, rhs: .value(.string(error.message)))),
                  failure: FoundationPredicateFailure(error: error))
    }

    /// The predicate's tree, or the error of the `#Predicate` it was made from.
    func translatedNode() throws -> PredicateNode {
        if let failure { throw failure.error }
        return node
    }

    /// The error a `#Predicate` that could not be translated throws when it is used; nil for
    /// every predicate that can be used.
    public var translationError: FetchPredicateError? { failure?.error }
}
