import Foundation
import ObjectGraph

/// Values the library returns (`Date`, `UUID`, `Int16`, ...) in the form the JSON export
/// writes them, so every command prints a value the same way.
enum JSONReady {
    static func value(_ value: Any) -> Any {
        switch value {
        case let date as Date:
            // As the JSON export writes dates: UTC, milliseconds only when there are any,
            // expanded years beyond 9999, and seconds since 1970 past any calendar day.
            return ISO8601Date.canFormat(date) ? ISO8601Date.format(date) : date.timeIntervalSince1970
        case let uuid as UUID: return uuid.uuidString
        case let url as URL: return url.absoluteString
        case let data as Data: return data.base64EncodedString()
        case let number as Int16: return Int(number)
        case let number as Int32: return Int(number)
        case let number as Int64: return Int(number)
        case let number as Float: return Double(number)
        default: return value
        }
    }

    /// One value as JSON text, as the export writes it (numbers that read back bit for bit).
    static func text(_ value: Any) throws -> String {
        var writer = JSONWriter(pretty: false, sortsKeys: true)
        try writer.write(value)
        return String(decoding: writer.bytes, as: UTF8.self)
    }
}
