import Foundation

// Binding function expressions: arithmetic and Foundation's named functions. Each argument is
// bound like a comparison's side; its kind must be what the function takes.
extension PredicateBinder {
    mutating func resolveFunction(_ name: String, _ arguments: [PredicateExpression]) throws -> Resolved {
        let text = PredicateExpression.function(name, arguments).description
        guard let function = PredicateFunction(rawValue: name) else {
            throw FetchPredicateError(.unsupported, "unknown function '\(name)' in '\(text)'", entity: scopes[0].name, key: text)
        }
        guard arguments.count == function.arity else {
            throw FetchPredicateError(.syntax, "\(name) takes \(function.arity) argument\(function.arity == 1 ? "" : "s"), not \(arguments.count), in '\(text)'",
                                      entity: scopes[0].name, key: text)
        }
        var operands: [BoundOperand] = []
        for argument in arguments {
            let (operand, kind) = try functionArgument(argument, of: text)
            guard kind == .number || kind == .null else {
                throw FetchPredicateError(.typeMismatch, "\(function.infix.map { "'\($0)'" } ?? name) takes numbers, but '\(argument)' is a \(kind) (in '\(text)')",
                                          entity: scopes[0].name, key: text)
            }
            operands.append(operand)
        }
        return .operand(.function(function, operands), .number)
    }

    /// One argument of a function, bound to a single value.
    private mutating func functionArgument(_ argument: PredicateExpression, of text: String) throws -> (BoundOperand, ValueKind) {
        switch try resolve(argument) {
        case .value(.list):
            throw FetchPredicateError(.typeMismatch, "a collection cannot be an argument of '\(text)'", entity: scopes[0].name, key: text)
        case .value(let value):
            guard let (stored, kind) = Self.convert(value, to: .null) else {
                throw FetchPredicateError(.typeMismatch, "the \(value.typeName) \(value) cannot be an argument of '\(text)'", entity: scopes[0].name, key: text)
            }
            return (.constant(stored), kind)
        case .operand(let operand, let kind): return (operand, kind)
        case .toMany(_, _, let path):
            throw FetchPredicateError(.unsupported, "'\(path)' is a to-many key path; use @count, @sum, ... or SUBQUERY in '\(text)'",
                                      entity: scopes[0].name, key: path)
        }
    }
}
