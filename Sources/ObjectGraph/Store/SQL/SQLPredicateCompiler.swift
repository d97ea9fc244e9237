import Foundation

/// Turns a bound predicate into a SQL condition (in `Dialect`) over the root table aliased
/// `t`, with every value bound as a parameter. Identifiers come only from the store layout
/// (table and column names of properties the binder found in the model); numbers spliced
/// into the text are ones the compiler made itself (operator codes, string lengths).
///
/// To-one steps become correlated scalar subqueries; ANY/ALL/NONE, collection operators and
/// SUBQUERY become `EXISTS` / aggregate subqueries over the destination table (joined
/// through the join table for many-to-many). Plain comparisons stay plain SQL (`>`, null-safe
/// `=`, the dialect's substring tests) so the database runs them at full speed; `[c]`, `[d]`,
/// `LIKE` and `MATCHES` call `og_str`, the Swift function that ``StringComparison``
/// implements, and predicate functions the dialect's functions computing
/// ``PredicateFunction``.
struct SQLPredicateCompiler<Dialect: SQLDialect> {
    let layout: StoreLayout
    private(set) var arguments: [SQLValue] = []
    private var aliasCounter = 0

    init(layout: StoreLayout) {
        self.layout = layout
    }

    /// The condition for `node`, with `t` as the alias of the fetched table.
    mutating func condition(_ node: BoundNode) -> String {
        compile(node, aliases: ["t"])
    }

    /// The SQL expression for `path` from `t` (for sort keys and dictionary columns).
    mutating func expression(_ path: BoundPath) -> String {
        pathSQL(path, ["t"])
    }

    private func mapping(_ entity: EntityDescription) -> EntityMapping { layout.mappings[entity.index] }

    private mutating func newAlias(_ prefix: String) -> String {
        aliasCounter += 1
        return "\(prefix)\(aliasCounter)"
    }

    /// A Decimal as its column takes one (PostgreSQL: exact text cast to `numeric`).
    private mutating func bind(_ value: SlotValue) -> String {
        guard case .decimal = value else { return Dialect.bind(value.storedValue, into: &arguments) }
        arguments.append(Dialect.columnValue(value))
        return Dialect.columnPlaceholder(.decimal)
    }

    // MARK: Nodes

    private mutating func compile(_ node: BoundNode, aliases: [String]) -> String {
        switch node {
        case .constant(let value): return Dialect.literal(value)
        case .not(let inner): return "NOT COALESCE((\(compile(inner, aliases: aliases))), \(Dialect.falseLiteral))"
        case .and(let nodes): return nodes.isEmpty ? Dialect.trueLiteral : nodes.map { "(\(compile($0, aliases: aliases)))" }.joined(separator: " AND ")
        case .or(let nodes): return nodes.isEmpty ? Dialect.falseLiteral : nodes.map { "(\(compile($0, aliases: aliases)))" }.joined(separator: " OR ")
        case .compare(let lhs, let op, let rhs, let options): return comparison(lhs, op, rhs, options, aliases)
        case .quantified(let quantifier, let toMany, let element, let inner):
            let (from, link, elementAliases) = source(toMany, element: element, aliases: aliases)
            let condition = compile(inner, aliases: elementAliases)
            switch quantifier {
            case .all: return "NOT EXISTS (SELECT 1 FROM \(from) WHERE \(link) AND NOT COALESCE((\(condition)), \(Dialect.falseLiteral)))"
            case .none: return "NOT EXISTS (SELECT 1 FROM \(from) WHERE \(link) AND (\(condition)))"
            case .any, .direct: return "EXISTS (SELECT 1 FROM \(from) WHERE \(link) AND (\(condition)))"
            }
        }
    }

    private mutating func comparison(_ lhs: BoundOperand, _ op: PredicateOperator, _ rhs: BoundOperand,
                                     _ options: StringOptions, _ aliases: [String]) -> String {
        let mark = arguments.count
        let left = operand(lhs, aliases)
        let leftArguments = Array(arguments[mark...])
        var used = false
        /// `left` again: its parameters are bound again for each further use.
        func reuse(_ compiler: inout SQLPredicateCompiler) -> String {
            if used { compiler.arguments += leftArguments }
            used = true
            return left
        }
        if case .list(let items) = rhs {
            if op == .between {
                if !options.isEmpty {
                    let low = stringCall(.greaterOrEqual, options, reuse(&self), bind(items[0]))
                    return "\(low) AND \(stringCall(.lessOrEqual, options, reuse(&self), bind(items[1])))"
                }
                return "\(reuse(&self)) BETWEEN \(bind(items[0])) AND \(bind(items[1]))"
            }
            let values = items.filter { !$0.isNull }
            var terms: [String] = []
            if !options.isEmpty {
                for value in values { terms.append(stringCall(.equal, options, reuse(&self), bind(value))) }
            } else if values.count > 100, let list = Dialect.listParameter(values) {
                // A long list is one parameter: the limit on parameters never applies.
                let target = reuse(&self)
                arguments.append(list.value)
                terms.append(Dialect.inListParameter(target, elementType: list.elementType))
            } else if values.contains(where: { if case .decimal = $0 { true } else { false } }) {
                // Decimals as their columns take them (PostgreSQL: exact `numeric` text).
                let target = reuse(&self)
                terms.append("\(target) IN (\(values.map { bind($0) }.joined(separator: ", ")))")
            } else if !values.isEmpty {
                let target = reuse(&self)
                terms.append("\(target) IN (\(Dialect.inList(values.map(\.storedValue), into: &arguments)))")
            }
            if values.count < items.count { terms.append("\(reuse(&self)) IS NULL") }
            if terms.isEmpty { arguments.removeLast(leftArguments.count) }
            return terms.isEmpty ? Dialect.falseLiteral : terms.joined(separator: " OR ")
        }
        if !options.isEmpty || op == .like || op == .matches {
            return stringCall(StringComparison.Code(op)!, options, left, operand(rhs, aliases))
        }
        if case .constant(let value) = rhs {
            if value.isNull && op == .equal { return "\(left) IS NULL" }
            if value.isNull && op == .notEqual { return "\(left) IS NOT NULL" }
            if case .text(let text) = value, Dialect.searchesSubstring(text), op == .beginsWith || op == .endsWith || op == .contains {
                let length = text.unicodeScalars.count
                if length == 0 {     // an empty search string is never found (StringComparison)
                    arguments.removeLast(arguments.count - mark)
                    return Dialect.falseLiteral
                }
                switch op {
                case .beginsWith: return "\(Dialect.leading(left, length: length)) = \(bind(value))"
                case .endsWith: return "\(Dialect.trailing(left, length: length)) = \(bind(value))"
                default: return "\(Dialect.position(of: bind(value), in: left)) > 0"
                }
            }
        }
        let right = operand(rhs, aliases)
        switch op {
        case .equal: return "\(left) \(Dialect.isEqual) \(right)"
        case .notEqual: return "\(left) \(Dialect.isNotEqual) \(right)"
        case .less: return "\(left) < \(right)"
        case .greater: return "\(left) > \(right)"
        case .lessOrEqual, .greaterOrEqual:
            let ordering = "\(left) \(op == .lessOrEqual ? "<=" : ">=") \(right)"
            if case .constant = rhs { return ordering }
            // Two nils are <= and >= each other (Foundation); both sides' parameters again.
            arguments += Array(arguments[mark...])
            return "COALESCE(\(ordering), (\(left)) IS NULL AND (\(right)) IS NULL)"
        default: return stringCall(StringComparison.Code(op)!, options, left, right)
        }
    }

    private func stringCall(_ code: StringComparison.Code, _ options: StringOptions, _ left: String, _ right: String) -> String {
        Dialect.stringComparison(code, options, left, right)
    }

    // MARK: Operands

    private mutating func operand(_ operand: BoundOperand, _ aliases: [String]) -> String {
        switch operand {
        case .constant(let value): return bind(value)
        case .list(let items): return "(" + items.map { bind($0) }.joined(separator: ", ") + ")"
        case .path(let path): return pathSQL(path, aliases)
        case .collection(let function, let toMany, let element, let tail):
            let (from, link, elementAliases) = source(toMany, element: element, aliases: aliases)
            guard let tail else { return "(SELECT COUNT(*) FROM \(from) WHERE \(link))" }
            let value = pathSQL(tail, elementAliases)
            switch function {
            case .count: return "(SELECT COUNT(\(value)) FROM \(from) WHERE \(link))"
            case .sum: return "(SELECT COALESCE(SUM(\(value)), 0) FROM \(from) WHERE \(link))"
            case .avg: return "(SELECT AVG(\(value)) FROM \(from) WHERE \(link))"
            case .min: return "(SELECT MIN(\(value)) FROM \(from) WHERE \(link))"
            case .max: return "(SELECT MAX(\(value)) FROM \(from) WHERE \(link))"
            }
        case .function(let function, let arguments):
            // Any nil argument gives nil (PredicateFunction.apply); a NULL literal would also
            // leave an overloaded function unresolved.
            if arguments.contains(where: { if case .constant(let value) = $0 { return value.isNull }; return false }) {
                return "NULL"
            }
            let values = arguments.map { self.operand($0, aliases) }
            switch function {
            case .add, .subtract, .multiply: return "(\(values[0]) \(function.infix!) \(values[1]))"
            default: return Dialect.functionCall(function, values)
            }
        case .ternary(let condition, let then, let otherwise):
            let test = compile(condition, aliases: aliases)
            return "(CASE WHEN COALESCE((\(test)), \(Dialect.falseLiteral)) THEN \(self.operand(then, aliases)) ELSE \(self.operand(otherwise, aliases)) END)"
        case .subqueryCount(let toMany, let element, let inner):
            let (from, link, elementAliases) = source(toMany, element: element, aliases: aliases)
            return "(SELECT COUNT(*) FROM \(from) WHERE \(link) AND (\(compile(inner, aliases: elementAliases))))"
        }
    }

    /// `alias.COLUMN` at the end of `path`, through a scalar subquery per to-one step.
    private mutating func pathSQL(_ path: BoundPath, _ aliases: [String]) -> String {
        step(path, at: 0, alias: aliases[path.root], entity: path.rootEntity)
    }

    private mutating func step(_ path: BoundPath, at index: Int, alias: String, entity: EntityDescription) -> String {
        guard index < path.hops.count else {
            switch path.terminal {
            case .attribute(let attribute): return "\(alias).\(mapping(entity).columnBySlot[attribute.slot]!)"
            case .toOne(let relationship): return "\(alias).\(mapping(entity).columnBySlot[relationship.slot]!)"
            case .identity: return "\(alias).Z_PK"
            }
        }
        let hop = path.hops[index]
        let next = newAlias("h")
        let destination = hop.destinationEntity!
        let inner = step(path, at: index + 1, alias: next, entity: destination)
        return "(SELECT \(inner) FROM \(mapping(destination).table.name) \(next) WHERE \(next).Z_PK = \(alias).\(mapping(entity).columnBySlot[hop.slot]!))"
    }

    /// The FROM clause and link condition that range over a to-many's destinations, and the
    /// aliases with the element's alias at `element`.
    private mutating func source(_ toMany: BoundToMany, element: ScopeIndex, aliases: [String]) -> (String, String, [String]) {
        let owner = pathSQL(toMany.ownerPath, aliases)
        let relationship = toMany.relationship
        let destination = relationship.destinationEntity!
        let alias = newAlias("e")
        var elementAliases = aliases
        while elementAliases.count <= element { elementAliases.append("") }
        elementAliases[element] = alias
        let table = mapping(destination).table.name
        var family = ""
        if let condition = mapping(destination).entityCondition(includesSubentities: true, alias: alias) {
            family = " AND " + condition
        }
        if let join = mapping(toMany.ownerEntity).joinTableBySlot[relationship.slot] {
            let j = newAlias("j")
            return ("\(join.name) \(j) JOIN \(table) \(alias) ON \(alias).Z_PK = \(j).\(join.memberColumn)",
                    "\(j).\(join.ownerColumn) = \(owner)" + family, elementAliases)
        }
        let inverse = relationship.inverseRelationship!
        let column = mapping(inverse.entity).columnBySlot[inverse.slot]!
        return ("\(table) \(alias)", "\(alias).\(column) = \(owner)" + family, elementAliases)
    }
}
