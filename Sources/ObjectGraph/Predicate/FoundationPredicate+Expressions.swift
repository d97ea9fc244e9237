import Foundation

// The translation of each `PredicateExpressions` node the `#Predicate` macro builds. A node
// whose operands depend on no object is computed once by Foundation (`fold`); a node with no
// meaning in the stores throws `FetchPredicateError` (`unsupported`) naming it.

extension KeyPathExpression {
    func appending(_ key: String) -> KeyPathExpression {
        KeyPathExpression(variable: variable, components: components + [key])
    }
}

private extension FoundationPredicateTranslator {
    /// `SUBQUERY(collection, $variable, predicate).@count op n`.
    func subqueryCount(of collection: KeyPathExpression, variable: String, where predicate: PredicateNode,
                       comparedToZero op: PredicateOperator) -> FoundationTerm {
        .condition(.comparison(PredicateComparison(
            lhs: .subquery(collection: collection, variable: variable, predicate: predicate, trailing: ["@count"]),
            op: op, rhs: .value(.int(0)))))
    }

    /// The condition of a closure over the elements of a to-many (`contains(where:)`, `filter`):
    /// the element is `$name` (the name of the filter already on the collection, if any).
    mutating func elementCondition<E: Foundation.PredicateExpression>(_ body: E, variable: PredicateExpressions.VariableID,
                                                                        named name: String) throws -> PredicateNode {
        try with(variable, as: .object(KeyPathExpression(variable: name, components: []))) { translator in
            let term = try translator.term(body)
            return try term.condition(translator)
        }
    }

    /// A node computed by Foundation when it depends on no object, else refused with `message`.
    func foldOrRefuse<E: Foundation.PredicateExpression>(_ expression: E, _ message: String) throws -> FoundationTerm {
        do {
            _ = try expression.evaluate(PredicateBindings())
        } catch {
            throw unsupported(message, key: nil)
        }
        return try fold(expression)
    }
}

private func flattened(_ nodes: [PredicateNode], and: Bool) -> [PredicateNode] {
    nodes.flatMap { node -> [PredicateNode] in
        switch node {
        case .and(let inner) where and: return inner
        case .or(let inner) where !and: return inner
        default: return [node]
        }
    }
}

// MARK: Leaves

extension PredicateExpressions.Variable: FoundationTranslatable {
    func translate(_ t: inout FoundationPredicateTranslator) throws -> FoundationTerm {
        guard let term = t.variables[key] else { throw t.unsupported("a variable is used outside its closure", key: nil) }
        return term
    }
}

extension PredicateExpressions.Value: FoundationTranslatable {
    func translate(_ t: inout FoundationPredicateTranslator) throws -> FoundationTerm {
        if value is any ConstantRangeBounds {
            throw t.unsupported("a range (\(value)) is used only as range.contains(value)", key: nil)
        }
        return .constant(try PredicateValue.from(value))
    }
}

extension PredicateExpressions.NilLiteral: FoundationTranslatable {
    func translate(_ t: inout FoundationPredicateTranslator) throws -> FoundationTerm { .constant(.null) }
}

extension PredicateExpressions.KeyPath: FoundationTranslatable {
    func translate(_ t: inout FoundationPredicateTranslator) throws -> FoundationTerm {
        let base = try t.term(root)
        let path = keyPath as AnyKeyPath
        switch base {
        case .constant: return try t.fold(self)
        case .object(let owner):
            guard let managedClass = Root.Output.self as? ManagedObject.Type else { break }
            switch try ModelKeyPaths.target(of: path, valueType: Output.self, on: managedClass) {
            case .attribute(let name): return .attribute(owner.appending(name))
            case .toOne(let name): return .object(owner.appending(name))
            case .toMany(let name): return .toMany(owner.appending(name), filter: nil)
            case .identity: return .object(owner)
            }
        case .toMany(let collection, let filter):
            guard let collectionType = Root.Output.self as? any ToManyCollectionKeyPaths.Type else { break }
            let count: PredicateExpression = filter.map {
                .subquery(collection: collection, variable: $0.variable, predicate: $0.predicate, trailing: ["@count"])
            } ?? .keyPath(collection.appending("@count"))
            if path == collectionType.countKeyPath { return .value(count) }
            if path == collectionType.isEmptyKeyPath {
                return .condition(.comparison(PredicateComparison(lhs: count, op: .equal, rhs: .value(.int(0)))))
            }
        case .attribute(let attribute):
            if path == \String.isEmpty as AnyKeyPath { return try t.compare(.attribute(attribute), .equal, .constant(.string(""))) }
            if path == \String.count as AnyKeyPath {
                throw t.unsupported("String.count (of '\(attribute)') counts characters, which the stores cannot; a format string's '\(attribute).length' counts UTF-16 units", key: attribute.description)
            }
        default: break
        }
        throw t.unsupported("\(path.debugDescription) has no meaning the stores can answer here", key: path.debugDescription)
    }
}

// MARK: Logic

extension PredicateExpressions.Conjunction: FoundationTranslatable {
    func translate(_ t: inout FoundationPredicateTranslator) throws -> FoundationTerm {
        let l = try t.term(lhs), r = try t.term(rhs)
        if l.isConstant && r.isConstant { return try t.fold(self) }
        return .condition(.and(flattened([try l.condition(t), try r.condition(t)], and: true)))
    }
}

extension PredicateExpressions.Disjunction: FoundationTranslatable {
    func translate(_ t: inout FoundationPredicateTranslator) throws -> FoundationTerm {
        let l = try t.term(lhs), r = try t.term(rhs)
        if l.isConstant && r.isConstant { return try t.fold(self) }
        return .condition(.or(flattened([try l.condition(t), try r.condition(t)], and: false)))
    }
}

extension PredicateExpressions.Negation: FoundationTranslatable {
    func translate(_ t: inout FoundationPredicateTranslator) throws -> FoundationTerm {
        let inner = try t.term(wrapped)
        if inner.isConstant { return try t.fold(self) }
        return .condition(.not(try inner.condition(t)))
    }
}

extension PredicateExpressions.Conditional: FoundationTranslatable {
    func translate(_ t: inout FoundationPredicateTranslator) throws -> FoundationTerm {
        let condition = try t.term(test), a = try t.term(trueBranch), b = try t.term(falseBranch)
        if case .constant(.bool(let value)) = condition { return value ? a : b }
        let node = try condition.condition(t)
        if case .condition(let x) = a, case .condition(let y) = b {
            return .condition(.or([.and([node, x]), .and([.not(node), y])]))
        }
        return .value(.ternary(node, try a.expression(t), try b.expression(t)))
    }
}

// MARK: Comparisons

extension PredicateExpressions.Equal: FoundationTranslatable {
    func translate(_ t: inout FoundationPredicateTranslator) throws -> FoundationTerm {
        let l = try t.term(lhs), r = try t.term(rhs)
        if l.isConstant && r.isConstant { return try t.fold(self) }
        if let chain = FoundationTerm.comparingOptionalCondition(l, r, negated: false) { return chain }
        if LHS.Output.self is any BinaryFloatingPoint.Type { return try t.compareNumbers(l, .equal, r) }
        return try t.compare(l, .equal, r)
    }
}

extension PredicateExpressions.NotEqual: FoundationTranslatable {
    func translate(_ t: inout FoundationPredicateTranslator) throws -> FoundationTerm {
        let l = try t.term(lhs), r = try t.term(rhs)
        if l.isConstant && r.isConstant { return try t.fold(self) }
        if let chain = FoundationTerm.comparingOptionalCondition(l, r, negated: true) { return chain }
        if LHS.Output.self is any BinaryFloatingPoint.Type { return try t.compareNumbers(l, .notEqual, r) }
        return try t.compare(l, .notEqual, r)
    }
}

extension PredicateExpressions.Comparison: FoundationTranslatable {
    func translate(_ t: inout FoundationPredicateTranslator) throws -> FoundationTerm {
        let l = try t.term(lhs), r = try t.term(rhs)
        if l.isConstant && r.isConstant { return try t.fold(self) }
        let numbers = LHS.Output.self is any BinaryFloatingPoint.Type
        switch op {
        case .lessThan: return try t.compare(l, .less, r)
        case .lessThanOrEqual: return try numbers ? t.compareNumbers(l, .lessOrEqual, r) : t.compare(l, .lessOrEqual, r)
        case .greaterThan: return try t.compare(l, .greater, r)
        case .greaterThanOrEqual: return try numbers ? t.compareNumbers(l, .greaterOrEqual, r) : t.compare(l, .greaterOrEqual, r)
        }
    }
}

// MARK: Arithmetic

extension PredicateExpressions.Arithmetic: FoundationTranslatable {
    func translate(_ t: inout FoundationPredicateTranslator) throws -> FoundationTerm {
        let l = try t.term(lhs), r = try t.term(rhs)
        if l.isConstant && r.isConstant { return try t.fold(self) }
        switch op {
        case .add: return try t.function(.add, [l, r])
        case .subtract: return try t.function(.subtract, [l, r])
        case .multiply: return try t.function(.multiply, [l, r])
        }
    }
}

extension PredicateExpressions.IntDivision: FoundationTranslatable {
    func translate(_ t: inout FoundationPredicateTranslator) throws -> FoundationTerm {
        let l = try t.term(lhs), r = try t.term(rhs)
        if l.isConstant && r.isConstant { return try t.fold(self) }
        return try t.function(.divide, [l, r])
    }
}

extension PredicateExpressions.FloatDivision: FoundationTranslatable {
    func translate(_ t: inout FoundationPredicateTranslator) throws -> FoundationTerm {
        let l = try t.term(lhs), r = try t.term(rhs)
        if l.isConstant && r.isConstant { return try t.fold(self) }
        return try t.function(.divide, [l, r])
    }
}

extension PredicateExpressions.IntRemainder: FoundationTranslatable {
    func translate(_ t: inout FoundationPredicateTranslator) throws -> FoundationTerm {
        let l = try t.term(lhs), r = try t.term(rhs)
        if l.isConstant && r.isConstant { return try t.fold(self) }
        return try t.function(.modulus, [l, r])
    }
}

extension PredicateExpressions.UnaryMinus: FoundationTranslatable {
    func translate(_ t: inout FoundationPredicateTranslator) throws -> FoundationTerm {
        let inner = try t.term(wrapped)
        if inner.isConstant { return try t.fold(self) }
        // -x of a Double keeps the sign of zero (0 - 0.0 is +0.0, and 1 / -0.0 is -∞).
        if Wrapped.Output.self is any BinaryFloatingPoint.Type { return try t.function(.multiply, [.constant(.double(-1)), inner]) }
        return try t.function(.subtract, [.constant(.int(0)), inner])
    }
}

// MARK: Optionals

extension PredicateExpressions.NilCoalesce: FoundationTranslatable {
    func translate(_ t: inout FoundationPredicateTranslator) throws -> FoundationTerm {
        let l = try t.term(lhs), r = try t.term(rhs)
        if case .constant(.null) = l { return r }
        if l.isConstant { return l }
        if case .optionalCondition(let present, let condition) = l, case .constant(.bool(let fallback)) = r {
            return .condition(fallback ? .or([.not(present), condition]) : .and([present, condition]))
        }
        let value = try l.expression(t)
        let present = PredicateNode.comparison(PredicateComparison(lhs: value, op: .notEqual, rhs: .value(.null)))
        return .value(.ternary(present, value, try r.expression(t)))
    }
}

extension PredicateExpressions.OptionalFlatMap: FoundationTranslatable {
    func translate(_ t: inout FoundationPredicateTranslator) throws -> FoundationTerm {
        let unwrapped = try t.term(wrapped)
        if unwrapped.isConstant { return try t.fold(self) }
        let result = try t.with(variable.key, as: unwrapped) { try $0.term(transform) }
        // A key path on from the unwrapped value is nil when it is: SQL's NULL does the same.
        switch (unwrapped, result) {
        case (.object(let base), .object(let path)), (.object(let base), .attribute(let path)), (.object(let base), .toMany(let path, _)):
            if path.variable == base.variable && path.components.starts(with: base.components) { return result }
        case (_, .constant(.null)): return result
        default: break
        }
        let present = PredicateNode.comparison(PredicateComparison(lhs: try unwrapped.expression(t), op: .notEqual, rhs: .value(.null)))
        if case .condition(let condition) = result { return .optionalCondition(present: present, condition: condition) }
        return .value(.ternary(present, try result.expression(t), .value(.null)))
    }
}

extension PredicateExpressions.ForcedUnwrap: FoundationTranslatable {
    func translate(_ t: inout FoundationPredicateTranslator) throws -> FoundationTerm {
        let inner = try t.term(self.inner)
        if inner.isConstant { return try t.fold(self) }
        return inner
    }
}

// MARK: Ranges

extension PredicateExpressions.ClosedRange: FoundationTranslatable, RangeOperands {
    var includesUpperBound: Bool { true }

    func bounds(_ t: inout FoundationPredicateTranslator) throws -> (lower: FoundationTerm, upper: FoundationTerm) {
        (try t.term(lower), try t.term(upper))
    }

    func translate(_ t: inout FoundationPredicateTranslator) throws -> FoundationTerm {
        throw t.unsupported("a range (lower...upper) is used only as range.contains(value)", key: nil)
    }
}

extension PredicateExpressions.Range: FoundationTranslatable, RangeOperands {
    var includesUpperBound: Bool { false }

    func bounds(_ t: inout FoundationPredicateTranslator) throws -> (lower: FoundationTerm, upper: FoundationTerm) {
        (try t.term(lower), try t.term(upper))
    }

    func translate(_ t: inout FoundationPredicateTranslator) throws -> FoundationTerm {
        throw t.unsupported("a range (lower..<upper) is used only as range.contains(value)", key: nil)
    }
}

extension PredicateExpressions.RangeExpressionContains: FoundationTranslatable {
    func translate(_ t: inout FoundationPredicateTranslator) throws -> FoundationTerm {
        let value = try t.term(element)
        var lower: FoundationTerm?, upper: FoundationTerm?
        let closed: Bool
        if let operands = range as? any RangeOperands {
            (lower, upper) = try operands.bounds(&t)
            closed = operands.includesUpperBound
        } else {
            let constant: RangeExpression.Output
            do {
                constant = try range.evaluate(PredicateBindings())
            } catch {
                throw t.unsupported("the range of contains(_:) must be a constant or lower...upper / lower..<upper", key: nil)
            }
            guard let bounds = constant as? any ConstantRangeBounds else {
                throw t.unsupported("the range \(constant) is not a closed, half-open or one-sided range", key: nil)
            }
            lower = try bounds.lowerBoundValue.map { .constant(try PredicateValue.from($0)) }
            upper = try bounds.upperBoundValue.map { .constant(try PredicateValue.from($0)) }
            closed = bounds.includesUpperBound
        }
        if value.isConstant && (lower?.isConstant ?? true) && (upper?.isConstant ?? true) { return try t.fold(self) }
        var conditions: [PredicateNode] = []
        if let lower, case .condition(let node) = try t.compare(value, .greaterOrEqual, lower) { conditions.append(node) }
        if let upper, case .condition(let node) = try t.compare(value, closed ? .lessOrEqual : .less, upper) { conditions.append(node) }
        return .condition(conditions.count == 1 ? conditions[0] : .and(conditions))
    }
}

// MARK: Sequences and strings

extension PredicateExpressions.SequenceContains: FoundationTranslatable {
    func translate(_ t: inout FoundationPredicateTranslator) throws -> FoundationTerm {
        let collection = try t.term(sequence), member = try t.term(element)
        if collection.isConstant && member.isConstant { return try t.fold(self) }
        switch collection {
        case .constant(.list(let values)):
            return try t.compare(member, .in, .constant(.list(values)))
        case .toMany(let path, .none):
            return .condition(.comparison(PredicateComparison(lhs: .keyPath(path), op: .contains, rhs: try member.expression(t))))
        case .toMany(let path, let filter?):
            let element = KeyPathExpression(variable: filter.variable, components: [])
            let isMember = PredicateNode.comparison(PredicateComparison(lhs: .keyPath(element), op: .equal, rhs: try member.expression(t)))
            return t.subqueryCount(of: path, variable: filter.variable, where: .and([filter.predicate, isMember]), comparedToZero: .greater)
        default:
            throw t.unsupported("contains(_:) applies to a to-many relationship or a constant collection here", key: nil)
        }
    }
}

extension PredicateExpressions.SequenceContainsWhere: FoundationTranslatable {
    func translate(_ t: inout FoundationPredicateTranslator) throws -> FoundationTerm {
        let collection = try t.term(sequence)
        if collection.isConstant { return try t.foldOrRefuse(self, "contains(where:) over a constant collection cannot depend on the object") }
        guard case .toMany(let path, let filter) = collection else {
            throw t.unsupported("contains(where:) applies to a to-many relationship", key: nil)
        }
        let name = filter?.variable ?? t.newVariable()
        let condition = try t.elementCondition(test, variable: variable.key, named: name)
        return t.subqueryCount(of: path, variable: name, where: filter.map { .and([$0.predicate, condition]) } ?? condition, comparedToZero: .greater)
    }
}

extension PredicateExpressions.SequenceAllSatisfy: FoundationTranslatable {
    func translate(_ t: inout FoundationPredicateTranslator) throws -> FoundationTerm {
        let collection = try t.term(sequence)
        if collection.isConstant { return try t.foldOrRefuse(self, "allSatisfy over a constant collection cannot depend on the object") }
        guard case .toMany(let path, let filter) = collection else {
            throw t.unsupported("allSatisfy applies to a to-many relationship", key: nil)
        }
        let name = filter?.variable ?? t.newVariable()
        let failing = PredicateNode.not(try t.elementCondition(test, variable: variable.key, named: name))
        return t.subqueryCount(of: path, variable: name, where: filter.map { .and([$0.predicate, failing]) } ?? failing, comparedToZero: .equal)
    }
}

extension PredicateExpressions.Filter: FoundationTranslatable {
    func translate(_ t: inout FoundationPredicateTranslator) throws -> FoundationTerm {
        let collection = try t.term(sequence)
        if collection.isConstant { return try t.foldOrRefuse(self, "filter over a constant collection cannot depend on the object") }
        guard case .toMany(let path, let existing) = collection else {
            throw t.unsupported("filter applies to a to-many relationship", key: nil)
        }
        let name = existing?.variable ?? t.newVariable()
        let condition = try t.elementCondition(filter, variable: variable.key, named: name)
        return .toMany(path, filter: (name, existing.map { .and([$0.predicate, condition]) } ?? condition))
    }
}

extension PredicateExpressions.SequenceStartsWith: FoundationTranslatable {
    func translate(_ t: inout FoundationPredicateTranslator) throws -> FoundationTerm {
        let l = try t.term(base), r = try t.term(prefix)
        if l.isConstant && r.isConstant { return try t.fold(self) }
        return try t.search(l, .beginsWith, r)
    }
}

extension PredicateExpressions.CollectionContainsCollection: FoundationTranslatable {
    func translate(_ t: inout FoundationPredicateTranslator) throws -> FoundationTerm {
        let l = try t.term(base), r = try t.term(other)
        if l.isConstant && r.isConstant { return try t.fold(self) }
        return try t.search(l, .contains, r)
    }
}

// MARK: Computed only when they depend on no object

extension PredicateExpressions.StringContainsRegex: FoundationTranslatable {
    func translate(_ t: inout FoundationPredicateTranslator) throws -> FoundationTerm {
        try t.foldOrRefuse(self, "contains(Regex) has no SQL meaning here; use MATCHES in a format string")
    }
}

extension PredicateExpressions.SequenceMaximum: FoundationTranslatable {
    func translate(_ t: inout FoundationPredicateTranslator) throws -> FoundationTerm {
        try t.foldOrRefuse(self, "max() of values of the object has no SQL meaning here; use @max in a format string")
    }
}

extension PredicateExpressions.SequenceMinimum: FoundationTranslatable {
    func translate(_ t: inout FoundationPredicateTranslator) throws -> FoundationTerm {
        try t.foldOrRefuse(self, "min() of values of the object has no SQL meaning here; use @min in a format string")
    }
}

extension PredicateExpressions.CollectionIndexSubscript: FoundationTranslatable {
    func translate(_ t: inout FoundationPredicateTranslator) throws -> FoundationTerm {
        try t.foldOrRefuse(self, "subscripting a collection of the object ([i]) has no SQL meaning: a to-many relationship is a set")
    }
}

extension PredicateExpressions.CollectionRangeSubscript: FoundationTranslatable {
    func translate(_ t: inout FoundationPredicateTranslator) throws -> FoundationTerm {
        try t.foldOrRefuse(self, "a slice ([range]) of a value of the object has no SQL meaning")
    }
}

extension PredicateExpressions.DictionaryKeySubscript: FoundationTranslatable {
    func translate(_ t: inout FoundationPredicateTranslator) throws -> FoundationTerm {
        try t.foldOrRefuse(self, "a dictionary subscript with a key from the object has no SQL meaning")
    }
}

extension PredicateExpressions.DictionaryKeyDefaultValueSubscript: FoundationTranslatable {
    func translate(_ t: inout FoundationPredicateTranslator) throws -> FoundationTerm {
        try t.foldOrRefuse(self, "a dictionary subscript with a key from the object has no SQL meaning")
    }
}

extension PredicateExpressions.ConditionalCast: FoundationTranslatable {
    func translate(_ t: inout FoundationPredicateTranslator) throws -> FoundationTerm {
        try t.foldOrRefuse(self, "a cast (as?) of a value of the object has no SQL meaning")
    }
}

extension PredicateExpressions.ForceCast: FoundationTranslatable {
    func translate(_ t: inout FoundationPredicateTranslator) throws -> FoundationTerm {
        try t.foldOrRefuse(self, "a cast (as!) of a value of the object has no SQL meaning")
    }
}

extension PredicateExpressions.TypeCheck: FoundationTranslatable {
    func translate(_ t: inout FoundationPredicateTranslator) throws -> FoundationTerm {
        try t.foldOrRefuse(self, "a type check (is) of a value of the object has no SQL meaning; fetch the sub-entity instead")
    }
}
