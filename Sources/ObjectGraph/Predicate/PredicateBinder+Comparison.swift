import Foundation

// Binding comparisons: which side ranges over a to-many, which operator applies, and the
// stored form of each constant for the key it is compared with.
extension PredicateBinder {
    /// A comparison bound: quantifiers over to-many key paths become element scopes, constants
    /// take the stored form of the key they meet.
    mutating func bindComparison(_ c: PredicateComparison) throws -> BoundNode {
        let lhs = try resolve(c.lhs)
        let rhs = try resolve(c.rhs)
        if case .value(.list(let items)) = lhs {
            if let node = try literalList(items, comparison: c, rhs: rhs) { return node }
        }
        switch lhs {
        case .toMany(let toMany, let tail, let text):
            let quantifier = c.quantifier == .direct ? .any : c.quantifier
            let element = push(toMany.relationship.destinationEntity, named: nil)
            defer { pop(nil) }
            let (item, kind) = try elementOperand(tail, element: element, in: text)
            var op = c.op
            if op == .contains, case .object = kind { op = .equal }     // reports CONTAINS %@
            return .quantified(quantifier, toMany, element: element, try compare(item, kind, op, rhs, c.options, text: c))
        case .value(let value):
            try requireDirect(c)
            switch rhs {
            case .toMany(let toMany, let tail, let text) where c.op == .in:     // %@ IN reports, 'x' IN reports.name
                let element = push(toMany.relationship.destinationEntity, named: nil)
                defer { pop(nil) }
                let (item, kind) = try elementOperand(tail, element: element, in: text)
                return .quantified(.any, toMany, element: element, try compare(item, kind, .equal, .value(value), c.options, text: c))
            case .operand(let operand, let kind) where c.op == .in && kind == .text:     // 'ab' IN name: a substring test
                return try compare(operand, kind, .contains, .value(value), c.options, text: c)
            case .operand(let operand, let kind):
                guard let flipped = Self.flipped(c.op) else {
                    throw FetchPredicateError(.unsupported, "put the key path on the left of \(c.op.rawValue) in '\(PredicateNode.comparison(c))'", entity: scopes[0].name, key: c.rhs.description)
                }
                return try compare(operand, kind, flipped, .value(value), c.options, text: c)
            default:
                let (stored, kind) = try storedValue(value, for: .null, c)
                return try compare(.constant(stored), kind, c.op, rhs, c.options, text: c)
            }
        case .operand(let operand, let kind):
            try requireDirect(c)
            if case .toMany(let toMany, let tail, let text) = rhs, c.op == .in {     // department IN employees.department
                let element = push(toMany.relationship.destinationEntity, named: nil)
                defer { pop(nil) }
                let (item, itemKind) = try elementOperand(tail, element: element, in: text)
                return .quantified(.any, toMany, element: element, try compare(item, itemKind, .equal, .operand(operand, kind), c.options, text: c))
            }
            return try compare(operand, kind, c.op, rhs, c.options, text: c)
        }
    }

    /// A literal list on the left: `ANY {1, 2} == count` is one comparison per element;
    /// `{1, 2} == {1, 2}` compares the lists element by element (as NSArray's isEqual:).
    private mutating func literalList(_ items: [PredicateValue], comparison c: PredicateComparison, rhs: Resolved) throws -> BoundNode? {
        if c.quantifier != .direct {
            let parts = items.map { PredicateNode.comparison(PredicateComparison(lhs: .value($0), op: c.op, rhs: c.rhs, options: c.options)) }
            switch c.quantifier {
            case .all: return try bind(.and(parts))
            case .none: return try bind(.not(.or(parts)))
            default: return try bind(.or(parts))
            }
        }
        if c.op == .contains {     // {1, 2} CONTAINS x: membership, as x IN {1, 2}
            return try bind(.comparison(PredicateComparison(lhs: c.rhs, op: .in, rhs: c.lhs, options: c.options)))
        }
        guard case .value(.list(let others)) = rhs, c.op == .equal || c.op == .notEqual else { return nil }
        var same = items.count == others.count
        for (a, b) in zip(items, others) where same {
            guard let (x, _) = Self.convert(a, to: .null), let (y, _) = Self.convert(b, to: .null) else { return nil }
            same = c.options.isEmpty ? PredicateEvaluator.equal(x, y) : PredicateEvaluator.compare(x, .equal, y, c.options)
        }
        return .constant(same == (c.op == .equal))
    }

    private func requireDirect(_ c: PredicateComparison) throws {
        if c.quantifier != .direct {
            throw FetchPredicateError(.unsupported, "\(c.quantifier.rawValue) needs a to-many key path on the left of '\(PredicateNode.comparison(c))'", entity: scopes[0].name, key: c.lhs.description)
        }
    }

    /// The value of each element of a to-many: the keys after the relationship, or the element.
    private mutating func elementOperand(_ tail: [String], element: ScopeIndex, in text: String) throws -> (BoundOperand, ValueKind) {
        guard case .operand(let item, let kind) = try resolve(tail, from: element, text: text) else {
            throw FetchPredicateError(.unsupported, "'\(text)' goes through two to-many relationships; use SUBQUERY", entity: scopes[0].name, key: text)
        }
        return (item, kind)
    }

    /// The operator with its sides swapped (`3 < age` is `age > 3`).
    private static func flipped(_ op: PredicateOperator) -> PredicateOperator? {
        switch op {
        case .equal, .notEqual: return op
        case .less: return .greater
        case .lessOrEqual: return .greaterOrEqual
        case .greater: return .less
        case .greaterOrEqual: return .lessOrEqual
        default: return nil
        }
    }

    private func compare(_ lhs: BoundOperand, _ lhsKind: ValueKind, _ op: PredicateOperator, _ rhs: Resolved,
                         _ options: StringOptions, text c: PredicateComparison) throws -> BoundNode {
        var right: BoundOperand
        let rightKind: ValueKind
        switch rhs {
        case .toMany:
            throw FetchPredicateError(.unsupported, "a to-many key path on the right of '\(PredicateNode.comparison(c))' needs IN, or ANY on the left", entity: scopes[0].name, key: c.rhs.description)
        case .value(.list(let values)):
            guard op == .in || op == .between else {
                throw FetchPredicateError(.typeMismatch, "a collection can only follow IN or BETWEEN, not \(op.rawValue), in '\(PredicateNode.comparison(c))'", entity: scopes[0].name, key: c.lhs.description)
            }
            var stored: [SlotValue] = []
            for value in values { stored.append(try storedValue(value, for: lhsKind, c).0) }
            right = .list(stored)
            rightKind = lhsKind
        case .value(let value):
            var (stored, kind) = try storedValue(value, for: lhsKind, c)
            if op == .in, kind == .text, lhsKind == .text || lhsKind == .null {
                // `name IN 'wxyz'`: with a string on the right, IN is a substring test.
                return .compare(.constant(stored), .contains, lhs, options)
            }
            if op == .in { right = .list([stored]) } else { right = .constant(Self.atPrecision(of: lhs, stored)) }
            if kind == .null { kind = lhsKind }
            rightKind = kind
        case .operand(let operand, let kind):
            if lhsKind != .null, kind != .null, lhsKind != kind {
                throw FetchPredicateError(.typeMismatch, "'\(c.lhs)' is a \(lhsKind) and '\(c.rhs)' is a \(kind): they cannot be compared in '\(PredicateNode.comparison(c))'",
                                     entity: scopes[0].name, key: c.lhs.description)
            }
            if op == .in, kind == .text { return .compare(operand, .contains, lhs, options) }     // name IN nickname
            right = operand
            rightKind = kind
        }
        if case .list(let items) = right { right = .list(items.map { Self.atPrecision(of: lhs, $0) }) }
        switch op {
        case .beginsWith, .endsWith, .like, .matches, .contains:
            guard lhsKind == .text || lhsKind == .null, rightKind == .text || rightKind == .null else {
                throw FetchPredicateError(.typeMismatch, "\(op.rawValue) compares strings, but '\(c.lhs)' is a \(lhsKind) and '\(c.rhs)' is a \(rightKind)", entity: scopes[0].name, key: c.lhs.description)
            }
            if op == .matches, case .constant(.text(let pattern)) = right, !StringComparison.isValidPattern(pattern) {
                throw FetchPredicateError(.syntax, "MATCHES needs an ICU regular expression; '\(pattern)' is not one (in '\(PredicateNode.comparison(c))')",
                                          entity: scopes[0].name, key: c.lhs.description)
            }
        case .between:
            guard case .list(let bounds) = right, bounds.count == 2 else {
                throw FetchPredicateError(.typeMismatch, "BETWEEN takes two values, {low, high}, in '\(PredicateNode.comparison(c))'", entity: scopes[0].name, key: c.lhs.description)
            }
            if bounds.contains(where: \.isNull) {     // x >= low AND x <= high, with nil's rules for each
                return .and(zip([PredicateOperator.greaterOrEqual, .lessOrEqual], bounds).map { op, bound in
                    bound.isNull ? .compare(lhs, .equal, .constant(.null), []) : .compare(lhs, op, .constant(bound), lhsKind == .text ? options : [])
                })
            }
        case .less, .lessOrEqual, .greater, .greaterOrEqual:
            if case .object = lhsKind {
                throw FetchPredicateError(.typeMismatch, "\(op.rawValue) cannot order objects ('\(c.lhs)' is a \(lhsKind))", entity: scopes[0].name, key: c.lhs.description)
            }
            if case .constant(let value) = right, value.isNull {
                // nil is never < or > anything; nil <= nil and nil >= nil hold (Foundation).
                return op == .less || op == .greater ? .constant(false) : .compare(lhs, .equal, right, [])
            }
        case .in:
            guard case .list = right else {
                throw FetchPredicateError(.typeMismatch, "IN needs a collection, a {...} aggregate or a to-many key path on its right, in '\(PredicateNode.comparison(c))'", entity: scopes[0].name, key: c.lhs.description)
            }
        default: break
        }
        let keepsOptions = lhsKind == .text || rightKind == .text
        return .compare(lhs, op, right, keepsOptions ? options : [])
    }

    /// `value` rounded to a `Float` when `operand` is a `Float` attribute: the store keeps the
    /// `Float` widened to a `Double`, so `score == 1.7` means `score == Float(1.7)`.
    static func atPrecision(of operand: BoundOperand, _ value: SlotValue) -> SlotValue {
        guard case .path(let path) = operand, case .attribute(let attribute) = path.terminal, attribute.attributeType == .float,
              case .double(let v) = value else { return value }
        return .double(Double(Float(v)))
    }

    /// `value` as stored for a key of `kind` (`.null` kind: the value's own natural form).
    private func storedValue(_ value: PredicateValue, for kind: ValueKind, _ c: PredicateComparison) throws -> (SlotValue, ValueKind) {
        func mismatch() -> FetchPredicateError {
            FetchPredicateError(.typeMismatch, "'\(c.lhs)' is a \(kind), so it cannot be compared with the \(value.typeName) \(value) in '\(PredicateNode.comparison(c))'",
                           entity: scopes[0].name, key: c.lhs.description)
        }
        guard var stored = Self.convert(value, to: kind) else { throw mismatch() }
        // A Decimal stays one, so that a store that keeps Decimals exactly (PostgreSQL's
        // `numeric`) compares with all its digits; SQLite and the in-memory evaluation
        // compare its double, as before.
        if case .decimal(let decimal) = value, kind == .number || kind == .null { stored.0 = .decimal(decimal) }
        return stored
    }

    /// `value` in the stored form of a `kind` value, or nil when it is of another type.
    static func convert(_ value: PredicateValue, to kind: ValueKind) -> (SlotValue, ValueKind)? {
        switch (value, kind) {
        case (.null, _): return (.null, .null)
        case (.list, _): return nil
        case (.int(let v), .number), (.int(let v), .null): return (.int(v), .number)
        case (.double(let v), .number), (.double(let v), .null): return (.double(v), .number)
        case (.decimal(let v), .number), (.decimal(let v), .null): return (.double(v.storedDouble), .number)
        case (.bool(let v), .number), (.bool(let v), .null): return (.int(v ? 1 : 0), .number)
        case (.string(let v), .text), (.string(let v), .null): return (.text(v), .text)
        case (.url(let v), .text), (.url(let v), .null): return (.text(v.absoluteString), .text)
        case (.date(let v), .date), (.date(let v), .null): return (.double(v.timeIntervalSinceReferenceDate), .date)
        case (.uuid(let v), .uuid), (.uuid(let v), .null): return (.uuid(v), .uuid)
        case (.data(let v), .data), (.data(let v), .null): return (.blob(v), .data)
        case (.object(let id), .object(let entity)):
            guard id.entity.root === entity.root else { return nil }
            return (.object(id), kind)
        case (.object(let id), .null): return (.object(id), .object(id.entity))
        default: return nil
        }
    }
}
