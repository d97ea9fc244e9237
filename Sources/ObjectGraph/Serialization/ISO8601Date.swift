import Foundation

/// ISO 8601 dates read and written without a formatter object, as the JSON export writes and
/// the import reads them: a parse costs a few integer operations (an import reads one per
/// record and attribute), and the type is `Sendable`. Thread-safe: it has no state.
///
/// ```swift
/// ISO8601Date.format(Date(timeIntervalSince1970: 0))        // "1970-01-01T00:00:00Z"
/// ISO8601Date.parse("+010000-01-01T00:00:00Z")               // a Date in the year 10000
/// ```
public enum ISO8601Date {
    /// Reads `2024-05-01`, `2024-05-01T09:30`, `2024-05-01T09:30:00`, with an optional
    /// fraction (`.250`), and `Z`, `+02:00`, `+0200` or nothing (UTC) after the time; a
    /// space may stand for the `T`. A year outside 0000–9999 is ISO 8601's expanded form, a
    /// sign and six digits or more (`+010000-01-01`, `-000001-12-31`), as ``format(_:)``
    /// writes it. nil for anything else.
    public static func parse(_ text: String) -> Date? {
        var utf8 = Array(text.utf8)[...]
        func number(_ digits: Int) -> Int? {
            guard utf8.count >= digits else { return nil }
            var value = 0
            for byte in utf8.prefix(digits) {
                guard byte >= 48, byte <= 57 else { return nil }
                value = value * 10 + Int(byte - 48)
            }
            utf8 = utf8.dropFirst(digits)
            return value
        }
        func skip(_ byte: UInt8) -> Bool {
            guard utf8.first == byte else { return false }
            utf8 = utf8.dropFirst()
            return true
        }
        var year: Int
        if let sign = utf8.first, sign == 43 || sign == 45 {   // + -
            utf8 = utf8.dropFirst()
            var digits = 0
            while digits < 19, let byte = utf8.dropFirst(digits).first, byte >= 48, byte <= 57 { digits += 1 }
            guard digits >= 6, digits <= 15, let magnitude = number(digits) else { return nil }
            year = sign == 45 ? -magnitude : magnitude
        } else {
            guard let plain = number(4) else { return nil }
            year = plain
        }
        guard skip(45), let month = number(2), skip(45), let day = number(2),
              (1...12).contains(month), (1...31).contains(day) else { return nil }
        let days = daysSince1970(year: year, month: month, day: day)
        guard civil(fromDays: Int64(days)) == (Int64(year), Int64(month), Int64(day)) else { return nil }   // no February 30th
        // The instant is added up in integers and rounded once, at the end, to the Date
        // nearest it: in floating point each step rounded, far from 1970 by seconds.
        var seconds = Int128(days) * 86_400
        var numerator = 0
        var denominator = 1
        func date(offset: Int = 0) -> Date {
            let sinceReferenceDate = seconds - Int128(offset) - 978_307_200   // 2001-01-01, where a Date counts from
            return Date(timeIntervalSinceReferenceDate: Double(sinceReferenceDate * Int128(denominator) + Int128(numerator)) / Double(denominator))
        }
        guard let separator = utf8.first else { return date() }
        guard separator == 84 || separator == 116 || separator == 32 else { return nil }   // T t space
        utf8 = utf8.dropFirst()
        guard let hour = number(2), skip(58), let minute = number(2), hour < 24, minute < 60 else { return nil }
        seconds += Int128(hour * 3600 + minute * 60)
        if skip(58) {
            guard let second = number(2), second < 61 else { return nil }
            seconds += Int128(second)
            if skip(46) || skip(44) {
                while let byte = utf8.first, byte >= 48, byte <= 57 {
                    if denominator < 1_000_000_000 {   // digits past nanoseconds are dropped
                        numerator = numerator * 10 + Int(byte - 48)
                        denominator *= 10
                    }
                    utf8 = utf8.dropFirst()
                }
                guard denominator > 1 else { return nil }
            }
        }
        if utf8.isEmpty || skip(90) || skip(122) { return utf8.isEmpty ? date() : nil }  // Z z
        guard let sign = utf8.first, sign == 43 || sign == 45 else { return nil }   // + -
        utf8 = utf8.dropFirst()
        guard let offsetHours = number(2) else { return nil }
        _ = skip(58)
        let offsetMinutes = utf8.isEmpty ? 0 : number(2)
        guard let offsetMinutes, utf8.isEmpty else { return nil }
        let offset = offsetHours * 3600 + offsetMinutes * 60
        return date(offset: sign == 43 ? offset : -offset)
    }

    /// The farthest a date may be from 1970, in seconds, for ``format(_:)`` to name its day:
    /// a Date's seconds have 53 bits, and past 2^53 days (about 2.5e13 years) there is no
    /// calendar day to name. The import refuses dates beyond it.
    static let maximumSeconds = 9.0e15 * 86_400

    /// Whether ``format(_:)`` can write `date`: a finite date less than about 2.5e13 years
    /// from 1970. Dates beyond it name no calendar day.
    public static func canFormat(_ date: Date) -> Bool {
        let seconds = date.timeIntervalSince1970
        return seconds.isFinite && abs(seconds) < maximumSeconds
    }

    /// `2024-05-01T09:30:00Z`, or `2024-05-01T09:30:00.250Z` when the date has milliseconds;
    /// a year outside 0000–9999 in ISO 8601's expanded form (`+010000-01-01T00:00:00Z`, a
    /// sign and at least six digits, as JavaScript writes it), so any date a store can hold
    /// is written, however far from now, and ``parse(_:)`` reads it back.
    ///
    /// Whole seconds and milliseconds are taken apart from the Date's own seconds since 2001
    /// (exactly: a floor and a subtraction), then counted in integers, so the text names
    /// the instant the Date holds, to the millisecond, however far from 1970; ``parse(_:)``
    /// gives the Date nearest that text, which for a Date of whole milliseconds is the same
    /// Date, bit for bit.
    ///
    /// - Precondition: ``canFormat(_:)``; a date that fails it stops the process.
    public static func format(_ date: Date) -> String {
        let interval = date.timeIntervalSince1970
        precondition(interval.isFinite, "ManagedRecord: a Date holds \(interval) seconds, which is no date (a bug in the code that made it)")
        precondition(abs(interval) < maximumSeconds, "ManagedRecord: a Date of \(interval) seconds since 1970 is beyond any calendar year ISO 8601 can write")
        let sinceReferenceDate = date.timeIntervalSinceReferenceDate
        let wholeSinceReference = sinceReferenceDate.rounded(.down)
        var milliseconds = Int64(((sinceReferenceDate - wholeSinceReference) * 1000).rounded())
        var total = Int128(wholeSinceReference) + 978_307_200
        if milliseconds == 1000 { total += 1; milliseconds = 0 }
        // Days and the second of the day in integers: in floating point, far from 1970
        // (`wholeSeconds - dayCount * 86_400` rounds), the second came out negative and
        // the text was `-12450378984473-04-01T0-18:0-12:0-16Z`, which no reader takes.
        var days = Int64(total / 86_400)
        var second = Int64(total % 86_400)
        if second < 0 { second += 86_400; days -= 1 }
        let (year, month, day) = civil(fromDays: days)
        func two(_ value: Int64) -> String { value < 10 ? "0\(value)" : "\(value)" }
        let yearDigits = String(abs(year))
        var text: String
        if (0...9999).contains(year) {
            text = String(repeating: "0", count: 4 - yearDigits.count) + yearDigits
        } else {
            text = (year < 0 ? "-" : "+") + String(repeating: "0", count: max(0, 6 - yearDigits.count)) + yearDigits
        }
        text += "-\(two(month))-\(two(day))T\(two(second / 3600)):\(two(second / 60 % 60)):\(two(second % 60))"
        if milliseconds != 0 {
            let digits = String(milliseconds)
            text += "." + String(repeating: "0", count: 3 - digits.count) + digits
        }
        return text + "Z"
    }

    /// Days from 1970-01-01 to a proleptic Gregorian date (Howard Hinnant's algorithm).
    static func daysSince1970(year: Int, month: Int, day: Int) -> Int {
        let y = month <= 2 ? year - 1 : year
        let era = (y >= 0 ? y : y - 399) / 400
        let yearOfEra = y - era * 400
        let dayOfYear = (153 * (month > 2 ? month - 3 : month + 9) + 2) / 5 + day - 1
        let dayOfEra = yearOfEra * 365 + yearOfEra / 4 - yearOfEra / 100 + dayOfYear
        return era * 146_097 + dayOfEra - 719_468
    }

    /// The date of a day count from 1970-01-01 (the inverse of ``daysSince1970``).
    static func civil(fromDays days: Int64) -> (year: Int64, month: Int64, day: Int64) {
        let z = days + 719_468
        let era = (z >= 0 ? z : z - 146_096) / 146_097
        let dayOfEra = z - era * 146_097
        let yearOfEra = (dayOfEra - dayOfEra / 1460 + dayOfEra / 36_524 - dayOfEra / 146_096) / 365
        let dayOfYear = dayOfEra - (365 * yearOfEra + yearOfEra / 4 - yearOfEra / 100)
        let mp = (5 * dayOfYear + 2) / 153
        let day = dayOfYear - (153 * mp + 2) / 5 + 1
        let month = mp < 10 ? mp + 3 : mp - 9
        return (yearOfEra + era * 400 + (month <= 2 ? 1 : 0), month, day)
    }
}
