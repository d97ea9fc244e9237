import Foundation

/// Judges managed objects against a bound predicate in memory, on their current (unsaved)
/// values, with the meaning the SQL compiler gives the same tree: NULL is equal only to NULL
/// and never ordered, numbers compare as numbers, strings by Unicode scalars (or folded for
/// `[c]`/`[d]`), a nil to-one step gives nil.
///
/// Follows relationships through the objects' context, firing faults as it goes.
enum PredicateEvaluator {
    static func evaluate(_ node: BoundNode, _ object: ManagedObject) -> Bool {
        var scopes: [ManagedObject?] = [object]
        return evaluate(node, &scopes)
    }

    static func evaluate(_ node: BoundNode, _ scopes: inout [ManagedObject?]) -> Bool {
        switch node {
        case .constant(let value): return value
        case .not(let inner): return !evaluate(inner, &scopes)
        case .and(let nodes):
            for inner in nodes where !evaluate(inner, &scopes) { return false }
            return true
        case .or(let nodes):
            for inner in nodes where evaluate(inner, &scopes) { return true }
            return false
        case .compare(let lhs, let op, let rhs, let options):
            let left = value(lhs, &scopes)
            if case .list(let items) = rhs {
                if op == .between {
                    return compare(left, .greaterOrEqual, items[0], options) && compare(left, .lessOrEqual, items[1], options)
                }
                return items.contains { compare(left, .equal, $0, options) }
            }
            return compare(left, op, value(rhs, &scopes), options)
        case .quantified(let quantifier, let toMany, let element, let inner):
            let elements = members(toMany, &scopes)
            return keeping(element, &scopes) { scopes in
                let matching: (ManagedObject) -> Bool = { member in
                    set(&scopes, at: element, to: member)
                    return evaluate(inner, &scopes)
                }
                switch quantifier {
                case .all: return elements.allSatisfy(matching)
                case .none: return !elements.contains(where: matching)
                case .any, .direct: return elements.contains(where: matching)
                }
            }
        }
    }

    /// Runs `body`, then gives scope `index` back the object it held: a collection inside a
    /// quantifier (`ANY tags.label IN tags.@max.label`) may range over the same index.
    private static func keeping<T>(_ index: ScopeIndex, _ scopes: inout [ManagedObject?], _ body: (inout [ManagedObject?]) -> T) -> T {
        let saved = index < scopes.count ? scopes[index] : nil
        let result = body(&scopes)
        set(&scopes, at: index, to: saved)
        return result
    }

    private static func set(_ scopes: inout [ManagedObject?], at index: ScopeIndex, to object: ManagedObject?) {
        while scopes.count <= index { scopes.append(nil) }
        scopes[index] = object
    }

    // MARK: Values

    static func value(_ operand: BoundOperand, _ scopes: inout [ManagedObject?]) -> SlotValue {
        switch operand {
        case .constant(let value): return value
        case .list: return .null
        case .path(let path): return value(path, scopes)
        case .collection(let function, let toMany, let element, let tail):
            let elements = members(toMany, &scopes)
            if function == .count { return .int(Int64(elements.count)) }
            let values: [SlotValue] = keeping(element, &scopes) { scopes in
                var values: [SlotValue] = []
                for member in elements {
                    set(&scopes, at: element, to: member)
                    let item = value(tail!, scopes)
                    if !item.isNull { values.append(item) }
                }
                return values
            }
            return aggregate(function, values)
        case .function(let function, let arguments):
            return function.apply(arguments.map { value($0, &scopes) })
        case .ternary(let condition, let then, let otherwise):
            return value(evaluate(condition, &scopes) ? then : otherwise, &scopes)
        case .subqueryCount(let toMany, let element, let inner):
            let elements = members(toMany, &scopes)
            return keeping(element, &scopes) { scopes in
                var count: Int64 = 0
                for member in elements {
                    set(&scopes, at: element, to: member)
                    if evaluate(inner, &scopes) { count += 1 }
                }
                return .int(count)
            }
        }
    }

    /// The value at the end of `path`, nil where a to-one step is empty.
    static func value(_ path: BoundPath, _ scopes: [ManagedObject?]) -> SlotValue {
        guard var object = path.root < scopes.count ? scopes[path.root] : nil else { return .null }
        for hop in path.hops {
            guard let next = related(object, hop) else { return .null }
            object = next
        }
        switch path.terminal {
        case .attribute(let attribute): return object.primitiveValue(slot: attribute.slot)
        case .toOne(let relationship): return object.primitiveValue(slot: relationship.slot)
        case .identity: return .object(object.objectID)
        }
    }

    private static func related(_ object: ManagedObject, _ relationship: RelationshipDescription) -> ManagedObject? {
        guard case .object(let id) = object.primitiveValue(slot: relationship.slot), let context = object.managedObjectContext else { return nil }
        let destination = context.object(with: id)
        if destination.isFault { context.fulfillFault(destination) }
        return destination.managedObjectContext == nil ? nil : destination
    }

    static func members(_ toMany: BoundToMany, _ scopes: inout [ManagedObject?]) -> [ManagedObject] {
        let owner = value(toMany.ownerPath, scopes)
        guard case .object(let id) = owner, let root = scopes[toMany.root], let context = root.managedObjectContext else { return [] }
        let object = id == root.objectID ? root : context.object(with: id)
        return object.relatedObjects(toMany.relationship).filter { !$0.isDeleted }
    }

    static func aggregate(_ function: CollectionFunction, _ values: [SlotValue]) -> SlotValue {
        switch function {
        case .count: return .int(Int64(values.count))
        case .sum:
            if values.allSatisfy({ if case .int = $0 { return true } else { return false } }) {
                return .int(values.reduce(0) { if case .int(let v) = $1 { return $0 &+ v } else { return $0 } })
            }
            return .double(values.reduce(0) { $0 + (number($1) ?? 0) })
        case .avg:
            guard !values.isEmpty else { return .null }
            return .double(values.reduce(0) { $0 + (number($1) ?? 0) } / Double(values.count))
        case .min: return values.min { order($0, $1) == .orderedAscending } ?? .null
        case .max: return values.max { order($0, $1) == .orderedAscending } ?? .null
        }
    }

    // MARK: Comparing

    static func compare(_ lhs: SlotValue, _ op: PredicateOperator, _ rhs: SlotValue, _ options: StringOptions) -> Bool {
        if let code = StringComparison.Code(op), text(lhs) != nil || text(rhs) != nil || op.isStringOperator || op == .contains {
            if !options.isEmpty || op.isStringOperator || op == .contains || (text(lhs) != nil && text(rhs) != nil) {
                return StringComparison.evaluate(code, options, text(lhs), text(rhs))
            }
        }
        switch op {
        case .equal: return equal(lhs, rhs)
        case .notEqual: return !equal(lhs, rhs)
        case .less: return order(lhs, rhs) == .orderedAscending
        case .lessOrEqual: return order(lhs, rhs).map { $0 != .orderedDescending } ?? (lhs.isNull && rhs.isNull)
        case .greater: return order(lhs, rhs) == .orderedDescending
        case .greaterOrEqual: return order(lhs, rhs).map { $0 != .orderedAscending } ?? (lhs.isNull && rhs.isNull)
        default: return false
        }
    }

    static func equal(_ a: SlotValue, _ b: SlotValue) -> Bool {
        if a.isNull || b.isNull { return a.isNull && b.isNull }
        if case .object(let x) = a, case .object(let y) = b { return x == y }
        return order(a, b) == .orderedSame
    }

    /// SQLite's order for two non-NULL values of one kind; nil when either is NULL or the
    /// kinds differ (numbers, text, bytes, objects).
    static func order(_ a: SlotValue, _ b: SlotValue) -> ComparisonResult? {
        // A Decimal as the double SQLite keeps (a bound predicate keeps a Decimal argument
        // whole for PostgreSQL's `numeric`, ``PredicateBinder``).
        if case .decimal(let x) = a { return order(.double(x.storedDouble), b) }
        if case .decimal(let y) = b { return order(a, .double(y.storedDouble)) }
        if case .int(let x) = a, case .int(let y) = b { return x == y ? .orderedSame : (x < y ? .orderedAscending : .orderedDescending) }
        if case .int(let x) = a, case .double(let y) = b { return exactOrder(x, y) }
        if case .double(let x) = a, case .int(let y) = b { return exactOrder(y, x).map(Self.reversed) }
        if let x = number(a), let y = number(b) { return x == y ? .orderedSame : (x < y ? .orderedAscending : .orderedDescending) }
        if let x = text(a), let y = text(b) { return TextOrder.scalars(x, y) }
        if let x = bytes(a), let y = bytes(b) {
            return x == y ? .orderedSame : (x.lexicographicallyPrecedes(y) ? .orderedAscending : .orderedDescending)
        }
        if case .object(let x) = a, case .object(let y) = b, x.entity.root === y.entity.root {
            return x.key == y.key ? .orderedSame : (x.key < y.key ? .orderedAscending : .orderedDescending)
        }
        return nil
    }

    /// An integer against a double without rounding the integer, as SQLite compares them
    /// (`9223372036854775807 < 9.223372036854776e18`); nil for NaN.
    static func exactOrder(_ x: Int64, _ y: Double) -> ComparisonResult? {
        if y.isNaN { return nil }
        if y >= 9_223_372_036_854_775_808.0 { return .orderedAscending }
        if y < -9_223_372_036_854_775_808.0 { return .orderedDescending }
        let whole = Int64(y.rounded(.towardZero))
        if x != whole { return x < whole ? .orderedAscending : .orderedDescending }
        let fraction = y - y.rounded(.towardZero)
        return fraction > 0 ? .orderedAscending : fraction < 0 ? .orderedDescending : .orderedSame
    }

    private static func reversed(_ order: ComparisonResult) -> ComparisonResult {
        order == .orderedAscending ? .orderedDescending : order == .orderedDescending ? .orderedAscending : .orderedSame
    }

    static func number(_ value: SlotValue) -> Double? {
        switch value {
        case .int(let v): return Double(v)
        case .double(let v): return v
        case .decimal(let v): return v.storedDouble
        default: return nil
        }
    }

    static func text(_ value: SlotValue) -> String? {
        switch value {
        case .text(let v): return v
        case .url(let v): return v.absoluteString
        default: return nil
        }
    }

    static func bytes(_ value: SlotValue) -> Data? {
        switch value {
        case .blob(let v): return v
        case .uuid(let v): return v.blobData
        default: return nil
        }
    }
}
