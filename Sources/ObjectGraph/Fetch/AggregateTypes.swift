import Foundation

// Which Swift types an aggregate or a distinct query answers in, per attribute type, and the
// SQL that computes each aggregate exactly for the attribute's storage.

extension AggregateFunction {
    /// The SQL for this function over `expression`, a value of `type` (nil for a to-one).
    ///
    /// Decimal attributes are stored as REAL (as Core Data stores them), each value exact to
    /// 15 significant digits. `MIN` and `MAX` pick one stored value, so they stay in plain
    /// SQL. `SUM` and `AVG` would add binary doubles and lose cents, so they go through
    /// `og_decimal_sum` / `og_decimal_avg`, aggregates registered on every connection that add
    /// each stored value as the Decimal it stands for and return the exact result as text.
    func sql(of expression: String, type: AttributeType?) -> String {
        if type == .decimal {
            switch self {
            case .sum: return "og_decimal_sum(\(expression))"
            case .average: return "og_decimal_avg(\(expression))"
            default: break
            }
        }
        return "\(sqlName)(\(expression))"
    }
}

/// The attribute types whose Swift types a query may answer in.
enum AggregateResultTypes {
    /// The types `function` over an attribute of `type` can be read as (`function` nil: the
    /// attribute's distinct values); empty when the function does not apply.
    static func allowed(_ function: AggregateFunction?, of type: AttributeType?) -> [AttributeType] {
        guard let type else {
            // A to-one relationship: object IDs, which only count.
            return function == .count ? [.integer64, .double, .decimal] : []
        }
        switch function {
        case .count?:
            return [.integer64, .double, .decimal]
        case .sum?:
            switch type {
            case .integer16, .integer32, .integer64: return [.integer64, .double, .decimal]
            case .double: return [.double]
            case .float: return [.float, .double]
            case .decimal: return [.decimal]
            default: return []
            }
        case .average?:
            switch type {
            case .integer16, .integer32, .integer64: return [.double, .decimal]
            case .double: return [.double]
            case .float: return [.float, .double]
            case .decimal: return [.decimal]
            default: return []
            }
        case .min?, .max?, nil:
            switch type {
            // The attribute's own type, or one that holds every value of it.
            case .integer16: return [.integer16, .integer32, .integer64, .double, .decimal]
            case .integer32: return [.integer32, .integer64, .double, .decimal]
            case .integer64: return [.integer64, .double, .decimal]
            case .float: return [.float, .double]
            case .transformable: return [.binary]
            default: return [type]
            }
        }
    }

    /// Whether the untyped form (a `Double?`) gives the right number: counts, and numbers a
    /// Double holds (integers, Double, Float, Bool). Decimals and dates need the typed form.
    static func answersAsDouble(_ function: AggregateFunction, of type: AttributeType?) -> Bool {
        if function == .count { return true }
        switch type {
        case .integer16?, .integer32?, .integer64?, .double?, .float?, .boolean?: return true
        default: return false
        }
    }

    /// The Swift type to name in `as:` for an attribute type.
    static func swiftName(_ type: AttributeType) -> String {
        switch type {
        case .integer64: return "Int"
        case .transformable: return "Data"
        default: return type.swiftTypeName
        }
    }

    /// What the key path is, for messages: "Specimen.amount (a Decimal attribute)".
    static func subject(_ entity: EntityDescription, keyPath: String, type: AttributeType?) -> String {
        "\(entity.name).\(keyPath) (\(type.map { "a \($0.rawValue) attribute" } ?? "a to-one relationship"))"
    }

    /// The error for asking for `requested` where `allowed` are possible.
    static func mismatch(_ what: String, entity: EntityDescription, keyPath: String, type: AttributeType?,
                         requested: String, allowed: [AttributeType]) -> FetchPredicateError {
        let choices = allowed.map { swiftName($0) + ".self" }
        let advice = choices.isEmpty ? "it cannot be computed for this key" : "ask for " + choices.joined(separator: " or ")
        return FetchPredicateError(.typeMismatch, "\(what) of \(subject(entity, keyPath: keyPath, type: type)) cannot be read as \(requested); \(advice)",
                                   entity: entity.name, key: keyPath)
    }
}
