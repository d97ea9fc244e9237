import Foundation

/// Resolves a predicate tree against an entity: key paths become properties (unknown keys
/// throw naming the entity and the key), constants become stored values of the type they
/// are compared with (mismatches throw naming both types). Touches no store.
struct PredicateBinder {
    private(set) var scopes: [EntityDescription]
    private var variables: [String: ScopeIndex] = [:]
    /// How deeply the SQL for the current node nests, in units of ``nestingBudget``.
    private var nesting = 0
    /// SQLite's parser refuses an expression nested about 100 grammar levels deep ("parser
    /// stack overflow"); each construct is weighed by what its SQL costs there, and a
    /// predicate over the budget is refused for both back ends alike. About 13 nested NOTs,
    /// 18 nested AND/OR groups, 27 nested operators, 13 nested function calls or 4 nested
    /// ANY/SUBQUERY fit.
    static let nestingBudget = 56

    /// Counts `cost` more levels of nesting for `node`; pair with `nesting -= cost`.
    mutating func enterNesting(_ cost: Int, _ node: @autoclosure () -> String) throws {
        nesting += cost
        if nesting > Self.nestingBudget {
            nesting -= cost
            throw FetchPredicateError(.unsupported, "the predicate nests too deeply for SQLite (NOT, parentheses, operators, ANY/SUBQUERY) at '\(node())'; flatten it",
                                      entity: scopes[0].name)
        }
    }

    init(entity: EntityDescription) {
        scopes = [entity]
    }

    mutating func bind(_ node: PredicateNode) throws -> BoundNode {
        let cost: Int
        switch node {
        case .not: cost = 4
        case .and, .or: cost = 3
        case .comparison(let c): cost = c.quantifier == .direct ? 2 : 10
        case .constant: cost = 0
        }
        try enterNesting(cost, node.description)
        defer { nesting -= cost }
        switch node {
        case .constant(let value): return .constant(value)
        case .not(let inner): return .not(try bind(inner))
        case .and(let nodes): return .and(try nodes.map { try bind($0) })
        case .or(let nodes): return .or(try nodes.map { try bind($0) })
        case .comparison(let comparison): return try bindComparison(comparison)
        }
    }

    // MARK: Key paths

    /// A key path resolved: a single value, or the elements of a to-many with the keys that
    /// follow it (still to resolve against each element).
    enum Resolved {
        /// A constant, converted once the other side's type is known.
        case value(PredicateValue)
        case operand(BoundOperand, ValueKind)
        case toMany(BoundToMany, tail: [String], text: String)
    }

    mutating func resolve(_ expression: PredicateExpression) throws -> Resolved {
        let cost: Int
        switch expression {
        case .value, .aggregate: cost = 0
        case .keyPath(let path): cost = 5 * max(0, path.components.count - 1)
        case .function(let name, _):     // SQLite's own + - * nest cheaper than a call of og_fn
            cost = [.add, .subtract, .multiply].contains(PredicateFunction(rawValue: name)) ? 2 : 4
        case .ternary: cost = 4
        case .index: cost = 2
        case .subquery: cost = 10
        }
        try enterNesting(cost, expression.description)
        defer { nesting -= cost }
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
        case .function(let name, let arguments): return try resolveFunction(name, arguments)
        case .ternary(let condition, let then, let otherwise): return try resolveTernary(condition, then, otherwise)
        case .index(let base, let index): return try resolveIndex(base, index)
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

    mutating func resolve(_ components: [String], from root: ScopeIndex, text: String) throws -> Resolved {
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
                if index == components.count - 2, components[index + 1] == "length", ValueKind(attribute.attributeType) == .text {
                    // name.length: NSString's length (UTF-16 units), as Foundation's key-value coding gives it
                    guard case .operand(let operand, _) = try resolve(Array(components.dropLast()), from: root, text: text) else {
                        throw FetchPredicateError(.unsupported, "'\(text)' has no length", entity: rootEntity.name, key: text)
                    }
                    return .operand(.function(.length, [operand]), .number)
                }
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

    mutating func push(_ entity: EntityDescription, named name: String?) -> ScopeIndex {
        scopes.append(entity)
        if let name { variables[name] = scopes.count - 1 }
        return scopes.count - 1
    }

    mutating func pop(_ name: String?) {
        scopes.removeLast()
        if let name { variables[name] = nil }
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
