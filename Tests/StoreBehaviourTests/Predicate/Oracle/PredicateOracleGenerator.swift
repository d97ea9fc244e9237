import Foundation
import ObjectGraph

// Random Foundation `Predicate` trees over `OracleItem`, built at run time from the
// `PredicateExpressions` types the `#Predicate` macro expands to, type-erased as
// `any StandardPredicateExpression<T>`. Every operator the translation supports appears:
// comparisons on integers, doubles and strings, ==/!= on optionals and nil, &&, ||, !, the
// conditional, integer and floating-point arithmetic, ??, optional chains (`?.`), contains and
// starts(with:) of strings, a constant collection's contains, and the to-many quantifiers
// contains(where:), allSatisfy, filter{}.count and isEmpty. (FoundationEssentials on Linux has
// no localizedStandardContains or caseInsensitiveCompare in predicates.) Integer arithmetic
// stays on small values: Foundation's own evaluation traps on overflow.

typealias OracleExpression<T> = any StandardPredicateExpression<T>
typealias OracleItemVariable = PredicateExpressions.Variable<OracleItem>
typealias OraclePartVariable = PredicateExpressions.Variable<OraclePart>

/// What a generated predicate uses, for the documented differences.
struct OracleFeatures {
    /// Every string constant (an array: a `Set` would keep one of `é` and `e\u{301}`, which
    /// Swift's `==` equates).
    var strings: [String] = []
    /// A comparison (==, !=, <, ...) or a search (contains, starts(with:)) of strings.
    var comparesStrings = false
    /// Arithmetic on doubles.
    var computesDoubles = false
}

struct OraclePredicateGenerator {
    private var random: GraphRandom
    private(set) var features = OracleFeatures()

    init(seed: UInt64) { random = GraphRandom(seed: seed) }

    /// A random predicate, `depth` levels of logic deep at most.
    mutating func predicate(depth: Int) -> Predicate<OracleItem> {
        var generator = self
        let predicate = Predicate<OracleItem> { item in generator.condition(item, depth: depth) }
        self = generator
        return predicate
    }

    // MARK: Draws

    private mutating func int(_ range: Range<Int>) -> Int { Int.random(in: range, using: &random) }
    private mutating func pick<T>(_ values: [T]) -> T { values[int(0..<values.count)] }
    private mutating func chance(_ percent: Int) -> Bool { int(0..<100) < percent }

    private mutating func string() -> String {
        let value = pick(OracleData.strings)
        features.strings.append(value)
        return value
    }

    /// A double for a constant: the stored ones, and NaN.
    private mutating func double() -> Double { chance(10) ? .nan : pick(OracleData.doubles) }
    private mutating func small() -> Int64 { pick(OracleData.smallIntegers) }
    private mutating func nonZeroSmall() -> Int64 { pick(OracleData.smallIntegers.filter { $0 != 0 }) }

    // MARK: Conditions

    mutating func condition(_ item: OracleItemVariable, depth: Int) -> OracleExpression<Bool> {
        switch int(0..<(depth > 0 ? 17 : 12)) {
        case 0: return oracleCompare(intValue(item, depth: min(depth, 2), bounded: false), intValue(item, depth: min(depth, 2), bounded: false), int(0..<6))
        case 1: return oracleCompare(doubleValue(item, depth: min(depth, 2)), doubleValue(item, depth: min(depth, 2)), int(0..<6))
        case 2:
            features.comparesStrings = true
            return oracleCompare(stringValue(item), stringValue(item), int(0..<6))
        case 3:
            features.comparesStrings = true
            return oracleSearch(stringValue(item), stringValue(item), startsWith: chance(50))
        case 4: return optionalEquality(item)
        case 5: return PredicateExpressions.KeyPath(root: item, keyPath: \OracleItem.flag)
        case 6: return optionalSearch(item)
        case 7: return partsCount(item)
        case 8: return member(item)
        case 9: return oracleEqual(PredicateExpressions.KeyPath(root: item, keyPath: \OracleItem.flag), PredicateExpressions.Value(chance(50)), negated: chance(30))
        case 10: return quantifier(item, depth: 0)
        case 11: return oracleCompare(intValue(item, depth: 0, bounded: true), intValue(item, depth: 0, bounded: false), int(0..<6))
        case 12: return oracleJoin(condition(item, depth: depth - 1), condition(item, depth: depth - 1), and: true)
        case 13: return oracleJoin(condition(item, depth: depth - 1), condition(item, depth: depth - 1), and: false)
        case 14: return oracleNot(condition(item, depth: depth - 1))
        case 15: return quantifier(item, depth: depth - 1)
        default: return oracleConditional(condition(item, depth: depth - 1), condition(item, depth: depth - 1), condition(item, depth: depth - 1))
        }
    }

    /// `$0.nickname == "x"`, `!= nil`, `$0.group?.title == "x"`, `$0.group == nil`, ...
    private mutating func optionalEquality(_ item: OracleItemVariable) -> OracleExpression<Bool> {
        let negated = chance(40)
        switch int(0..<6) {
        case 0:
            let value: String? = chance(25) ? nil : string()
            features.comparesStrings = true
            return oracleEqual(PredicateExpressions.KeyPath(root: item, keyPath: \OracleItem.nickname), PredicateExpressions.Value(value), negated: negated)
        case 1:
            let value: Double? = chance(25) ? nil : double()
            return oracleEqual(PredicateExpressions.KeyPath(root: item, keyPath: \OracleItem.ratio), PredicateExpressions.Value(value), negated: negated)
        case 2:
            let value: Int64? = chance(25) ? nil : small()
            return oracleEqual(PredicateExpressions.KeyPath(root: item, keyPath: \OracleItem.maybe), PredicateExpressions.Value(value), negated: negated)
        case 3:
            let value: String? = chance(25) ? nil : string()
            features.comparesStrings = true
            return oracleEqual(groupTitle(item), PredicateExpressions.Value(value), negated: negated)
        case 4:
            let group = PredicateExpressions.KeyPath(root: item, keyPath: \OracleItem.group)
            return negated ? PredicateExpressions.NotEqual(lhs: group, rhs: PredicateExpressions.NilLiteral<OracleGroup>())
                : PredicateExpressions.Equal(lhs: group, rhs: PredicateExpressions.NilLiteral<OracleGroup>())
        default:
            let ratio = PredicateExpressions.KeyPath(root: item, keyPath: \OracleItem.ratio)
            return negated ? PredicateExpressions.NotEqual(lhs: ratio, rhs: PredicateExpressions.NilLiteral<Double>())
                : PredicateExpressions.Equal(lhs: ratio, rhs: PredicateExpressions.NilLiteral<Double>())
        }
    }

    /// `$0.nickname?.contains("x") == true`, `$0.group?.title.starts(with: "x") ?? false`, ...
    private mutating func optionalSearch(_ item: OracleItemVariable) -> OracleExpression<Bool> {
        features.comparesStrings = true
        let needle = string(), startsWith = chance(50)
        let chain: OracleExpression<Bool?>
        if chance(60) {
            let nickname = PredicateExpressions.KeyPath(root: item, keyPath: \OracleItem.nickname)
            chain = startsWith
                ? PredicateExpressions.OptionalFlatMap<_, String, _, Bool>(nickname) { PredicateExpressions.SequenceStartsWith(base: $0, prefix: PredicateExpressions.Value(needle)) }
                : PredicateExpressions.OptionalFlatMap<_, String, _, Bool>(nickname) { PredicateExpressions.CollectionContainsCollection(base: $0, other: PredicateExpressions.Value(needle)) }
        } else {
            let group = PredicateExpressions.KeyPath(root: item, keyPath: \OracleItem.group)
            chain = startsWith
                ? PredicateExpressions.OptionalFlatMap<_, OracleGroup, _, Bool>(group) {
                    PredicateExpressions.SequenceStartsWith(base: PredicateExpressions.KeyPath(root: $0, keyPath: \OracleGroup.title), prefix: PredicateExpressions.Value(needle))
                }
                : PredicateExpressions.OptionalFlatMap<_, OracleGroup, _, Bool>(group) {
                    PredicateExpressions.CollectionContainsCollection(base: PredicateExpressions.KeyPath(root: $0, keyPath: \OracleGroup.title), other: PredicateExpressions.Value(needle))
                }
        }
        switch int(0..<4) {
        case 0: return oracleEqual(chain, PredicateExpressions.Value<Bool?>(true), negated: false)
        case 1: return oracleEqual(chain, PredicateExpressions.Value<Bool?>(true), negated: true)
        case 2: return oracleEqual(chain, PredicateExpressions.Value<Bool?>(false), negated: false)
        default: return oracleCoalesce(chain, PredicateExpressions.Value(chance(50)))
        }
    }

    /// `$0.parts.isEmpty`, `$0.parts.count >= 2`.
    private mutating func partsCount(_ item: OracleItemVariable) -> OracleExpression<Bool> {
        let parts = PredicateExpressions.KeyPath(root: item, keyPath: \OracleItem.parts)
        if chance(40) { return PredicateExpressions.KeyPath(root: parts, keyPath: \Set<OraclePart>.isEmpty) }
        return oracleCompare(PredicateExpressions.KeyPath(root: parts, keyPath: \Set<OraclePart>.count), PredicateExpressions.Value(int(0..<4)), int(0..<6))
    }

    /// `["a", "b"].contains($0.name)`, `[1, 2].contains($0.number)`.
    private mutating func member(_ item: OracleItemVariable) -> OracleExpression<Bool> {
        if chance(50) {
            let values = (0..<int(0..<4)).map { _ in string() }
            features.comparesStrings = true
            return PredicateExpressions.SequenceContains(sequence: PredicateExpressions.Value(values),
                                                         element: PredicateExpressions.KeyPath(root: item, keyPath: \OracleItem.name))
        }
        let values = (0..<int(0..<4)).map { _ in pick(OracleData.integers) }
        return PredicateExpressions.SequenceContains(sequence: PredicateExpressions.Value(values),
                                                     element: PredicateExpressions.KeyPath(root: item, keyPath: \OracleItem.number))
    }

    /// `$0.parts.contains { ... }`, `allSatisfy`, `filter { }.count`, `filter { }.isEmpty`. The
    /// closure's body is drawn twice from the same state: once to learn its type, once with the
    /// closure's own variable.
    private mutating func quantifier(_ item: OracleItemVariable, depth: Int) -> OracleExpression<Bool> {
        let kind = int(0..<4), count = int(0..<3), op = int(0..<6)
        let parts = PredicateExpressions.KeyPath(root: item, keyPath: \OracleItem.parts)
        let start = self
        var probe = self
        let sample = probe.partCondition(OraclePartVariable(), item, depth: depth)
        func make<R: StandardPredicateExpression<Bool>>(_: R) -> OracleExpression<Bool> {
            func body(_ part: OraclePartVariable) -> R {
                var again = start
                return again.partCondition(part, item, depth: depth) as! R
            }
            switch kind {
            case 0: return PredicateExpressions.SequenceContainsWhere(parts, builder: body)
            case 1: return PredicateExpressions.SequenceAllSatisfy(parts, builder: body)
            case 2:
                let filtered = PredicateExpressions.Filter(parts, body)
                return oracleCompare(PredicateExpressions.KeyPath(root: filtered, keyPath: \[OraclePart].count), PredicateExpressions.Value(count), op)
            default:
                return PredicateExpressions.KeyPath(root: PredicateExpressions.Filter(parts, body), keyPath: \[OraclePart].isEmpty)
            }
        }
        let result = make(sample)
        self = probe
        return result
    }

    /// A condition on a part (and the item): its label, its weight.
    private mutating func partCondition(_ part: OraclePartVariable, _ item: OracleItemVariable, depth: Int) -> OracleExpression<Bool> {
        let label = PredicateExpressions.KeyPath(root: part, keyPath: \OraclePart.label)
        let weight = PredicateExpressions.KeyPath(root: part, keyPath: \OraclePart.weight)
        switch int(0..<(depth > 0 ? 7 : 5)) {
        case 0:
            features.comparesStrings = true
            return oracleCompare(label, PredicateExpressions.Value(string()), int(0..<6))
        case 1:
            features.comparesStrings = true
            return oracleSearch(label, PredicateExpressions.Value(string()), startsWith: chance(50))
        case 2: return oracleCompare(weight, PredicateExpressions.Value(small()), int(0..<6))
        case 3: return oracleCompare(weight, PredicateExpressions.KeyPath(root: item, keyPath: \OracleItem.small), int(0..<6))
        case 4:
            features.comparesStrings = true
            return oracleSearch(PredicateExpressions.KeyPath(root: item, keyPath: \OracleItem.name), label, startsWith: chance(50))
        case 5: return oracleJoin(partCondition(part, item, depth: depth - 1), partCondition(part, item, depth: depth - 1), and: true)
        default: return oracleNot(partCondition(part, item, depth: depth - 1))
        }
    }

    // MARK: Values

    /// An integer; `bounded` ones (|x| <= 1000, and arithmetic on them at most two levels
    /// deep) never overflow.
    private mutating func intValue(_ item: OracleItemVariable, depth: Int, bounded: Bool) -> OracleExpression<Int64> {
        switch int(0..<(depth > 0 ? 10 : 6)) {
        case 0: return PredicateExpressions.KeyPath(root: item, keyPath: bounded ? \OracleItem.small : \OracleItem.number)
        case 1: return PredicateExpressions.KeyPath(root: item, keyPath: \OracleItem.small)
        case 2: return PredicateExpressions.Value(bounded ? small() : pick(OracleData.integers))
        case 3: return oracleCoalesce(PredicateExpressions.KeyPath(root: item, keyPath: \OracleItem.maybe), PredicateExpressions.Value(small()))
        case 4:
            let level = PredicateExpressions.OptionalFlatMap<_, OracleGroup, _, Int64>(PredicateExpressions.KeyPath(root: item, keyPath: \OracleItem.group)) {
                PredicateExpressions.KeyPath(root: $0, keyPath: \OracleGroup.level)
            }
            return oracleCoalesce(level, PredicateExpressions.Value(small()))
        case 5: return PredicateExpressions.Value(small())
        case 6, 7:
            let op: PredicateExpressions.ArithmeticOperator = [.add, .subtract, .multiply][int(0..<3)]
            return oracleArithmetic(intValue(item, depth: depth - 1, bounded: true), intValue(item, depth: depth - 1, bounded: true), op)
        case 8:
            let divisor = PredicateExpressions.Value(nonZeroSmall())
            return chance(50) ? oracleIntDivision(intValue(item, depth: depth - 1, bounded: true), divisor, remainder: false)
                : oracleIntDivision(intValue(item, depth: depth - 1, bounded: true), divisor, remainder: true)
        default:
            if chance(50) { return oracleNegate(intValue(item, depth: depth - 1, bounded: true)) }
            return oracleConditionalValue(PredicateExpressions.KeyPath(root: item, keyPath: \OracleItem.flag),
                                          intValue(item, depth: depth - 1, bounded: bounded), intValue(item, depth: depth - 1, bounded: bounded))
        }
    }

    private mutating func doubleValue(_ item: OracleItemVariable, depth: Int) -> OracleExpression<Double> {
        switch int(0..<(depth > 0 ? 7 : 3)) {
        case 0: return PredicateExpressions.KeyPath(root: item, keyPath: \OracleItem.score)
        case 1: return oracleCoalesce(PredicateExpressions.KeyPath(root: item, keyPath: \OracleItem.ratio), PredicateExpressions.Value(double()))
        case 2: return PredicateExpressions.Value(double())
        case 3, 4:
            features.computesDoubles = true
            let op: PredicateExpressions.ArithmeticOperator = [.add, .subtract, .multiply][int(0..<3)]
            return oracleArithmetic(doubleValue(item, depth: depth - 1), doubleValue(item, depth: depth - 1), op)
        case 5:
            features.computesDoubles = true
            return oracleArithmetic(doubleValue(item, depth: depth - 1), doubleValue(item, depth: depth - 1), .multiply, divides: true)
        default: return oracleNegate(doubleValue(item, depth: depth - 1))
        }
    }

    private mutating func stringValue(_ item: OracleItemVariable) -> OracleExpression<String> {
        switch int(0..<5) {
        case 0, 1: return PredicateExpressions.KeyPath(root: item, keyPath: \OracleItem.name)
        case 2: return oracleCoalesce(PredicateExpressions.KeyPath(root: item, keyPath: \OracleItem.nickname), PredicateExpressions.Value(string()))
        case 3: return PredicateExpressions.Value(string())
        default: return oracleCoalesce(groupTitle(item), PredicateExpressions.Value(string()))
        }
    }

    /// `$0.group?.title`.
    private func groupTitle(_ item: OracleItemVariable) -> OracleExpression<String?> {
        PredicateExpressions.OptionalFlatMap<_, OracleGroup, _, String>(PredicateExpressions.KeyPath(root: item, keyPath: \OracleItem.group)) {
            PredicateExpressions.KeyPath(root: $0, keyPath: \OracleGroup.title)
        }
    }
}

// MARK: Opening the type-erased operands

/// `==`, `!=`, `<`, `<=`, `>`, `>=` for `op` 0 to 5.
func oracleCompare<T: Comparable & Codable & Sendable>(_ lhs: OracleExpression<T>, _ rhs: OracleExpression<T>, _ op: Int) -> OracleExpression<Bool> {
    func open<L: StandardPredicateExpression<T>, R: StandardPredicateExpression<T>>(_ l: L, _ r: R) -> OracleExpression<Bool> {
        switch op {
        case 0: return PredicateExpressions.Equal(lhs: l, rhs: r)
        case 1: return PredicateExpressions.NotEqual(lhs: l, rhs: r)
        case 2: return PredicateExpressions.Comparison(lhs: l, rhs: r, op: .lessThan)
        case 3: return PredicateExpressions.Comparison(lhs: l, rhs: r, op: .lessThanOrEqual)
        case 4: return PredicateExpressions.Comparison(lhs: l, rhs: r, op: .greaterThan)
        default: return PredicateExpressions.Comparison(lhs: l, rhs: r, op: .greaterThanOrEqual)
        }
    }
    return open(lhs, rhs)
}

func oracleEqual<T: Equatable & Codable & Sendable>(_ lhs: OracleExpression<T>, _ rhs: OracleExpression<T>, negated: Bool) -> OracleExpression<Bool> {
    func open<L: StandardPredicateExpression<T>, R: StandardPredicateExpression<T>>(_ l: L, _ r: R) -> OracleExpression<Bool> {
        negated ? PredicateExpressions.NotEqual(lhs: l, rhs: r) : PredicateExpressions.Equal(lhs: l, rhs: r)
    }
    return open(lhs, rhs)
}

func oracleSearch(_ base: OracleExpression<String>, _ needle: OracleExpression<String>, startsWith: Bool) -> OracleExpression<Bool> {
    func open<B: StandardPredicateExpression<String>, N: StandardPredicateExpression<String>>(_ b: B, _ n: N) -> OracleExpression<Bool> {
        startsWith ? PredicateExpressions.SequenceStartsWith(base: b, prefix: n) : PredicateExpressions.CollectionContainsCollection(base: b, other: n)
    }
    return open(base, needle)
}

/// `lhs && rhs`, or `lhs || rhs`.
func oracleJoin(_ lhs: OracleExpression<Bool>, _ rhs: OracleExpression<Bool>, and: Bool) -> OracleExpression<Bool> {
    func open<L: StandardPredicateExpression<Bool>, R: StandardPredicateExpression<Bool>>(_ l: L, _ r: R) -> OracleExpression<Bool> {
        and ? PredicateExpressions.Conjunction(lhs: l, rhs: r) : PredicateExpressions.Disjunction(lhs: l, rhs: r)
    }
    return open(lhs, rhs)
}

func oracleNot(_ inner: OracleExpression<Bool>) -> OracleExpression<Bool> {
    func open<I: StandardPredicateExpression<Bool>>(_ i: I) -> OracleExpression<Bool> { PredicateExpressions.Negation(i) }
    return open(inner)
}

func oracleConditional(_ test: OracleExpression<Bool>, _ a: OracleExpression<Bool>, _ b: OracleExpression<Bool>) -> OracleExpression<Bool> {
    oracleConditionalValue(test, a, b)
}

func oracleConditionalValue<T: Codable & Sendable>(_ test: OracleExpression<Bool>, _ a: OracleExpression<T>, _ b: OracleExpression<T>) -> OracleExpression<T> {
    func open<C: StandardPredicateExpression<Bool>, A: StandardPredicateExpression<T>, B: StandardPredicateExpression<T>>(_ c: C, _ a: A, _ b: B) -> OracleExpression<T> {
        PredicateExpressions.Conditional(test: c, trueBranch: a, falseBranch: b)
    }
    return open(test, a, b)
}

func oracleCoalesce<T: Codable & Sendable>(_ lhs: OracleExpression<T?>, _ rhs: OracleExpression<T>) -> OracleExpression<T> {
    func open<L: StandardPredicateExpression<T?>, R: StandardPredicateExpression<T>>(_ l: L, _ r: R) -> OracleExpression<T> {
        PredicateExpressions.NilCoalesce(lhs: l, rhs: r)
    }
    return open(lhs, rhs)
}

/// `+`, `-`, `*`; with `divides`, `/` of floating-point numbers (`op` is then not used).
func oracleArithmetic<T: Numeric & Codable & Sendable>(_ lhs: OracleExpression<T>, _ rhs: OracleExpression<T>, _ op: PredicateExpressions.ArithmeticOperator,
                                                       divides: Bool = false) -> OracleExpression<T> {
    func open<L: StandardPredicateExpression<T>, R: StandardPredicateExpression<T>>(_ l: L, _ r: R) -> OracleExpression<T> {
        if divides, let l = l as? any StandardPredicateExpression<Double>, let r = r as? any StandardPredicateExpression<Double> {
            return oracleFloatDivision(l, r) as! OracleExpression<T>
        }
        return PredicateExpressions.Arithmetic(lhs: l, rhs: r, op: op)
    }
    return open(lhs, rhs)
}

private func oracleFloatDivision<L: StandardPredicateExpression<Double>, R: StandardPredicateExpression<Double>>(_ l: L, _ r: R) -> OracleExpression<Double> {
    PredicateExpressions.FloatDivision(lhs: l, rhs: r)
}

/// `/` (`remainder` false) or `%` of integers.
func oracleIntDivision(_ lhs: OracleExpression<Int64>, _ rhs: OracleExpression<Int64>, remainder: Bool) -> OracleExpression<Int64> {
    func open<L: StandardPredicateExpression<Int64>, R: StandardPredicateExpression<Int64>>(_ l: L, _ r: R) -> OracleExpression<Int64> {
        remainder ? PredicateExpressions.IntRemainder(lhs: l, rhs: r) : PredicateExpressions.IntDivision(lhs: l, rhs: r)
    }
    return open(lhs, rhs)
}

/// `-x`.
func oracleNegate<T: SignedNumeric & Codable & Sendable>(_ inner: OracleExpression<T>) -> OracleExpression<T> {
    func open<I: StandardPredicateExpression<T>>(_ i: I) -> OracleExpression<T> { PredicateExpressions.UnaryMinus(i) }
    return open(inner)
}
