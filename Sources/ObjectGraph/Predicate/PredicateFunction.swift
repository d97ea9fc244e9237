import Foundation

/// The functions an expression can apply, by Foundation's `NSExpression` names. Arithmetic
/// (`age + 1`, `salary / 2`, `2 ** 10`, `-age`) and the bitwise operators (`flags & 4`) are
/// these functions too, as in Foundation.
///
/// ``apply(_:)`` is the one meaning of each: the in-memory evaluator calls it, and so does the
/// SQLite function `og_fn` for the functions SQL cannot express exactly itself.
enum PredicateFunction: String, CaseIterable, Sendable {
    case add = "add:to:", subtract = "from:subtract:", multiply = "multiply:by:", divide = "divide:by:"
    case power = "raise:toPower:", modulus = "modulus:by:"
    case abs = "abs:", sqrt = "sqrt:", log = "log:", ln = "ln:", exp = "exp:"
    case floor = "floor:", ceiling = "ceiling:", trunc = "trunc:"
    case bitwiseAnd = "bitwiseAnd:with:", bitwiseOr = "bitwiseOr:with:", bitwiseXor = "bitwiseXor:with:"
    case leftShift = "leftshift:by:", rightShift = "rightshift:by:", onesComplement = "onesComplement:"
    case lowercase = "lowercase:", uppercase = "uppercase:", length = "length:"

    /// How many arguments the function takes.
    var arity: Int {
        switch self {
        case .add, .subtract, .multiply, .divide, .power, .modulus, .bitwiseAnd, .bitwiseOr, .bitwiseXor, .leftShift, .rightShift: return 2
        default: return 1
        }
    }

    /// Whether it takes strings (else numbers).
    var takesText: Bool { self == .lowercase || self == .uppercase || self == .length }

    /// Whether it gives a string (else a number).
    var givesText: Bool { self == .lowercase || self == .uppercase }

    /// The infix (or prefix, for `~`) operator Foundation prints for the function, if any.
    var infix: String? {
        switch self {
        case .add: return "+"
        case .subtract: return "-"
        case .multiply: return "*"
        case .divide: return "/"
        case .power: return "**"
        case .bitwiseAnd: return "&"
        case .bitwiseOr: return "|"
        case .bitwiseXor: return "^"
        case .leftShift: return "<<"
        case .rightShift: return ">>"
        case .onesComplement: return "~"
        default: return nil
        }
    }

    /// The code `og_fn` receives for the function.
    var code: Int32 { Int32(Self.allCases.firstIndex(of: self)!) }

    /// The result for `arguments` (already checked to be numbers, or strings for the string
    /// functions, or nil): nil in, nil out. Integers stay integers for `+ - * / %` until they
    /// overflow, then become doubles (as SQLite does); `/` of two integers divides as
    /// integers (as Foundation's `divide:by:` does), by zero it gives nil; the bitwise
    /// functions work on the 64-bit integer value.
    func apply(_ arguments: [SlotValue]) -> SlotValue {
        guard arguments.allSatisfy({ !$0.isNull }) else { return .null }
        let a = arguments[0], b = arguments.count > 1 ? arguments[1] : .null
        switch self {
        case .add: return Self.integer(a, b, exact: { $0.addingReportingOverflow($1) }, approximate: +)
        case .subtract: return Self.integer(a, b, exact: { $0.subtractingReportingOverflow($1) }, approximate: -)
        case .multiply: return Self.integer(a, b, exact: { $0.multipliedReportingOverflow(by: $1) }, approximate: *)
        case .divide:
            if case .int(0) = b { return .null }
            return Self.integer(a, b, exact: { $0.dividedReportingOverflow(by: $1) }, approximate: /)
        case .modulus:
            if case .int(0) = b { return .null }
            return Self.integer(a, b, exact: { $0.remainderReportingOverflow(dividingBy: $1) }, approximate: { Foundation.fmod($0, $1) })
        case .power: return Self.double(Foundation.pow(Self.number(a), Self.number(b)))
        case .abs:
            if case .int(let v) = a { return v == .min ? .double(-Double(v)) : .int(Swift.abs(v)) }
            return Self.double(Swift.abs(Self.number(a)))
        case .sqrt: return Self.double(Foundation.sqrt(Self.number(a)))
        case .log: return Self.double(Foundation.log10(Self.number(a)))
        case .ln: return Self.double(Foundation.log(Self.number(a)))
        case .exp: return Self.double(Foundation.exp(Self.number(a)))
        case .floor, .ceiling, .trunc:
            if case .int = a { return a }
            let rule: FloatingPointRoundingRule = self == .floor ? .down : self == .ceiling ? .up : .towardZero
            return Self.double(Self.number(a).rounded(rule))
        case .bitwiseAnd: return .int(Self.bits(a) & Self.bits(b))
        case .bitwiseOr: return .int(Self.bits(a) | Self.bits(b))
        case .bitwiseXor: return .int(Self.bits(a) ^ Self.bits(b))
        case .leftShift: return .int(Self.bits(a) << Self.bits(b))
        case .rightShift: return .int(Self.bits(a) >> Self.bits(b))
        case .onesComplement: return .int(~Self.bits(a))
        case .lowercase: return PredicateEvaluator.text(a).map { .text($0.lowercased()) } ?? .null
        case .uppercase: return PredicateEvaluator.text(a).map { .text($0.uppercased()) } ?? .null
        case .length: return PredicateEvaluator.text(a).map { .int(Int64($0.utf16.count)) } ?? .null     // NSString's length
        }
    }

    private static func integer(_ a: SlotValue, _ b: SlotValue, exact: (Int64, Int64) -> (partialValue: Int64, overflow: Bool),
                                approximate: (Double, Double) -> Double) -> SlotValue {
        if case .int(let x) = a, case .int(let y) = b {
            let (value, overflow) = exact(x, y)
            if !overflow { return .int(value) }
        }
        return double(approximate(number(a), number(b)))
    }

    /// NaN is no number: nil, as SQLite stores it.
    private static func double(_ value: Double) -> SlotValue { value.isNaN ? .null : .double(value) }

    static func number(_ value: SlotValue) -> Double { PredicateEvaluator.number(value) ?? .nan }

    /// The 64-bit integer a number stands for (a double is truncated, clamped to the range).
    private static func bits(_ value: SlotValue) -> Int64 {
        if case .int(let v) = value { return v }
        let v = number(value)
        return v.isNaN ? 0 : Int64(exactly: v.rounded(.towardZero)) ?? (v < 0 ? .min : .max)
    }
}
