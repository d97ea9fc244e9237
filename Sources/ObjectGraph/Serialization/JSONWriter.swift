import Foundation

/// Writes JSON-ready values (what ``JSONExporter`` makes: `String`, `Int`, `Double`, `Bool`,
/// `Decimal`, `NSNull`, dictionaries and arrays of them, and the `NSNumber`s of a parsed
/// `Codable` attribute) as UTF-8 JSON text, several times faster than `JSONSerialization`
/// on Linux for an export's many small dictionaries. Every `Double` is written so that it
/// reads back bit for bit (`-0.0` included), and a ``JSONNumber`` as its text.
package struct JSONWriter {
    package private(set) var bytes: [UInt8] = []
    /// Keys sorted and two-space indentation.
    let pretty: Bool
    /// Keys sorted (always when `pretty`), for output that is the same in every run.
    let sortsKeys: Bool

    package init(pretty: Bool, sortsKeys: Bool = false, capacity: Int = 0) {
        self.pretty = pretty
        self.sortsKeys = pretty || sortsKeys
        bytes.reserveCapacity(capacity)
    }

    package mutating func write(_ value: Any, depth: Int = 0) throws(JSONExportError) {
        // Exact types first: a cast of a Swift value to a class type (NSNumber, NSNull)
        // would bridge it to Foundation first, which costs more than the whole write.
        let type = type(of: value)
        if let object = value as? [String: Any] {
            try writeObject(object, depth: depth)
        } else if let text = value as? String {
            writeString(text)
        } else if type == Int.self {
            append(String(value as! Int))
        } else if type == Double.self {
            try writeDouble(value as! Double)
        } else if type == Bool.self {
            append(value as! Bool ? "true" : "false")
        } else if type == JSONNumber.self {
            append((value as! JSONNumber).text)
        } else if type is NSNumber.Type {
            // Parsed JSON (a Codable attribute): booleans are marked "c".
            let number = value as! NSNumber
            switch number.objCType.pointee {
            case 0x63: append(number.boolValue ? "true" : "false")
            case 0x64, 0x66: try writeDouble(number.doubleValue)
            default: append(number.description)
            }
        } else if isJSONNull(value) {
            append("null")
        } else if type == Decimal.self {
            append((value as! Decimal).description)
        } else if let array = value as? [Any] {
            try writeArray(array, depth: depth)
        } else {
            throw JSONExportError(message: "a \(type) cannot be written as JSON")
        }
    }

    private mutating func writeObject(_ object: [String: Any], depth: Int) throws(JSONExportError) {
        bytes.append(UInt8(ascii: "{"))
        var first = true
        func member(_ key: String, _ value: Any) throws(JSONExportError) {
            if !first { bytes.append(UInt8(ascii: ",")) }
            first = false
            newline(depth + 1)
            writeString(key)
            bytes.append(UInt8(ascii: ":"))
            if pretty { bytes.append(UInt8(ascii: " ")) }
            try write(value, depth: depth + 1)
        }
        if sortsKeys {
            for key in object.keys.sorted() { try member(key, object[key]!) }
        } else {
            for (key, value) in object { try member(key, value) }
        }
        if !object.isEmpty { newline(depth) }
        bytes.append(UInt8(ascii: "}"))
    }

    private mutating func writeArray(_ array: [Any], depth: Int) throws(JSONExportError) {
        bytes.append(UInt8(ascii: "["))
        for (index, element) in array.enumerated() {
            if index > 0 { bytes.append(UInt8(ascii: ",")) }
            newline(depth + 1)
            try write(element, depth: depth + 1)
        }
        if !array.isEmpty { newline(depth) }
        bytes.append(UInt8(ascii: "]"))
    }

    private mutating func newline(_ depth: Int) {
        guard pretty else { return }
        bytes.append(UInt8(ascii: "\n"))
        bytes.append(contentsOf: repeatElement(UInt8(ascii: " "), count: depth * 2))
    }

    private mutating func writeDouble(_ value: Double) throws(JSONExportError) {
        guard value.isFinite else {
            throw JSONExportError(message: "\(value) is not a JSON number: a Double or Float attribute holds it; store a finite value (or nil) before exporting")
        }
        append(Self.text(of: value))
    }

    /// A finite `Double` as JSON text that reads back bit for bit: `3` (not `3.0`, as
    /// `JSONSerialization` writes it) for an integer below 10^15, `-0.0` for negative zero,
    /// else Swift's shortest exact form (`0.30000000000000004`, `5e-324`).
    package static func text(of value: Double) -> String {
        if value == 0 { return value.sign == .minus ? "-0.0" : "0" }
        if value == value.rounded(), abs(value) < 1e15 { return String(Int64(value)) }
        return value.description
    }

    private mutating func append(_ text: String) {
        bytes.append(contentsOf: text.utf8)
    }

    private mutating func writeString(_ text: String) {
        bytes.append(UInt8(ascii: "\""))
        let utf8 = text.utf8
        if !utf8.contains(where: { $0 < 0x20 || $0 == UInt8(ascii: "\"") || $0 == UInt8(ascii: "\\") }) {
            bytes.append(contentsOf: utf8)
        } else {
            for byte in utf8 {
                switch byte {
                case UInt8(ascii: "\""): append("\\\"")
                case UInt8(ascii: "\\"): append("\\\\")
                case UInt8(ascii: "\n"): append("\\n")
                case UInt8(ascii: "\r"): append("\\r")
                case UInt8(ascii: "\t"): append("\\t")
                case 0..<0x20:
                    let hex = String(byte, radix: 16)
                    append("\\u" + String(repeating: "0", count: 4 - hex.count) + hex)
                default: bytes.append(byte)
                }
            }
        }
        bytes.append(UInt8(ascii: "\""))
    }
}

/// An export that meets a value JSON cannot hold (an infinite or NaN number).
public struct JSONExportError: Error, CustomStringConvertible {
    /// What cannot be written, and what to do.
    public let message: String
    public var description: String { "JSON export error: \(message)" }
}
