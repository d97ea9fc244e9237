import Foundation

/// Resolves a predicate tree against an entity: key paths become properties (unknown keys
/// throw naming the entity and the key), constants become stored values of the type they
/// are compared with (mismatches throw naming both types). Touches no store.
struct PredicateBinder {
    private var scopes: [EntityDescription]
    private var variables: [String: ScopeIndex] = [:]

    init(entity: EntityDescription) {
        scopes = [entity]
    }

    mutating func bind(_ node: PredicateNode) throws -> BoundNode {
        switch node {
        case .constant(let value): return .constant(value)
        case .not(let inner): return .not(try bind(inner))
        case .and(let nodes): return .and(try nodes.map { try bind($0) })
        case .or(let nodes): return .or(try nodes.map { try bind($0) })
        case .comparison(let comparison): return try bind(comparison)
        }
    }

    // MARK: Key paths

    /// A key path resolved: a single value, or the elements of a to-many with the keys that
    /// follow it (still to resolve against each element).
    fileprivate enum Resolved {
        /// A constant, converted once the other side's type is known.
        case value(PredicateValue)
        case operand(BoundOperand, ValueKind)
        case toMany(BoundToMany, tail: [String], text: String)
    }

    private mutating func resolve(_ expression: PredicateExpression) throws -> Resolved {
        switch expression {
        case .value(let value): return .value(value)
        case .aggregate(let items):
            var values: [PredicateValue] = []
            for item in items {
                guard case .value(let value) = item else {
                    throw FetchPredicateError(.unsupported, "a {...} aggregate holds constants only, not \(item)", entity: scopes[0].name)
                }
                values.append(value)
            }
            return .value(.list(values))
        case .keyPath(let path): return try resolve(path)
        case .subquery(let collection, let variable, let predicate, let trailing):
            guard case .toMany(let toMany, let tail, _) = try resolve(collection), tail.isEmpty else {
                throw FetchPredicateError(.unsupported, "SUBQUERY needs a to-many key path, not '\(collection)'", entity: scopes[0].name, key: collection.description)
            }
            guard trailing == ["@count"] else {
                throw FetchPredicateError(.unsupported, "a SUBQUERY is used as SUBQUERY(...).@count", entity: scopes[0].name)
            }
            let element = push(toMany.relationship.destinationEntity, named: variable)
            defer { pop(variable) }
            let inner = try bind(predicate)
            return .operand(.subqueryCount(toMany, element: element, inner), .number)
        }
    }

    private mutating func resolve(_ keyPath: KeyPathExpression) throws -> Resolved {
        var root: ScopeIndex = 0
        if let name = keyPath.variable {
            guard let index = variables[name] else {
                throw FetchPredicateError(.variable, "$\(name) has no value; give it one with withSubstitutionVariables([\"\(name)\": ...])", entity: scopes[0].name, key: keyPath.description)
            }
            root = index
        }
        return try resolve(keyPath.components, from: root, text: keyPath.description)
    }

    fileprivate mutating func resolve(_ components: [String], from root: ScopeIndex, text: String) throws -> Resolved {
        let rootEntity = scopes[root]
        var entity = rootEntity
        var hops: [RelationshipDescription] = []
        for (index, key) in components.enumerated() {
            if key.uppercased() == "SELF" && hops.isEmpty && index == 0 { continue }
            guard let property = entity.propertiesByName[key] else {
                if key.hasPrefix("@") {
                    throw FetchPredicateError(.unsupported, "\(key) applies to a to-many relationship (in '\(text)')", entity: rootEntity.name, key: text)
                }
                throw FetchPredicateError.unknownKey(key, path: text, entity: entity)
            }
            let isLast = index == components.count - 1
            if let attribute = property as? AttributeDescription {
                guard isLast else {
                    throw FetchPredicateError(.unknownKey, "\(entity.name).\(key) is an attribute; it has no key '\(components[index + 1])' (in '\(text)')", entity: entity.name, key: text)
                }
                guard !attribute.isTransient else {
                    throw FetchPredicateError(.unsupported, "\(entity.name).\(key) is transient: it is not stored, so a fetch cannot test it", entity: entity.name, key: text)
                }
                let path = BoundPath(root: root, rootEntity: rootEntity, hops: hops, terminal: .attribute(attribute))
                return .operand(.path(path), ValueKind(attribute.attributeType))
            }
            let relationship = property as! RelationshipDescription
            if !relationship.isToMany {
                if isLast {
                    let path = BoundPath(root: root, rootEntity: rootEntity, hops: hops, terminal: .toOne(relationship))
                    return .operand(.path(path), .object(relationship.destinationEntity))
                }
                hops.append(relationship)
                entity = relationship.destinationEntity
                continue
            }
            let toMany = BoundToMany(root: root, rootEntity: rootEntity, hops: hops, relationship: relationship)
            let rest = Array(components[(index + 1)...])
            guard let first = rest.first, first.hasPrefix("@") else { return .toMany(toMany, tail: rest, text: text) }
            guard let function = CollectionFunction(rawValue: String(first.dropFirst()).lowercased()) else {
                throw FetchPredicateError(.unsupported, "unknown collection operator \(first) (use @count, @sum, @avg, @min, @max) in '\(text)'", entity: rootEntity.name, key: text)
            }
            if function == .count {
                guard rest.count == 1 else { throw FetchPredicateError(.unsupported, "@count ends a key path ('\(text)')", entity: rootEntity.name, key: text) }
                return .operand(.collection(.count, toMany, element: scopes.count, tail: nil), .number)
            }
            let element = push(relationship.destinationEntity, named: nil)
            defer { pop(nil) }
            guard case .operand(.path(let tail), let kind) = try resolve(Array(rest.dropFirst()), from: element, text: text),
                  case .attribute = tail.terminal else {
                throw FetchPredicateError(.unsupported, "\(first) needs an attribute of \(relationship.destinationEntity.name) after it (\(relationship.name).\(first).age) in '\(text)'", entity: rootEntity.name, key: text)
            }
            if function == .sum || function == .avg, kind != .number {
                throw FetchPredicateError(.typeMismatch, "\(first) needs a number, but '\(text)' is a \(kind)", entity: rootEntity.name, key: text)
            }
            return .operand(.collection(function, toMany, element: element, tail: tail), function == .avg ? .number : kind)
        }
        if hops.isEmpty { return .operand(.path(BoundPath(root: root, rootEntity: rootEntity, hops: [], terminal: .identity)), .object(rootEntity)) }
        throw FetchPredicateError(.unknownKey, "'\(text)' is not a key path", entity: rootEntity.name, key: text)
    }

    private mutating func push(_ entity: EntityDescription, named name: String?) -> ScopeIndex {
        scopes.append(entity)
        if let name { variables[name] = scopes.count - 1 }
        return scopes.count - 1
    }

    private mutating func pop(_ name: String?) {
        scopes.removeLast()
        if let name { variables[name] = nil }
    }

    // MARK: Comparisons

    private mutating func bind(_ c: PredicateComparison) throws -> BoundNode {
        let lhs = try resolve(c.lhs)
        let rhs = try resolve(c.rhs)
        switch lhs {
        case .toMany(let toMany, let tail, let text):
            let quantifier = c.quantifier == .direct ? .any : c.quantifier
            let element = push(toMany.relationship.destinationEntity, named: nil)
            defer { pop(nil) }
            let (item, kind) = try elementOperand(tail, element, text)
            var op = c.op
            if op == .contains, case .object = kind { op = .equal }     // reports CONTAINS %@
            return .quantified(quantifier, toMany, element: element, try compare(item, kind, op, rhs, c.options, text: c))
        case .value(let value):
            try requireDirect(c)
            switch rhs {
            case .toMany(let toMany, let tail, let text) where c.op == .in:     // %@ IN reports, 'x' IN reports.name
                let element = push(toMany.relationship.destinationEntity, named: nil)
                defer { pop(nil) }
                let (item, kind) = try elementOperand(tail, element, text)
                return .quantified(.any, toMany, element: element, try compare(item, kind, .equal, .value(value), c.options, text: c))
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
                let (item, itemKind) = try elementOperand(tail, element, text)
                return .quantified(.any, toMany, element: element, try compare(item, itemKind, .equal, .operand(operand, kind), c.options, text: c))
            }
            return try compare(operand, kind, c.op, rhs, c.options, text: c)
        }
    }

    private func requireDirect(_ c: PredicateComparison) throws {
        if c.quantifier != .direct {
            throw FetchPredicateError(.unsupported, "\(c.quantifier.rawValue) needs a to-many key path on the left of '\(PredicateNode.comparison(c))'", entity: scopes[0].name, key: c.lhs.description)
        }
    }

    /// The value of each element of a to-many: the keys after the relationship, or the element.
    private mutating func elementOperand(_ tail: [String], _ element: ScopeIndex, _ text: String) throws -> (BoundOperand, ValueKind) {
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
        let right: BoundOperand
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
            if op == .in { right = .list([stored]) } else { right = .constant(stored) }
            if kind == .null { kind = lhsKind }
            rightKind = kind
        case .operand(let operand, let kind):
            if lhsKind != .null, kind != .null, lhsKind != kind {
                throw FetchPredicateError(.typeMismatch, "'\(c.lhs)' is a \(lhsKind) and '\(c.rhs)' is a \(kind): they cannot be compared in '\(PredicateNode.comparison(c))'",
                                     entity: scopes[0].name, key: c.lhs.description)
            }
            right = operand
            rightKind = kind
        }
        switch op {
        case .beginsWith, .endsWith, .like, .matches, .contains:
            guard lhsKind == .text || lhsKind == .null, rightKind == .text || rightKind == .null else {
                throw FetchPredicateError(.typeMismatch, "\(op.rawValue) compares strings, but '\(c.lhs)' is a \(lhsKind) and '\(c.rhs)' is a \(rightKind)", entity: scopes[0].name, key: c.lhs.description)
            }
        case .between:
            guard case .list(let bounds) = right, bounds.count == 2 else {
                throw FetchPredicateError(.typeMismatch, "BETWEEN takes two values, {low, high}, in '\(PredicateNode.comparison(c))'", entity: scopes[0].name, key: c.lhs.description)
            }
        case .less, .lessOrEqual, .greater, .greaterOrEqual:
            if case .object = lhsKind {
                throw FetchPredicateError(.typeMismatch, "\(op.rawValue) cannot order objects ('\(c.lhs)' is a \(lhsKind))", entity: scopes[0].name, key: c.lhs.description)
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

    /// `value` as stored for a key of `kind` (`.null` kind: the value's own natural form).
    private func storedValue(_ value: PredicateValue, for kind: ValueKind, _ c: PredicateComparison) throws -> (SlotValue, ValueKind) {
        func mismatch() -> FetchPredicateError {
            FetchPredicateError(.typeMismatch, "'\(c.lhs)' is a \(kind), so it cannot be compared with the \(value.typeName) \(value) in '\(PredicateNode.comparison(c))'",
                           entity: scopes[0].name, key: c.lhs.description)
        }
        guard let stored = Self.convert(value, to: kind) else { throw mismatch() }
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

extension PredicateBinder {
    /// A key path through to-one relationships to an attribute or a to-one relationship
    /// (`department.name`), for sort keys and dictionary columns.
    ///
    /// - Throws: ``FetchPredicateError`` (`unknownKey`, `unsupported` for a to-many step).
    static func scalarPath(_ keyPath: String, on entity: EntityDescription) throws -> (BoundPath, ValueKind) {
        var binder = PredicateBinder(entity: entity)
        let components = keyPath.split(separator: ".", omittingEmptySubsequences: false).map(String.init)
        guard case .operand(.path(let path), let kind) = try binder.resolve(components, from: 0, text: keyPath) else {
            throw FetchPredicateError(.unsupported, "'\(keyPath)' must lead through to-one relationships to an attribute", entity: entity.name, key: keyPath)
        }
        return (path, kind)
    }

    /// A key path that may end in a to-many relationship (`department.employees`), for prefetching.
    static func relationshipPath(_ keyPath: String, on entity: EntityDescription) throws -> [RelationshipDescription] {
        var current = entity
        var steps: [RelationshipDescription] = []
        for key in keyPath.split(separator: ".").map(String.init) {
            guard let relationship = current.propertiesByName[key] as? RelationshipDescription else {
                throw FetchPredicateError.unknownKey(key, path: keyPath, entity: current)
            }
            steps.append(relationship)
            current = relationship.destinationEntity
        }
        return steps
    }
}
