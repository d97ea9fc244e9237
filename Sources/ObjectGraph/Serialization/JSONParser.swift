import Foundation

/// Why a text is not JSON: what was found, and where.
package struct JSONParseError: Error, CustomStringConvertible {
    /// What is wrong (`unexpected character '}'`).
    package let message: String
    /// Where, 1-based, counted in lines and bytes.
    package let line: Int, column: Int

    package var description: String { "\(message) at line \(line), column \(column)" }
}

/// Reads JSON text (RFC 8259) as the import takes it: objects as `[String: Any]`, arrays as
/// `[Any]`, strings as `String`, `true` and `false` as boolean `NSNumber`s, `null` as
/// `NSNull`, and every number as a ``JSONNumber`` that keeps its text, so that no digit is
/// lost before the attribute it is for reads it. Any value may stand at the top (a
/// fragment); a UTF-8 byte order mark is skipped, and UTF-16 or UTF-32 text with one is read.
package struct JSONParser {
    /// What numbers are read as.
    package enum Numbers {
        /// ``JSONNumber``s, which keep the text (what the import reads).
        case text
        /// `NSNumber`s, as `JSONSerialization` makes them, but read exactly: an `Int64` (or
        /// `UInt64`) when the number is one, else the nearest `Double` (for values handed
        /// to callers of the public API).
        case foundation
    }

    /// Nesting deeper than this is refused rather than risking the stack.
    static let maximumDepth = 512

    private let bytes: UnsafeBufferPointer<UInt8>
    private let numbers: Numbers
    private var index: Int
    private var depth = 0

    private init(_ bytes: UnsafeBufferPointer<UInt8>, numbers: Numbers) {
        self.bytes = bytes
        self.numbers = numbers
        let bom: [UInt8] = [0xEF, 0xBB, 0xBF]
        index = bytes.count >= 3 && Array(bytes[0..<3]) == bom ? 3 : 0
    }

    /// The value `data` holds.
    ///
    /// - Throws: ``JSONParseError`` naming the line and column of the first thing that is
    ///   not JSON (or of the end, when the text stops short).
    package static func parse(_ data: Data, numbers: Numbers = .text) throws -> Any {
        if let text = Self.unicodeText(data) { return try parse(Data(text.utf8), numbers: numbers) }
        return try data.withUnsafeBytes { raw in
            var parser = JSONParser(raw.bindMemory(to: UInt8.self), numbers: numbers)
            parser.skipWhitespace()
            let value = try parser.value()
            parser.skipWhitespace()
            guard parser.index == parser.bytes.count else { throw parser.failure("unexpected text after the JSON value") }
            return value
        }
    }

    /// UTF-16 or UTF-32 text marked by its byte order mark, decoded; nil for anything else
    /// (UTF-8 is read as it is).
    private static func unicodeText(_ data: Data) -> String? {
        let head = Array(data.prefix(4))
        if head.starts(with: [0x00, 0x00, 0xFE, 0xFF]) { return String(data: data, encoding: .utf32BigEndian).map { String($0.dropFirst()) } }
        if head.starts(with: [0xFF, 0xFE, 0x00, 0x00]) { return String(data: data, encoding: .utf32LittleEndian).map { String($0.dropFirst()) } }
        if head.starts(with: [0xFE, 0xFF]) { return String(data: data, encoding: .utf16BigEndian).map { String($0.dropFirst()) } }
        if head.starts(with: [0xFF, 0xFE]) { return String(data: data, encoding: .utf16LittleEndian).map { String($0.dropFirst()) } }
        return nil
    }

    // MARK: Values

    private mutating func value() throws -> Any {
        guard index < bytes.count else { throw failure("the text ends where a value should be") }
        switch bytes[index] {
        case UInt8(ascii: "{"): return try object()
        case UInt8(ascii: "["): return try array()
        case UInt8(ascii: "\""): return try string()
        case UInt8(ascii: "t"): try literal("true"); return NSNumber(value: true)
        case UInt8(ascii: "f"): try literal("false"); return NSNumber(value: false)
        case UInt8(ascii: "n"): try literal("null"); return NSNull()
        case UInt8(ascii: "-"), UInt8(ascii: "0")...UInt8(ascii: "9"): return try number()
        default: throw failure("unexpected \(characterName(at: index)) where a value should be")
        }
    }

    private mutating func object() throws -> [String: Any] {
        try enter()
        defer { depth -= 1 }
        index += 1
        var result: [String: Any] = [:]
        skipWhitespace()
        if take(UInt8(ascii: "}")) { return result }
        while true {
            guard index < bytes.count, bytes[index] == UInt8(ascii: "\"") else {
                throw failure(index < bytes.count ? "unexpected \(characterName(at: index)) where a key (a string) should be" : "the text ends inside an object")
            }
            let key = try string()
            skipWhitespace()
            guard take(UInt8(ascii: ":")) else { throw failure("a ':' should follow the key \"\(key)\"") }
            skipWhitespace()
            result[key] = try value()
            skipWhitespace()
            if take(UInt8(ascii: ",")) { skipWhitespace(); continue }
            if take(UInt8(ascii: "}")) { return result }
            throw failure(index < bytes.count ? "unexpected \(characterName(at: index)) in an object (a ',' or '}' should be here)" : "the text ends inside an object")
        }
    }

    private mutating func array() throws -> [Any] {
        try enter()
        defer { depth -= 1 }
        index += 1
        var result: [Any] = []
        skipWhitespace()
        if take(UInt8(ascii: "]")) { return result }
        while true {
            result.append(try value())
            skipWhitespace()
            if take(UInt8(ascii: ",")) { skipWhitespace(); continue }
            if take(UInt8(ascii: "]")) { return result }
            throw failure(index < bytes.count ? "unexpected \(characterName(at: index)) in an array (a ',' or ']' should be here)" : "the text ends inside an array")
        }
    }

    private mutating func enter() throws {
        depth += 1
        if depth > Self.maximumDepth { throw failure("the JSON nests deeper than \(Self.maximumDepth) levels") }
    }

    private mutating func literal(_ word: StaticString) throws {
        let count = word.utf8CodeUnitCount
        guard index + count <= bytes.count,
              word.withUTF8Buffer({ $0.elementsEqual(bytes[index..<index + count]) }) else {
            throw failure("unexpected \(characterName(at: index)) where a value should be")
        }
        index += count
    }

    /// A number, checked against JSON's grammar, kept as its text (or an exact `NSNumber`).
    private mutating func number() throws -> Any {
        let start = index
        func digits() -> Int {
            let first = index
            while index < bytes.count, bytes[index] >= UInt8(ascii: "0"), bytes[index] <= UInt8(ascii: "9") { index += 1 }
            return index - first
        }
        _ = take(UInt8(ascii: "-"))
        let integerStart = index
        let integerDigits = digits()
        guard integerDigits > 0 else { throw failure("a digit should follow '-'") }
        if integerDigits > 1, bytes[integerStart] == UInt8(ascii: "0") {
            throw failure("a number does not start with 0 followed by digits", at: integerStart)
        }
        if take(UInt8(ascii: ".")) {
            guard digits() > 0 else { throw failure("a digit should follow the decimal point") }
        }
        if take(UInt8(ascii: "e")) || take(UInt8(ascii: "E")) {
            if !take(UInt8(ascii: "+")) { _ = take(UInt8(ascii: "-")) }
            guard digits() > 0 else { throw failure("a digit should follow the exponent's 'e'") }
        }
        let number = JSONNumber(text: String(decoding: UnsafeBufferPointer(rebasing: bytes[start..<index]), as: UTF8.self))
        return numbers == .text ? number : number.foundationNumber
    }

    /// A string: its escapes decoded, its UTF-8 checked.
    private mutating func string() throws -> String {
        index += 1
        let start = index
        // Most strings have no escape: their bytes are the string.
        while index < bytes.count {
            let byte = bytes[index]
            if byte == UInt8(ascii: "\"") {
                let text = try utf8String(start..<index)
                index += 1
                return text
            }
            if byte == UInt8(ascii: "\\") { break }
            if byte < 0x20 { throw failure("a control character (\(characterName(at: index))) inside a string must be escaped") }
            index += 1
        }
        var scalars = String.UnicodeScalarView()
        scalars.append(contentsOf: try utf8String(start..<index).unicodeScalars)
        var runStart = index
        while index < bytes.count {
            let byte = bytes[index]
            if byte == UInt8(ascii: "\"") {
                scalars.append(contentsOf: try utf8String(runStart..<index).unicodeScalars)
                index += 1
                return String(scalars)
            }
            if byte < 0x20 { throw failure("a control character (\(characterName(at: index))) inside a string must be escaped") }
            guard byte == UInt8(ascii: "\\") else { index += 1; continue }
            scalars.append(contentsOf: try utf8String(runStart..<index).unicodeScalars)
            scalars.append(try escape())
            runStart = index
        }
        throw failure("the text ends inside a string")
    }

    /// The escape at `index` (its backslash), decoded.
    private mutating func escape() throws -> Unicode.Scalar {
        let start = index
        index += 1
        guard index < bytes.count else { throw failure("the text ends inside a string") }
        let byte = bytes[index]
        index += 1
        switch byte {
        case UInt8(ascii: "\""): return "\""
        case UInt8(ascii: "\\"): return "\\"
        case UInt8(ascii: "/"): return "/"
        case UInt8(ascii: "b"): return "\u{8}"
        case UInt8(ascii: "f"): return "\u{C}"
        case UInt8(ascii: "n"): return "\n"
        case UInt8(ascii: "r"): return "\r"
        case UInt8(ascii: "t"): return "\t"
        case UInt8(ascii: "u"):
            let unit = try hex4()
            if UTF16.isLeadSurrogate(unit) {
                guard take(UInt8(ascii: "\\")), take(UInt8(ascii: "u")) else {
                    throw failure("\\u\(String(unit, radix: 16)) is half of a surrogate pair without its other half", at: start)
                }
                let trail = try hex4()
                guard UTF16.isTrailSurrogate(trail) else {
                    throw failure("\\u\(String(unit, radix: 16)) is half of a surrogate pair without its other half", at: start)
                }
                return Unicode.Scalar(0x10000 + ((UInt32(unit) - 0xD800) << 10) + (UInt32(trail) - 0xDC00))!
            }
            guard let scalar = Unicode.Scalar(unit) else {
                throw failure("\\u\(String(unit, radix: 16)) is half of a surrogate pair without its other half", at: start)
            }
            return scalar
        default:
            throw failure("\\\(characterName(at: index - 1)) is not an escape JSON has", at: start)
        }
    }

    private mutating func hex4() throws -> UInt16 {
        guard index + 4 <= bytes.count else { throw failure("the text ends inside a \\u escape") }
        var value: UInt16 = 0
        for _ in 0..<4 {
            let byte = bytes[index]
            let digit: UInt8
            switch byte {
            case UInt8(ascii: "0")...UInt8(ascii: "9"): digit = byte - UInt8(ascii: "0")
            case UInt8(ascii: "a")...UInt8(ascii: "f"): digit = byte - UInt8(ascii: "a") + 10
            case UInt8(ascii: "A")...UInt8(ascii: "F"): digit = byte - UInt8(ascii: "A") + 10
            default: throw failure("a \\u escape takes four hexadecimal digits, not \(characterName(at: index))")
            }
            value = value << 4 | UInt16(digit)
            index += 1
        }
        return value
    }

    private func utf8String(_ range: Range<Int>) throws -> String {
        guard let text = String(validating: UnsafeBufferPointer(rebasing: bytes[range]), as: UTF8.self) else {
            throw failure("a string holds bytes that are not UTF-8", at: range.lowerBound)
        }
        return text
    }

    // MARK: Reading

    private mutating func skipWhitespace() {
        while index < bytes.count {
            switch bytes[index] {
            case 0x20, 0x0A, 0x0D, 0x09: index += 1
            default: return
            }
        }
    }

    private mutating func take(_ byte: UInt8) -> Bool {
        guard index < bytes.count, bytes[index] == byte else { return false }
        index += 1
        return true
    }

    /// `'}'`, `byte 0x01`, or `the end of the text`.
    private func characterName(at position: Int) -> String {
        guard position < bytes.count else { return "the end of the text" }
        let byte = bytes[position]
        if byte >= 0x20 && byte < 0x7F { return "'\(Character(Unicode.Scalar(byte)))'" }
        return "byte 0x" + String(byte, radix: 16, uppercase: true)
    }

    private func failure(_ message: String, at position: Int? = nil) -> JSONParseError {
        let position = min(position ?? index, bytes.count)
        var line = 1, lineStart = 0
        for offset in 0..<position where bytes[offset] == 0x0A {
            line += 1
            lineStart = offset + 1
        }
        return JSONParseError(message: message, line: line, column: position - lineStart + 1)
    }
}
