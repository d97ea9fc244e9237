import Foundation

/// An attribute's ``AttributeValidationRules`` resolved for its type when the model is
/// built: what a save checks, with no parsing left to do. A rule that does not fit the
/// attribute (a length on a number, a pattern that is not a regular expression, a minimum
/// above the maximum) is a ``ModelError`` at build, never a crash at save.
struct AttributeValidator {
    enum Check {
        case integer(min: Int64?, max: Int64?)
        /// Double, Float (bounds rounded to Float, the precision values have) and Date
        /// (seconds since 2001, as stored).
        case double(min: Double?, max: Double?)
        case decimal(min: Decimal?, max: Decimal?)
        case text(minLength: Int?, maxLength: Int?, pattern: NSRegularExpression?)
        case bytes(minLength: Int?, maxLength: Int?)
    }

    /// A value that breaks a rule: which rule, and what to say.
    struct Failure {
        let rule: ValidationError.Rule
        let message: String
        /// The refused value as the message shows it.
        let value: String
    }

    let check: Check
    /// The rules, their numbers in the attribute's own kind (`.number` for a Double, `.decimal`
    /// for a Decimal, `.integer` where whole for an integer), so a rule reads back from the
    /// model's XML as it was given.
    let rules: AttributeValidationRules
    let isDate: Bool

    init(_ rules: AttributeValidationRules, type: AttributeType, entity: String, attribute: String) throws {
        func refuse(_ message: String) -> ModelError {
            ModelError(.invalidValidationRule, entity: entity, property: attribute, message)
        }
        self.rules = Self.canonical(rules, type)
        self.isDate = type == .date
        let bounds = [rules.minimum, rules.maximum].compactMap { $0 }
        if rules.pattern != nil && type != .string {
            throw refuse("a regular expression applies to String attributes only, not to \(type.rawValue)")
        }
        switch type {
        case .integer16, .integer32, .integer64, .double, .float, .decimal:
            if let bad = bounds.first(where: { !$0.isNumber }) {
                throw refuse("a \(type.rawValue) attribute takes numbers as its minimum and maximum, not \(bad.kindName) \(bad)")
            }
            switch type {
            case .double: check = .double(min: rules.minimum?.doubleValue, max: rules.maximum?.doubleValue)
            case .float: check = .double(min: rules.minimum.map { Double(Float($0.doubleValue)) }, max: rules.maximum.map { Double(Float($0.doubleValue)) })
            case .decimal: check = .decimal(min: rules.minimum?.decimalValue, max: rules.maximum?.decimalValue)
            default: check = .integer(min: rules.minimum.map { Self.integer($0, roundingUp: true) }, max: rules.maximum.map { Self.integer($0, roundingUp: false) })
            }
        case .date:
            if let bad = bounds.first(where: { if case .date = $0 { return false } else { return true } }) {
                throw refuse("a Date attribute takes dates as its minimum and maximum, not \(bad.kindName) \(bad)")
            }
            check = .double(min: rules.minimum?.doubleValue, max: rules.maximum?.doubleValue)
        case .string, .binary:
            var lengths: [Int?] = []
            for bound in [rules.minimum, rules.maximum] {
                guard let bound else { lengths.append(nil); continue }
                guard case .length(let length) = bound, length >= 0 else {
                    throw refuse("a \(type.rawValue) attribute takes lengths (counts, 0 or more) as its minimum and maximum, not \(bound.kindName) \(bound)")
                }
                lengths.append(length)
            }
            if type == .binary {
                check = .bytes(minLength: lengths[0], maxLength: lengths[1])
            } else {
                var regex: NSRegularExpression?
                if let pattern = rules.pattern {
                    do {
                        _ = try NSRegularExpression(pattern: pattern)   // alone, so `a)(b` cannot close the anchoring group
                        regex = try NSRegularExpression(pattern: "\\A(?:" + pattern + ")\\z")
                    } catch {
                        throw refuse("its regular expression \(pattern.debugDescription) is not valid ICU syntax (\(error))")
                    }
                }
                check = .text(minLength: lengths[0], maxLength: lengths[1], pattern: regex)
            }
        case .boolean, .uuid, .uri, .transformable:
            throw refuse("\(type.rawValue) attributes take no minimum, maximum or regular expression")
        }
        if let minimum = rules.minimum, let maximum = rules.maximum, minimum.decimalValue > maximum.decimalValue {
            throw refuse("its minimum \(minimum) is greater than its maximum \(maximum): no value could be saved")
        }
    }

    private static func canonical(_ rules: AttributeValidationRules, _ type: AttributeType) -> AttributeValidationRules {
        func bound(_ bound: ValidationBound?) -> ValidationBound? {
            guard let bound, bound.isNumber else { return bound }
            switch type {
            case .double, .float: return .number(bound.doubleValue)
            case .decimal: return .decimal(bound.decimalValue)
            case .integer16, .integer32, .integer64:
                if case .integer = bound { return bound }
                let value = bound.doubleValue
                return value == value.rounded() && abs(value) < 9e15 ? .integer(Int64(value)) : .number(value)
            default: return bound
            }
        }
        return AttributeValidationRules(minimum: bound(rules.minimum), maximum: bound(rules.maximum), pattern: rules.pattern)
    }

    /// An Int64 bound for an integer attribute: a fractional bound rounded inwards (a
    /// minimum of 0.5 allows 1 and above), a bound beyond Int64 clamped.
    private static func integer(_ bound: ValidationBound, roundingUp: Bool) -> Int64 {
        if case .integer(let v) = bound { return v }
        let value = roundingUp ? bound.doubleValue.rounded(.up) : bound.doubleValue.rounded(.down)
        if value >= 9.2e18 { return .max }
        if value <= -9.2e18 { return .min }
        return Int64(value)
    }

    /// What is wrong with `value`, or nil if it keeps every rule. nil is never checked.
    func failure(of value: SlotValue, key: String) -> Failure? {
        switch (check, value) {
        case (.integer(let min, let max), .int(let v)):
            if let min, v < min { return tooSmall(key, String(v)) }
            if let max, v > max { return tooLarge(key, String(v)) }
        case (.double(let min, let max), _):
            // Decoded as the attribute's own codec does (a fetched whole number may be `.int`).
            guard let v = Double._decode(value) else { return nil }
            if let min, v < min { return tooSmall(key, text(v)) }
            if let max, v > max { return tooLarge(key, text(v)) }
        case (.decimal(let min, let max), _):
            guard let v = Decimal._decode(value) else { return nil }
            if let min, v < min { return tooSmall(key, "\(v)") }
            if let max, v > max { return tooLarge(key, "\(v)") }
        case (.text(let minLength, let maxLength, let pattern), .text(let s)):
            let length = s.utf16.count
            if let minLength, length < minLength {
                return Failure(rule: .stringTooShort, message: "\(key) is too short: \(quoted(s)) is \(length) long, the minimum length is \(minLength)",
                               value: quoted(s))
            }
            if let maxLength, length > maxLength {
                return Failure(rule: .stringTooLong, message: "\(key) is too long: \(quoted(s)) is \(length) long, the maximum length is \(maxLength)",
                               value: quoted(s))
            }
            if let pattern, pattern.firstMatch(in: s, range: NSRange(location: 0, length: length)) == nil {
                return Failure(rule: .stringPatternMatching,
                               message: "\(key) does not match its pattern: \(quoted(s)) is not matched as a whole by \(rules.pattern!.debugDescription)",
                               value: quoted(s))
            }
        case (.bytes(let minLength, let maxLength), .blob(let data)):
            if let minLength, data.count < minLength {
                return Failure(rule: .stringTooShort, message: "\(key) is too short: \(data.count) bytes, the minimum length is \(minLength)",
                               value: "\(data.count) bytes")
            }
            if let maxLength, data.count > maxLength {
                return Failure(rule: .stringTooLong, message: "\(key) is too long: \(data.count) bytes, the maximum length is \(maxLength)",
                               value: "\(data.count) bytes")
            }
        default:
            break
        }
        return nil
    }

    private func tooSmall(_ key: String, _ value: String) -> Failure {
        Failure(rule: isDate ? .dateTooSoon : .numberTooSmall,
                message: "\(key) is too \(isDate ? "soon" : "small"): \(value) is \(isDate ? "before" : "less than") the minimum \(rules.minimum!)",
                value: value)
    }

    private func tooLarge(_ key: String, _ value: String) -> Failure {
        Failure(rule: isDate ? .dateTooLate : .numberTooLarge,
                message: "\(key) is too \(isDate ? "late" : "large"): \(value) is \(isDate ? "after" : "greater than") the maximum \(rules.maximum!)",
                value: value)
    }

    private func text(_ value: Double) -> String {
        isDate ? Date(timeIntervalSinceReferenceDate: value).formatted(.iso8601) : ValidationBound.number(value).description
    }

    private func quoted(_ s: String) -> String {
        (s.count > 80 ? String(s.prefix(80)) + "…" : s).debugDescription
    }
}

extension ValidationBound {
    /// What kind of bound it is, for messages.
    var kindName: String {
        switch self {
        case .integer, .number, .decimal: return "the number"
        case .date: return "the date"
        case .length: return "the length"
        }
    }
}
