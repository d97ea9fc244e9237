import Foundation

/// A JSON number as it was written, so that each attribute reads the value it needs from the
/// text itself: a `Double` or `Float` correctly rounded from all its digits, an integer or a
/// `Decimal` digit for digit. (`JSONSerialization` on Linux reads `0.30000000000000004` as
/// `0.3000000000000001`, and integers past `Int64` through a `Double`.) What
/// ``JSONParser`` makes of every number it reads.
package struct JSONNumber: CustomStringConvertible, Hashable, Sendable {
    /// The number's text, as JSON's grammar allows it (`-12`, `0.5`, `1e-7`).
    package let text: String

    package init(text: String) { self.text = text }

    package var description: String { text }

    /// The nearest `Double` (infinite when the number is beyond `Double`'s range).
    package var double: Double? { Double(text) }

    /// The nearest `Float`, read from the text (not through a `Double`, which could round twice).
    package var float: Float? { Float(text) }

    /// The number as an integer when it is one exactly (`42`, `42.0`, `4.2e1`), else nil.
    package var integer: Int64? {
        if let value = Int64(text) { return value }
        guard let decimal, decimal == decimal.wholeNumber() else { return nil }
        let value = NSDecimalNumber(decimal: decimal).int64Value
        return Decimal(value) == decimal ? value : nil
    }

    /// The number as `JSONSerialization` would hand it over, but exact: an `Int64` or
    /// `UInt64` when it is one, else the nearest `Double` (`-0` is the `Double` -0.0).
    package var foundationNumber: NSNumber {
        if text.hasPrefix("-"), double == 0 { return NSNumber(value: -0.0) }
        if let value = Int64(text) { return NSNumber(value: value) }
        if let value = UInt64(text) { return NSNumber(value: value) }
        return NSNumber(value: double ?? .nan)
    }

    /// The number as a `Decimal`, digit for digit (up to `Decimal`'s 38 digits).
    package var decimal: Decimal? { Decimal(string: text, locale: Locale(identifier: "en_US_POSIX")) }
}

extension Decimal {
    /// The integer nearest to this decimal, halves away from zero.
    fileprivate func wholeNumber() -> Decimal {
        var value = self
        var result = Decimal()
        NSDecimalRound(&result, &value, 0, .plain)
        return result
    }
}
