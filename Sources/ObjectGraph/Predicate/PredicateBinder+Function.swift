import Foundation

// Binding function expressions (arithmetic, bitwise operators, Foundation's named functions),
// TERNARY and subscripts. Each argument is bound like a comparison's side; its kind must be
// what the function takes. Functions of constants only that Foundation evaluates once
// (`now()`, `sum:({1, 2})`, `{1, 2}[LAST]`) become constants here.
extension PredicateBinder {
    mutating func resolveFunction(_ name: String, _ arguments: [PredicateExpression]) throws -> Resolved {
        let text = PredicateExpression.function(name, arguments).description
        if let aggregate = CollectionFunction(foundationName: name) { return try resolveAggregate(aggregate, arguments, in: text) }
        if name.uppercased() == "CAST" || name == "castObject:toType:" { return try resolveCast(arguments, text) }
        if ["unionSet", "intersectSet", "minusSet"].contains(name) { return try resolveSet(name, arguments, in: text) }
        if ["median:", "mode:", "stddev:"].contains(name) { return try resolveStatistic(name, arguments, in: text) }
        if name == "now" {
            guard arguments.isEmpty else { throw functionError(.syntax, "now() takes no argument, in '\(text)'", key: text) }
            return .value(.date(Date()))
        }
        guard let function = PredicateFunction(rawValue: name) else {
            throw functionError(.unsupported, "unknown function '\(name)' in '\(text)' (known: now, sum:, average:, min:, max:, count:, "
                                + PredicateFunction.allCases.map(\.rawValue).joined(separator: ", ") + ")", key: text)
        }
        guard arguments.count == function.arity else {
            throw functionError(.syntax, "\(name) takes \(function.arity) argument\(function.arity == 1 ? "" : "s"), not \(arguments.count), in '\(text)'", key: text)
        }
        let takes: ValueKind = function.takesText ? .text : .number
        var operands: [BoundOperand] = []
        for argument in arguments {
            let (operand, kind) = try singleValue(argument, of: text)
            guard kind == takes || kind == .null else {
                throw functionError(.typeMismatch, "\(function.infix.map { "'\($0)'" } ?? name) takes \(takes == .text ? "strings" : "numbers"), but '\(argument)' is a \(kind) (in '\(text)')", key: text)
            }
            operands.append(operand)
        }
        return .operand(.function(function, operands), function.givesText ? .text : .number)
    }

    /// `sum:`, `average:`, `min:`, `max:`, `count:` of a list (a constant) or of a to-many key
    /// path (`sum:(reports.salary)` is `reports.@sum.salary`).
    private mutating func resolveAggregate(_ function: CollectionFunction, _ arguments: [PredicateExpression], in text: String) throws -> Resolved {
        guard arguments.count == 1 else { throw functionError(.syntax, "\(function.foundationName) takes one collection, in '\(text)'", key: text) }
        switch (try resolve(arguments[0]), arguments[0]) {
        case (.value(.list(let values)), _):
            var numbers: [SlotValue] = []
            for value in values where value != .null {
                guard let (stored, _) = Self.convert(value, to: .number) else {
                    throw functionError(.typeMismatch, "\(function.foundationName) takes numbers, not the \(value.typeName) \(value), in '\(text)'", key: text)
                }
                numbers.append(stored)
            }
            return .operand(.constant(PredicateEvaluator.aggregate(function, numbers)), .number)
        case (.toMany(_, let tail, _), .keyPath(var path)):
            path.components.insert("@" + function.rawValue, at: path.components.count - tail.count)
            return try resolve(.keyPath(path))
        default:
            throw functionError(.typeMismatch, "\(function.foundationName) takes a collection ({1, 2}, an array argument or a to-many key path), in '\(text)'", key: text)
        }
    }

    /// `CAST(value, 'NSDate')` (seconds since 2001-01-01), `'NSNumber'`, `'NSString'`, of a constant.
    private mutating func resolveCast(_ arguments: [PredicateExpression], _ text: String) throws -> Resolved {
        guard arguments.count == 2, case .value(let type) = try resolve(arguments[1]), case .string(let typeName) = type else {
            throw functionError(.syntax, "CAST takes a value and a class name ('NSDate', 'NSNumber', 'NSString'), in '\(text)'", key: text)
        }
        guard case .value(let value) = try resolve(arguments[0]) else {
            throw functionError(.unsupported, "CAST converts a constant, not a key path, in '\(text)'", key: text)
        }
        switch (typeName, value) {
        case ("NSDate", .int(let v)): return .value(.date(Date(timeIntervalSinceReferenceDate: Double(v))))
        case ("NSDate", .double(let v)): return .value(.date(Date(timeIntervalSinceReferenceDate: v)))
        case ("NSDate", .date): return .value(value)
        case ("NSNumber", .string(let v)):
            if let n = Int64(v.trimmingCharacters(in: .whitespaces)) { return .value(.int(n)) }
            if let n = Double(v.trimmingCharacters(in: .whitespaces)) { return .value(.double(n)) }
        case ("NSNumber", .int), ("NSNumber", .double), ("NSNumber", .decimal): return .value(value)
        case ("NSNumber", .bool(let v)): return .value(.int(v ? 1 : 0))
        case ("NSNumber", .date(let v)): return .value(.double(v.timeIntervalSinceReferenceDate))
        case ("NSString", .string): return .value(value)
        case ("NSString", .int(let v)): return .value(.string(String(v)))
        case ("NSString", .double(let v)): return .value(.string(String(v)))
        default: break
        }
        throw functionError(.typeMismatch, "CAST cannot make a \(typeName) of the \(value.typeName) \(value), in '\(text)'", key: text)
    }

    /// `{1, 2} UNION {2, 3}`, `INTERSECT`, `MINUS` of constant collections: a collection
    /// without repeats, in the order of first appearance.
    private mutating func resolveSet(_ name: String, _ arguments: [PredicateExpression], in text: String) throws -> Resolved {
        guard arguments.count == 2 else {
            throw functionError(.syntax, "\(name) takes two collections, not \(arguments.count) argument\(arguments.count == 1 ? "" : "s"), in '\(text)'", key: text)
        }
        guard case .value(.list(let a)) = try resolve(arguments[0]), case .value(.list(let b)) = try resolve(arguments[1]) else {
            throw functionError(.unsupported, "UNION, INTERSECT and MINUS combine constant collections ({...} or array arguments), in '\(text)'", key: text)
        }
        func contains(_ list: [PredicateValue], _ value: PredicateValue) -> Bool {
            guard let (x, _) = Self.convert(value, to: .null) else { return list.contains(value) }
            return list.contains { Self.convert($0, to: .null).map { PredicateEvaluator.equal($0.0, x) } ?? false }
        }
        var result: [PredicateValue] = []
        let candidates = name == "unionSet" ? a + b : a
        for value in candidates where !contains(result, value) {
            switch name {
            case "intersectSet" where !contains(b, value), "minusSet" where contains(b, value): continue
            default: result.append(value)
            }
        }
        return .value(.list(result))
    }

    /// `median:` of a constant collection (the middle value, or the mean of the two middle
    /// ones); `mode:` and `stddev:` are refused (Foundation's exact definitions are not
    /// documented, so no answer is given rather than a possibly different one).
    private mutating func resolveStatistic(_ name: String, _ arguments: [PredicateExpression], in text: String) throws -> Resolved {
        guard name == "median:", arguments.count == 1, case .value(.list(let values)) = try resolve(arguments[0]) else {
            throw functionError(.unsupported, "\(name) is answered only as median: of a constant collection, in '\(text)'", key: text)
        }
        var numbers: [Double] = []
        for value in values where value != .null {
            guard let (stored, _) = Self.convert(value, to: .number), let number = PredicateEvaluator.number(stored) else {
                throw functionError(.typeMismatch, "median: takes numbers, not the \(value.typeName) \(value), in '\(text)'", key: text)
            }
            numbers.append(number)
        }
        guard !numbers.isEmpty else { return .value(.null) }
        numbers.sort()
        let middle = numbers.count / 2
        return .value(.double(numbers.count % 2 == 1 ? numbers[middle] : (numbers[middle - 1] + numbers[middle]) / 2))
    }

    /// `TERNARY(predicate, then, else)`: both branches of one kind.
    mutating func resolveTernary(_ condition: PredicateNode, _ then: PredicateExpression, _ otherwise: PredicateExpression) throws -> Resolved {
        let text = PredicateExpression.ternary(condition, then, otherwise).description
        let test = try bind(condition)
        let (a, aKind) = try singleValue(then, of: text)
        let (b, bKind) = try singleValue(otherwise, of: text)
        guard aKind == bKind || aKind == .null || bKind == .null else {
            throw functionError(.typeMismatch, "TERNARY's branches are a \(aKind) and a \(bKind), in '\(text)'", key: text)
        }
        return .operand(.ternary(test, a, b), aKind == .null ? bKind : aKind)
    }

    /// `list[FIRST]`, `[LAST]`, `[n]`, `[SIZE]`; on a to-many key path only `[SIZE]` (its
    /// destinations are a set, with no first or last, as in Foundation).
    mutating func resolveIndex(_ base: PredicateExpression, _ index: PredicateIndex) throws -> Resolved {
        let text = PredicateExpression.index(base, index).description
        if case .subquery(let collection, let variable, let predicate, []) = base, index == .size {
            return try resolve(.subquery(collection: collection, variable: variable, predicate: predicate, trailing: ["@count"]))
        }
        switch try resolve(base) {
        case .value(.list(let values)):
            let position: Int64
            switch index {
            case .size: return .value(.int(Int64(values.count)))
            case .first: position = 0
            case .last: position = Int64(values.count) - 1
            case .at(let n): position = n
            }
            guard position >= 0, position < values.count else {
                throw functionError(.unsupported, "\(text) is out of range: the collection has \(values.count) element\(values.count == 1 ? "" : "s")", key: text)
            }
            return .value(values[Int(position)])
        case .toMany(_, let tail, _) where index == .size && tail.isEmpty:
            guard case .keyPath(var path) = base else { break }
            path.components.append("@count")
            return try resolve(.keyPath(path))
        default: break
        }
        throw functionError(.unsupported, "\(text): [\(index)] applies to a {...} collection or an array argument\(index == .size ? ", or a to-many key path" : ""); a to-many relationship is a set, with no \(index == .size ? "size here" : "order")", key: text)
    }

    /// One argument, bound to a single value.
    private mutating func singleValue(_ argument: PredicateExpression, of text: String) throws -> (BoundOperand, ValueKind) {
        switch try resolve(argument) {
        case .value(.list):
            throw functionError(.typeMismatch, "a collection cannot be an argument of '\(text)'", key: text)
        case .value(let value):
            guard let (stored, kind) = Self.convert(value, to: .null) else {
                throw functionError(.typeMismatch, "the \(value.typeName) \(value) cannot be an argument of '\(text)'", key: text)
            }
            return (.constant(stored), kind)
        case .operand(let operand, let kind): return (operand, kind)
        case .toMany(_, _, let path):
            throw functionError(.unsupported, "'\(path)' is a to-many key path; use @count, @sum, ... or SUBQUERY in '\(text)'", key: path)
        }
    }

    private func functionError(_ code: FetchPredicateError.Code, _ message: String, key: String) -> FetchPredicateError {
        FetchPredicateError(code, message, entity: scopes[0].name, key: key)
    }
}

extension CollectionFunction {
    /// `sum:`, `average:`, `min:`, `max:`, `count:`.
    init?(foundationName name: String) {
        switch name {
        case "sum:": self = .sum
        case "average:": self = .avg
        case "min:": self = .min
        case "max:": self = .max
        case "count:": self = .count
        default: return nil
        }
    }

    var foundationName: String { self == .avg ? "average:" : rawValue + ":" }
}
