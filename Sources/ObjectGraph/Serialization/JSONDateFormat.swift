import Foundation

/// A date attribute's own format (MagicalRecord's `dateFormat`): a Unicode date pattern that
/// strings are read with, in UTC and the `en_US_POSIX` locale, or `UnixTime`, which reads
/// numbers as milliseconds since 1970. Used on its import's queue only.
final class JSONDateFormat {
    /// The pattern as the mapping or the model file gives it.
    let pattern: String
    /// Whether numbers are milliseconds since 1970 (the pattern is `UnixTime`).
    let isUnixTime: Bool
    private let formatter: DateFormatter?

    init(pattern: String) {
        self.pattern = pattern
        isUnixTime = pattern == ModelUserInfoKey.unixTime
        if isUnixTime {
            formatter = nil
        } else {
            // MagicalRecord reads in GMT; the POSIX locale keeps month names and digits the
            // same on every machine (its `currentLocale` would not).
            let formatter = DateFormatter()
            formatter.locale = Locale(identifier: "en_US_POSIX")
            formatter.calendar = Calendar(identifier: .gregorian)
            formatter.timeZone = TimeZone(secondsFromGMT: 0)
            formatter.dateFormat = pattern
            formatter.isLenient = false
            self.formatter = formatter
        }
    }

    /// The date `text` names in the pattern, or nil when it does not match the pattern whole.
    func date(from text: String) -> Date? {
        guard let formatter, let date = formatter.date(from: text) else { return nil }
        return date
    }

    /// What an attribute with this format takes, for messages.
    var expected: String {
        isUnixTime
            ? "milliseconds since 1970 (its dateFormat is UnixTime) or an ISO 8601 date"
            : "a date in its format \"\(pattern)\" (or ISO 8601, or seconds or milliseconds since 1970)"
    }
}
