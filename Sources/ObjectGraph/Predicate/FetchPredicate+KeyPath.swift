import Foundation

// Typed predicates: `\Employee.$age > 40 && \Employee.$lastName == "Smith"`. Each operator
// builds the same tree as the format string "age > 40 AND lastName == 'Smith'".

extension FetchPredicate {
    static func key<Root: ManagedObject, Value>(_ keyPath: KeyPath<Root, PropertyReference<Value>>) -> PredicateExpression {
        guard let name = ClassLayout.of(Root.self).propertyName(for: keyPath) else {
            preconditionFailure("ManagedRecord: the key path does not name a property of \(Root.self); use \\\(Root.self).$property")
        }
        return .keyPath(KeyPathExpression(variable: nil, components: [name]))
    }

    static func constant(_ value: Any?) -> PredicateExpression {
        .value((try? PredicateValue.from(value)) ?? .null)
    }

    static func compare<Root: ManagedObject, Value>(_ keyPath: KeyPath<Root, PropertyReference<Value>>, _ op: PredicateOperator,
                                                    _ value: Any?, _ options: StringOptions = []) -> FetchPredicate {
        FetchPredicate(node: .comparison(PredicateComparison(lhs: key(keyPath), op: op, rhs: constant(value), options: options)))
    }

    /// The property begins with `prefix` (`BEGINSWITH`, with `[c]`/`[d]` from `options`).
    public static func beginsWith<Root: ManagedObject, Value>(_ keyPath: KeyPath<Root, PropertyReference<Value>>, _ prefix: String,
                                                              options: StringOptions = []) -> FetchPredicate {
        compare(keyPath, .beginsWith, prefix, options)
    }

    /// The property ends with `suffix` (`ENDSWITH`).
    public static func endsWith<Root: ManagedObject, Value>(_ keyPath: KeyPath<Root, PropertyReference<Value>>, _ suffix: String,
                                                            options: StringOptions = []) -> FetchPredicate {
        compare(keyPath, .endsWith, suffix, options)
    }

    /// The property contains `text` (`CONTAINS`).
    public static func contains<Root: ManagedObject, Value>(_ keyPath: KeyPath<Root, PropertyReference<Value>>, _ text: String,
                                                            options: StringOptions = []) -> FetchPredicate {
        compare(keyPath, .contains, text, options)
    }

    /// The property matches the wildcard `pattern` (`LIKE`: `*` any run, `?` one character).
    public static func like<Root: ManagedObject, Value>(_ keyPath: KeyPath<Root, PropertyReference<Value>>, _ pattern: String,
                                                        options: StringOptions = []) -> FetchPredicate {
        compare(keyPath, .like, pattern, options)
    }

    /// The property matches the regular expression `pattern` as a whole (`MATCHES`).
    public static func matches<Root: ManagedObject, Value>(_ keyPath: KeyPath<Root, PropertyReference<Value>>, _ pattern: String,
                                                           options: StringOptions = []) -> FetchPredicate {
        compare(keyPath, .matches, pattern, options)
    }

    /// The property equals one of `values` (`IN`).
    public static func `in`<Root: ManagedObject, Value: AttributeValue, S: Sequence>(
        _ keyPath: KeyPath<Root, PropertyReference<Value>>, _ values: S, options: StringOptions = []
    ) -> FetchPredicate where S.Element == Value {
        compare(keyPath, .in, Array(values), options)
    }

    /// The property equals `value`, comparing strings with `options`.
    public static func equal<Root: ManagedObject, Value: AttributeValue>(_ keyPath: KeyPath<Root, PropertyReference<Value>>, _ value: Value,
                                                                         options: StringOptions = []) -> FetchPredicate {
        compare(keyPath, .equal, value, options)
    }

    /// The property is between `range`'s bounds, inclusive (`BETWEEN`).
    public static func between<Root: ManagedObject, Value: AttributeValue & Comparable>(
        _ keyPath: KeyPath<Root, PropertyReference<Value>>, _ range: ClosedRange<Value>
    ) -> FetchPredicate {
        compare(keyPath, .between, [range.lowerBound, range.upperBound])
    }
}

public func == <Root: ManagedObject, Value: AttributeValue>(lhs: KeyPath<Root, PropertyReference<Value>>, rhs: Value) -> FetchPredicate {
    FetchPredicate.compare(lhs, .equal, rhs)
}

public func != <Root: ManagedObject, Value: AttributeValue>(lhs: KeyPath<Root, PropertyReference<Value>>, rhs: Value) -> FetchPredicate {
    FetchPredicate.compare(lhs, .notEqual, rhs)
}

public func < <Root: ManagedObject, Value: AttributeValue>(lhs: KeyPath<Root, PropertyReference<Value>>, rhs: Value) -> FetchPredicate {
    FetchPredicate.compare(lhs, .less, rhs)
}

public func <= <Root: ManagedObject, Value: AttributeValue>(lhs: KeyPath<Root, PropertyReference<Value>>, rhs: Value) -> FetchPredicate {
    FetchPredicate.compare(lhs, .lessOrEqual, rhs)
}

public func > <Root: ManagedObject, Value: AttributeValue>(lhs: KeyPath<Root, PropertyReference<Value>>, rhs: Value) -> FetchPredicate {
    FetchPredicate.compare(lhs, .greater, rhs)
}

public func >= <Root: ManagedObject, Value: AttributeValue>(lhs: KeyPath<Root, PropertyReference<Value>>, rhs: Value) -> FetchPredicate {
    FetchPredicate.compare(lhs, .greaterOrEqual, rhs)
}

/// A to-one relationship points at `rhs` (nil: has no destination).
public func == <Root: ManagedObject, Destination: ManagedObject>(lhs: KeyPath<Root, PropertyReference<Destination?>>, rhs: Destination?) -> FetchPredicate {
    FetchPredicate.compare(lhs, .equal, rhs?.objectID)
}

/// A to-one relationship does not point at `rhs`.
public func != <Root: ManagedObject, Destination: ManagedObject>(lhs: KeyPath<Root, PropertyReference<Destination?>>, rhs: Destination?) -> FetchPredicate {
    FetchPredicate.compare(lhs, .notEqual, rhs?.objectID)
}
