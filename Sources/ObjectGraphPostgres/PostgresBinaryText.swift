// PostgreSQL's binary forms of numeric, date and time values, read into the text a store
// gets for them (postgres-nio asks for every column in binary).
import NIOCore

/// A binary `numeric` as its exact decimal text (a Decimal column's value, or a sum).
enum PostgresNumericText {
    /// Reads a binary numeric: digit count, weight (of the first base-10000 digit), sign,
    /// display scale, then the digits. Plain notation to the display scale, as PostgreSQL
    /// prints it (`-12.340`, `0.0001`), or `NaN`, `Infinity`, `-Infinity`; nil when the bytes
    /// are not one.
    static func text(_ buffer: inout ByteBuffer) -> String? {
        guard let count = buffer.readInteger(as: Int16.self), let firstWeight = buffer.readInteger(as: Int16.self),
            let sign = buffer.readInteger(as: UInt16.self), let scale = buffer.readInteger(as: Int16.self), count >= 0, scale >= 0
        else { return nil }
        switch sign {
        case 0xC000: return "NaN"
        case 0xD000: return "Infinity"
        case 0xF000: return "-Infinity"
        case 0x0000, 0x4000: break
        default: return nil
        }
        var digits: [Int16] = []
        for _ in 0..<count {
            guard let digit = buffer.readInteger(as: Int16.self), (0..<10_000).contains(digit) else { return nil }
            digits.append(digit)
        }
        guard buffer.readableBytes == 0 else { return nil }
        func group(_ index: Int) -> Int16 { index >= 0 && index < digits.count ? digits[index] : 0 }
        func padded(_ digit: Int16) -> String {
            let text = String(digit)
            return String(repeating: "0", count: 4 - text.count) + text
        }
        var text = sign == 0x4000 ? "-" : ""
        let weight = Int(firstWeight)
        if weight < 0 {
            text += "0"
        } else {
            text += String(group(0))
            for index in stride(from: 1, through: weight, by: 1) { text += padded(group(index)) }
        }
        if scale > 0 {
            // The fraction to the display scale, as PostgreSQL prints it (`1.50` stays `1.50`).
            var fraction = ""
            var index = weight + 1
            while fraction.count < Int(scale) {
                fraction += padded(group(index))
                index += 1
            }
            text += "." + fraction.prefix(Int(scale))
        }
        return text
    }
}

/// Binary dates and times (days or microseconds since 2000-01-01) in PostgreSQL's ISO style.
enum PostgresDateText {
    private static let unixDaysAt2000: Int64 = 10_957
    private static let microsecondsPerDay: Int64 = 86_400_000_000

    /// `2024-03-05`, `infinity`, `-infinity`, `0044-03-15 BC`.
    static func date(daysSince2000 days: Int64) -> String {
        if days == Int64(Int32.max) { return "infinity" }
        if days == Int64(Int32.min) { return "-infinity" }
        let (year, month, day) = civil(unixDays: days + unixDaysAt2000)
        let bc = year <= 0
        return "\(pad(bc ? 1 - year : year, 4))-\(pad(month, 2))-\(pad(day, 2))\(bc ? " BC" : "")"
    }

    /// `13:45:07` or `13:45:07.25` (microseconds since midnight).
    static func time(microseconds: Int64) -> String {
        let seconds = microseconds / 1_000_000
        var text = "\(pad(seconds / 3600, 2)):\(pad(seconds / 60 % 60, 2)):\(pad(seconds % 60, 2))"
        let fraction = microseconds % 1_000_000
        if fraction != 0 {
            var digits = pad(fraction, 6)
            while digits.hasSuffix("0") { digits.removeLast() }
            text += "." + digits
        }
        return text
    }

    /// `2024-03-05 13:45:07.25`, followed by `zone` (`+00` for timestamptz, read in UTC).
    static func timestamp(microsecondsSince2000 value: Int64, zone: String?) -> String {
        if value == .max { return "infinity" }
        if value == .min { return "-infinity" }
        let (days, remainder) = value.quotientAndRemainder(dividingBy: microsecondsPerDay)
        let (day, microseconds) = remainder < 0 ? (days - 1, remainder + microsecondsPerDay) : (days, remainder)
        var text = date(daysSince2000: day)
        let bc = text.hasSuffix(" BC")
        if bc { text.removeLast(3) }
        text += " " + time(microseconds: microseconds) + (zone ?? "") + (bc ? " BC" : "")
        return text
    }

    /// Year, month and day of a count of days since 1970-01-01 (proleptic Gregorian; Howard
    /// Hinnant's civil_from_days).
    private static func civil(unixDays: Int64) -> (year: Int64, month: Int64, day: Int64) {
        let z = unixDays + 719_468
        let era = (z >= 0 ? z : z - 146_096) / 146_097
        let dayOfEra = z - era * 146_097
        let yearOfEra = (dayOfEra - dayOfEra / 1460 + dayOfEra / 36_524 - dayOfEra / 146_096) / 365
        let dayOfYear = dayOfEra - (365 * yearOfEra + yearOfEra / 4 - yearOfEra / 100)
        let shiftedMonth = (5 * dayOfYear + 2) / 153
        let day = dayOfYear - (153 * shiftedMonth + 2) / 5 + 1
        let month = shiftedMonth < 10 ? shiftedMonth + 3 : shiftedMonth - 9
        return (yearOfEra + era * 400 + (month <= 2 ? 1 : 0), month, day)
    }

    private static func pad(_ value: Int64, _ width: Int) -> String {
        let text = String(value)
        return text.count >= width ? text : String(repeating: "0", count: width - text.count) + text
    }
}
