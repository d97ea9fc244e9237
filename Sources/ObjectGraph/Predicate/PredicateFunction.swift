import Foundation

/// The functions an expression can apply, by Foundation's `NSExpression` names. Arithmetic
/// (`age + 1`, `salary / 2`, `2 ** 10`, `-age`) is these functions too, as in Foundation.
///
/// ``apply(_:)`` is the one meaning of each: the in-memory evaluator calls it, and so does the
/// SQLite function `og_fn` for the functions SQL cannot express exactly itself.
enum PredicateFunction: String, CaseIterable, Sendable {
    case add = "add:to:", subtract = "from:subtract:", multiply = "multiply:by:", divide = "divide:by:"
    case power = "raise:toPower:"

    /// How many arguments the function takes.
    var arity: Int {
        switch self {
        case .add, .subtract, .multiply, .divide, .power: return 2
        }
    }

    /// The infix operator Foundation prints for the function, if it has one.
    var infix: String? {
        switch self {
        case .add: return "+"
        case .subtract: return "-"
        case .multiply: return "*"
        case .divide: return "/"
        case .power: return "**"
        }
    }

    /// The code `og_fn` receives for the function.
    var code: Int32 { Int32(Self.allCases.firstIndex(of: self)!) }

    /// The result for `arguments` (already checked to be numbers or nil): nil in, nil out.
    /// Integer `+ - *` stay integers until they overflow, then become doubles (as SQLite
    /// does); `/` and `**` are computed on doubles (as Foundation does: `7 / 2` is 3.5),
    /// `x / 0` is ±infinity and `0 / 0` nil.
    func apply(_ arguments: [SlotValue]) -> SlotValue {
        guard arguments.allSatisfy({ !$0.isNull }) else { return .null }
        switch self {
        case .add: return Self.integer(arguments[0], arguments[1], { $0.addingReportingOverflow($1) }, +)
        case .subtract: return Self.integer(arguments[0], arguments[1], { $0.subtractingReportingOverflow($1) }, -)
        case .multiply: return Self.integer(arguments[0], arguments[1], { $0.multipliedReportingOverflow(by: $1) }, *)
        case .divide: return Self.double(Self.number(arguments[0]) / Self.number(arguments[1]))
        case .power: return Self.double(Foundation.pow(Self.number(arguments[0]), Self.number(arguments[1])))
        }
    }

    private static func integer(_ a: SlotValue, _ b: SlotValue, _ exact: (Int64, Int64) -> (partialValue: Int64, overflow: Bool),
                                _ approximate: (Double, Double) -> Double) -> SlotValue {
        if case .int(let x) = a, case .int(let y) = b {
            let (value, overflow) = exact(x, y)
            if !overflow { return .int(value) }
        }
        return double(approximate(number(a), number(b)))
    }

    /// NaN is no number: nil, as SQLite stores it.
    private static func double(_ value: Double) -> SlotValue { value.isNaN ? .null : .double(value) }

    static func number(_ value: SlotValue) -> Double { PredicateEvaluator.number(value) ?? .nan }
}
