import Foundation

/// Whether a value is JSON's `null`, checked on its type: `value is NSNull` would bridge a
/// string or a dictionary to Foundation first.
@inline(__always)
func isJSONNull(_ value: Any) -> Bool { type(of: value) is NSNull.Type }

/// Why a JSON value cannot be an attribute's value: what the attribute takes.
struct JSONValueProblem: Error {
    let expected: String
}

// Attribute values to and from JSON-ready values (what `JSONSerialization` reads and writes).
extension AttributeDescription {
    /// The JSON-ready form of a stored value: `NSNull`, `Bool`, a number, a `String`, or for
    /// a `Codable` attribute the JSON object or array its encoding holds.
    func jsonValue(of stored: SlotValue, options: JSONExportOptions) -> Any {
        switch stored {
        case .null, .unloaded, .object, .objects: return NSNull()
        case .int(let value):
            return attributeType == .boolean ? value != 0 : Int(value)
        case .double(let value):
            guard attributeType == .date else { return value }
            switch options.dates {
            case .iso8601:
                // A date past any calendar day (only another program's store, or code, puts
                // one there): its exact seconds since 1970, as `.secondsSince1970` writes them.
                let date = Date(timeIntervalSinceReferenceDate: value)
                return ISO8601Date.canFormat(date) ? ISO8601Date.format(date) : date.timeIntervalSince1970
            case .secondsSince1970: return value + Date.timeIntervalBetween1970AndReferenceDate
            case .millisecondsSince1970: return ((value + Date.timeIntervalBetween1970AndReferenceDate) * 1000).rounded()
            }
        case .decimal(let value):
            return options.decimals == .string ? value.description : value
        case .text(let value): return value
        case .uuid(let value): return value.uuidString
        case .url(let value): return value.absoluteString
        case .blob(let data):
            if attributeType == .uuid, data.count == 16 { return UUID(blobData: data).uuidString }
            if attributeType == .transformable,
               let json = try? JSONParser.parse(data, numbers: .foundation) {
                return json
            }
            return data.base64EncodedString()
        }
    }

    /// The stored value of a JSON value (or of a Swift value of the attribute's type),
    /// accepting numbers and booleans given as strings, a number for a string (its exact
    /// text), ISO 8601 and epoch dates (and dates in the attribute's own `dateFormat`),
    /// base64 data, and JSON for a `Codable` attribute. Nothing that rounds.
    ///
    /// - Throws: ``JSONValueProblem`` saying what the attribute takes.
    func slotValue(fromJSON value: Any, dateNumbers: JSONImportOptions.DateNumbers,
                   dateFormat: JSONDateFormat? = nil) throws(JSONValueProblem) -> SlotValue {
        if isJSONNull(value) { return .null }
        switch attributeType {
        case .integer16: return .int(try Self.integer(value, in: Int64(Int16.min)...Int64(Int16.max), "an integer from -32768 to 32767"))
        case .integer32: return .int(try Self.integer(value, in: Int64(Int32.min)...Int64(Int32.max), "a 32-bit integer"))
        case .integer64: return .int(try Self.integer(value, in: Int64.min...Int64.max, "an integer"))
        case .double, .float:
            guard let number = Self.floatingPoint(value, float: attributeType == .float) else { throw JSONValueProblem(expected: "a number") }
            // Past the type's range is no infinity, whether the number came as a number or as
            // a string ("1e400"). (A Double value handed over by code is taken as it is.)
            guard !number.isInfinite || !(value is JSONNumber || value is String) else {
                throw JSONValueProblem(expected: "a number within \(attributeType == .float ? "Float" : "Double")'s range")
            }
            return .double(number)
        case .decimal:
            if let decimal = value as? Decimal { return .decimal(decimal) }
            if let text = Self.numberText(value), let decimal = Decimal(string: text) { return .decimal(decimal) }
            throw JSONValueProblem(expected: "a decimal number")
        case .boolean:
            guard let flag = Self.boolean(value) else { throw JSONValueProblem(expected: "true or false (or \"true\", \"false\", 1, 0)") }
            return .int(flag ? 1 : 0)
        case .string:
            if let text = value as? String { return .text(text) }
            // A number's exact text (`10248909829`), as MagicalRecord takes it; never a boolean.
            guard let text = Self.exactText(ofNumber: value) else { throw JSONValueProblem(expected: "a string (or a number, taken as its text)") }
            return .text(text)
        case .date:
            guard let date = Self.date(value, dateNumbers, dateFormat) else {
                throw JSONValueProblem(expected: dateFormat?.expected ?? "an ISO 8601 date (\"2024-05-01T09:30:00Z\") or seconds or milliseconds since 1970")
            }
            // A date the export could not write back (no calendar day that far) is no date.
            guard ISO8601Date.canFormat(date) else {
                throw JSONValueProblem(expected: "a date within about 2.5e13 years of 1970 (this one is \(date.timeIntervalSince1970) seconds away)")
            }
            return .double(date.timeIntervalSinceReferenceDate)
        case .binary:
            if let data = value as? Data { return .blob(data) }
            guard let text = value as? String, let data = Data(base64Encoded: text) else { throw JSONValueProblem(expected: "base64 data") }
            return .blob(data)
        case .uuid:
            if let uuid = value as? UUID { return .uuid(uuid) }
            guard let text = value as? String, let uuid = UUID(uuidString: text) else { throw JSONValueProblem(expected: "a UUID string") }
            return .uuid(uuid)
        case .uri:
            if let url = value as? URL { return .url(url) }
            guard let text = value as? String, let url = URL(string: text) else { throw JSONValueProblem(expected: "a URL string") }
            return .url(url)
        case .transformable:
            return try codableValue(value)
        }
    }

    /// A `Codable` attribute's value from its JSON form, checked by decoding it as the
    /// attribute's type and stored in the codec's canonical encoding.
    private func codableValue(_ value: Any) throws(JSONValueProblem) -> SlotValue {
        let problem = JSONValueProblem(expected: "JSON for \(conversion.swiftTypeName)")
        guard let data = Self.jsonData(value),
              let typed = conversion.toAny(.blob(data)), let stored = conversion.fromAny(typed) else { throw problem }
        return stored
    }

    /// JSON text of a value: numbers as the import read them (``JSONNumber``, digit for
    /// digit), else what `JSONSerialization` writes of Swift and Foundation values.
    private static func jsonData(_ value: Any) -> Data? {
        var writer = JSONWriter(pretty: false)
        if (try? writer.write(value)) != nil { return Data(writer.bytes) }
        return try? JSONSerialization.data(withJSONObject: value, options: [.fragmentsAllowed])
    }

    // MARK: Lenient readers

    private static func integer(_ value: Any, in range: ClosedRange<Int64>, _ expected: String) throws(JSONValueProblem) -> Int64 {
        var result: Int64?
        if let number = value as? JSONNumber {
            result = number.integer
        } else if let number = Self.number(value), !isBoolean(number) {
            switch number.objCType.pointee {
            case 0x64, 0x66: result = Int64(exactly: number.doubleValue)   // "d", "f": 42.0 is 42, 4.5 is no integer
            case 0x51: result = Int64(exactly: number.uint64Value)          // "Q": above Int64.max
            default: result = number.int64Value
            }
        } else if let text = value as? String {
            let trimmed = text.trimmingCharacters(in: .whitespaces)
            // A JSON number in a string is read from its digits, as one outside a string; any
            // other numeric text (`+5`, `0x10`) through a `Double` only where it is exact.
            if let number = Self.jsonNumber(inString: trimmed) {
                result = number.integer
            } else {
                result = Int64(trimmed) ?? Double(trimmed).flatMap { abs($0) <= 0x1p53 ? Int64(exactly: $0) : nil }
            }
        }
        guard let result, range.contains(result) else { throw JSONValueProblem(expected: expected) }
        return result
    }

    /// A Double or Float attribute's value, read from a number's or a string's text when
    /// there is one (correctly rounded, a Float's straight from the text).
    private static func floatingPoint(_ value: Any, float: Bool) -> Double? {
        if let number = value as? JSONNumber { return float ? number.float.map(Double.init) : number.double }
        if let text = value as? String {
            let trimmed = text.trimmingCharacters(in: .whitespaces)
            return float ? Float(trimmed).map(Double.init) : Double(trimmed)
        }
        guard let number = Self.number(value), !isBoolean(number) else { return nil }
        return float ? Double(number.floatValue) : number.doubleValue
    }

    /// A number's exact text, for Decimal: the number as written, or the string if it holds one.
    private static func numberText(_ value: Any) -> String? {
        if let number = value as? JSONNumber { return number.text }
        if let number = Self.number(value) { return isBoolean(number) ? nil : number.description }
        guard let text = value as? String else { return nil }
        let trimmed = text.trimmingCharacters(in: .whitespaces)
        if let number = jsonNumber(inString: trimmed) { return number.text }
        // Other numeric text `Decimal(string:)` reads whole (`+5`, `.5`): not a hexadecimal
        // `0x10`, which it reads as 0, nor an infinity or NaN, which it cannot read.
        guard let double = Double(trimmed), double.isFinite, !trimmed.lowercased().contains("x") else { return nil }
        return trimmed
    }

    /// The number a string holds when the string is a JSON number (`"42"`, `"1e3"`), so that
    /// it is read from its digits as a number outside a string is; nil for any other text.
    private static func jsonNumber(inString trimmed: String) -> JSONNumber? {
        guard trimmed.first.map({ $0 == "-" || $0.isASCII && $0.isNumber }) == true else { return nil }
        return (try? JSONParser.parse(Data(trimmed.utf8))) as? JSONNumber
    }

    private static func boolean(_ value: Any) -> Bool? {
        if let number = value as? JSONNumber {
            switch number.integer { case 0: return false; case 1: return true; default: return nil }
        }
        if let number = Self.number(value) {
            if isBoolean(number) { return number.boolValue }
            switch number.int64Value { case 0: return false; case 1: return true; default: return nil }
        }
        guard let text = value as? String else { return nil }
        switch text.trimmingCharacters(in: .whitespaces).lowercased() {
        case "true", "yes", "1": return true
        case "false", "no", "0": return false
        default: return nil
        }
    }

    /// A date from a `Date`, a number (in `numbers`' unit, or milliseconds for a `UnixTime`
    /// format), or a string: in the attribute's format first when it has one, else ISO 8601,
    /// else a number's text.
    private static func date(_ value: Any, _ numbers: JSONImportOptions.DateNumbers, _ format: JSONDateFormat?) -> Date? {
        if let date = value as? Date { return date }
        let numbers = format?.isUnixTime == true ? .millisecondsSince1970 : numbers
        if let number = value as? JSONNumber { return number.double.flatMap { date(fromNumber: $0, numbers) } }
        if let number = Self.number(value), !isBoolean(number) { return date(fromNumber: number.doubleValue, numbers) }
        guard let text = value as? String else { return nil }
        if let date = format?.date(from: text) { return date }
        if let date = ISO8601Date.parse(text) { return date }
        return Double(text.trimmingCharacters(in: .whitespaces)).flatMap { date(fromNumber: $0, numbers) }
    }

    /// A number's text, digit for digit: as the JSON wrote it, or an integer's digits, or the
    /// shortest text that reads back as the same `Double`. Nil for a boolean or a non-number.
    private static func exactText(ofNumber value: Any) -> String? {
        if let number = value as? JSONNumber { return number.text }
        if let decimal = value as? Decimal { return decimal.description }
        guard let number = Self.number(value), !isBoolean(number) else { return nil }
        switch number.objCType.pointee {
        case 0x64, 0x66: return number.doubleValue.isFinite ? "\(number.doubleValue)" : nil   // "d", "f"
        case 0x51: return "\(number.uint64Value)"                                                // "Q"
        default: return "\(number.int64Value)"
        }
    }

    private static func date(fromNumber number: Double, _ numbers: JSONImportOptions.DateNumbers) -> Date? {
        guard number.isFinite else { return nil }
        switch numbers {
        case .automatic: return Date(timeIntervalSince1970: abs(number) > 1e11 ? number / 1000 : number)
        case .secondsSince1970: return Date(timeIntervalSince1970: number)
        case .millisecondsSince1970: return Date(timeIntervalSince1970: number / 1000)
        case .secondsSinceReferenceDate: return Date(timeIntervalSinceReferenceDate: number)
        }
    }

    /// The value as a number: an `NSNumber` (what `JSONSerialization` reads) or a Swift
    /// number or `Bool`. A string is never bridged to Foundation only to fail the cast.
    private static func number(_ value: Any) -> NSNumber? {
        let type = type(of: value)
        if type is NSNumber.Type { return (value as! NSNumber) }
        if type == String.self { return nil }
        return value as? NSNumber
    }

    /// Whether a number is a boolean: JSON's `true`/`false`, or a Swift `Bool`.
    private static func isBoolean(_ number: NSNumber) -> Bool {
        number.objCType.pointee == 0x63   // "c": how Foundation marks a boolean NSNumber
    }
}
