import Foundation
import ObjectGraph

/// The values one case of the value oracle (ValueOracleTests) sets on a ``ValueSample``:
/// integers at their extremes, doubles and floats from random bit patterns (subnormals, ±0,
/// ±infinity, NaN), Decimals from random digit strings of up to 38 digits with random
/// exponents and at their extremes, dates at the ends of a double, strings of every kind of
/// scalar (NUL, `\r\n`, combining marks, emoji).
struct ValueCase: CustomStringConvertible {
    var serial: Int
    var int16: Int16 = 0
    var int32: Int32 = 0
    var int64: Int64 = 0
    var double: Double = 0
    var float: Float = 0
    var decimal: Decimal = 0
    var optionalDouble: Double?
    var optionalFloat: Float?
    var optionalDecimal: Decimal?
    var date = Date(timeIntervalSinceReferenceDate: 0)
    var text = ""

    static func random(serial: Int, using random: inout GraphRandom) -> ValueCase {
        var value = ValueCase(serial: serial)
        value.int16 = integer(using: &random)
        value.int32 = integer(using: &random)
        value.int64 = integer(using: &random)
        value.double = double(using: &random)
        value.float = float(using: &random)
        value.decimal = decimal(using: &random)
        value.optionalDouble = Bool.random(using: &random) ? nil : double(using: &random)
        value.optionalFloat = Bool.random(using: &random) ? nil : float(using: &random)
        value.optionalDecimal = Bool.random(using: &random) ? nil : decimal(using: &random)
        value.date = date(using: &random)
        value.text = text(using: &random)
        return value
    }

    // MARK: Generators

    private static func integer<I: FixedWidthInteger & SignedInteger>(using random: inout GraphRandom) -> I {
        switch Int.random(in: 0..<4, using: &random) {
        case 0: return [I.min, I.max, 0, -1, 1, I.min + 1, I.max - 1].randomElement(using: &random)!
        default: return I(truncatingIfNeeded: random.next())
        }
    }

    static func double(using random: inout GraphRandom) -> Double {
        switch Int.random(in: 0..<8, using: &random) {
        case 0:
            return [0, -0.0, .infinity, -.infinity, .nan, .greatestFiniteMagnitude, -.greatestFiniteMagnitude,
                    .leastNonzeroMagnitude, -.leastNonzeroMagnitude, .leastNormalMagnitude, 0.1, 0.30000000000000004,
                    9_007_199_254_740_992, 9_007_199_254_740_994, Double(Int64.max), -Double(Int64.max)].randomElement(using: &random)!
        case 1:
            // A subnormal: exponent bits zero, a random fraction and sign.
            return Double(bitPattern: random.next() & 0x800F_FFFF_FFFF_FFFF)
        default:
            return Double(bitPattern: random.next())
        }
    }

    static func float(using random: inout GraphRandom) -> Float {
        switch Int.random(in: 0..<8, using: &random) {
        case 0:
            return [0, -0.0, .infinity, -.infinity, .nan, .greatestFiniteMagnitude, .leastNonzeroMagnitude,
                    -.leastNonzeroMagnitude, .leastNormalMagnitude, 0.1].randomElement(using: &random)!
        case 1: return Float(bitPattern: UInt32(truncatingIfNeeded: random.next()) & 0x807F_FFFF)
        default: return Float(bitPattern: UInt32(truncatingIfNeeded: random.next()))
        }
    }

    static func decimal(using random: inout GraphRandom) -> Decimal {
        switch Int.random(in: 0..<10, using: &random) {
        case 0:
            return [Decimal.greatestFiniteMagnitude, .leastFiniteMagnitude, .leastNonzeroMagnitude,
                    Decimal(sign: .minus, exponent: 0, significand: 0), .nan, 0, 1, -1,
                    Decimal(string: "0.1")!, Decimal(string: "12345678901234567890.123456789")!].randomElement(using: &random)!
        case 1...3:
            return digits(Int.random(in: 1...15, using: &random), exponent: Int.random(in: -20...20, using: &random), using: &random)
        default:
            return digits(Int.random(in: 1...38, using: &random), exponent: Int.random(in: -128...127, using: &random), using: &random)
        }
    }

    /// A random string of `count` digits times 10^exponent, with a random sign (0 when the
    /// exponent is out of Decimal's range).
    private static func digits(_ count: Int, exponent: Int, using random: inout GraphRandom) -> Decimal {
        let digits = String((0..<count).map { _ in Character(String(Int.random(in: 0...9, using: &random))) })
        let sign = Bool.random(using: &random) ? "-" : ""
        return Decimal(string: "\(sign)\(digits)e\(exponent)") ?? Decimal(string: "\(sign)\(digits)") ?? 0
    }

    static func date(using random: inout GraphRandom) -> Date {
        switch Int.random(in: 0..<4, using: &random) {
        case 0: return [Date.distantPast, .distantFuture, Date(timeIntervalSince1970: 0)].randomElement(using: &random)!
        case 1: return Date(timeIntervalSinceReferenceDate: Double(Int64.random(in: -100_000_000_000...100_000_000_000, using: &random)) / 1000)
        default: return Date(timeIntervalSinceReferenceDate: double(using: &random))
        }
    }

    private static let scalars: [String] = ["a", "Z", "0", " ", "\r\n", "\n", "\t", ",", "\"", "'", "\\", "é", "e\u{301}", "\u{301}",
                                            "ß", "中", "ש", "🚀", "👩‍👩‍👧", "\u{FEFF}", "\u{1}", "\u{7F}", "\u{10FFFF}", "\u{0}"]

    static func text(using random: inout GraphRandom) -> String {
        (0..<Int.random(in: 0...10, using: &random)).map { _ in
            // NUL about once in ten strings.
            let pick = scalars.randomElement(using: &random)!
            return pick == "\u{0}" && Int.random(in: 0..<3, using: &random) != 0 ? "x" : pick
        }.joined()
    }

    // MARK: The oracle

    /// The attributes a store of `kind` must refuse, by rules stated independently of the
    /// library's code (docs/stores.md): NaN anywhere; on SQLite, a Decimal of more than 15
    /// significant digits (counted in its text); on PostgreSQL, text holding NUL.
    func refusals(on kind: StoreKind) -> Set<String> {
        var refused: Set<String> = []
        let doubles: [(String, Double?)] = [("double", double), ("optionalDouble", optionalDouble), ("float", Double(float)),
                                            ("optionalFloat", optionalFloat.map(Double.init)),
                                            ("date", date.timeIntervalSinceReferenceDate)]
        for case let (name, value?) in doubles where value.isNaN { refused.insert(name) }
        let decimals: [(String, Decimal?)] = [("decimal", decimal), ("optionalDecimal", optionalDecimal)]
        for case let (name, value?) in decimals {
            if value.isNaN || (kind == .sqlite && Self.significantDigits(value) > 15) { refused.insert(name) }
        }
        if kind == .postgres && text.unicodeScalars.contains("\u{0}") { refused.insert("text") }
        return refused
    }

    /// The digits of `value`'s text without its sign, point, leading and trailing zeros.
    static func significantDigits(_ value: Decimal) -> Int {
        let digits = value.description.filter(\.isWholeNumber)
        let trimmed = digits.drop { $0 == "0" }
        return trimmed.reversed().drop { $0 == "0" }.count
    }

    /// Sets the attributes named in `keys` to a value every store keeps (the fix a caller makes).
    mutating func fix(_ keys: Set<String>) {
        for key in keys {
            switch key {
            case "double": double = 1
            case "float": float = 1
            case "decimal": decimal = 1
            case "optionalDouble": optionalDouble = nil
            case "optionalFloat": optionalFloat = nil
            case "optionalDecimal": optionalDecimal = nil
            case "date": date = Date(timeIntervalSinceReferenceDate: 1)
            case "text": text = String(String.UnicodeScalarView(text.unicodeScalars.filter { $0 != "\u{0}" }))
            default: break
            }
        }
    }

    func apply(to sample: ValueSample) {
        sample.serial = serial
        sample.int16 = int16
        sample.int32 = int32
        sample.int64 = int64
        sample.double = double
        sample.float = float
        sample.decimal = decimal
        sample.optionalDouble = optionalDouble
        sample.optionalFloat = optionalFloat
        sample.optionalDecimal = optionalDecimal
        sample.date = date
        sample.text = text
    }

    /// How `sample` differs from this case: bit for bit for doubles and floats, but for the
    /// sign of zero (setting -0.0 where 0.0 is is no change, as `==` says, and SQLite keeps
    /// -0.0 as 0) and a NaN's payload (a refused NaN stays a NaN in memory, a signaling one
    /// quieted); `==` and the same sign for Decimals; scalar for scalar for text.
    func differences(from sample: ValueSample) -> [String] {
        func sameDouble(_ a: Double?, _ b: Double?) -> Bool {
            guard let a, let b else { return a == nil && b == nil }
            return a.bitPattern == b.bitPattern || (a == 0 && b == 0) || (a.isNaN && b.isNaN)
        }
        func sameDecimal(_ a: Decimal?, _ b: Decimal?) -> Bool {
            guard let a, let b else { return a == nil && b == nil }
            return a == b && a.sign == b.sign && a.isNaN == b.isNaN
        }
        var found: [String] = []
        func check(_ name: String, _ equal: Bool, _ expected: Any?, _ actual: Any?) {
            if !equal { found.append("\(name): set \(expected.map { "\($0)" } ?? "nil"), read \(actual.map { "\($0)" } ?? "nil")") }
        }
        check("serial", sample.serial == serial, serial, sample.serial)
        check("int16", sample.int16 == int16, int16, sample.int16)
        check("int32", sample.int32 == int32, int32, sample.int32)
        check("int64", sample.int64 == int64, int64, sample.int64)
        check("double", sameDouble(double, sample.double), Self.bits(double), Self.bits(sample.double))
        check("float", sameDouble(Double(float), Double(sample.float)), Self.bits(Double(float)), Self.bits(Double(sample.float)))
        check("decimal", sameDecimal(decimal, sample.decimal), decimal, sample.decimal)
        check("optionalDouble", sameDouble(optionalDouble, sample.optionalDouble), optionalDouble.map(Self.bits), sample.optionalDouble.map(Self.bits))
        check("optionalFloat", sameDouble(optionalFloat.map(Double.init), sample.optionalFloat.map(Double.init)),
              optionalFloat.map { Self.bits(Double($0)) }, sample.optionalFloat.map { Self.bits(Double($0)) })
        check("optionalDecimal", sameDecimal(optionalDecimal, sample.optionalDecimal), optionalDecimal, sample.optionalDecimal)
        check("date", sameDouble(date.timeIntervalSinceReferenceDate, sample.date.timeIntervalSinceReferenceDate),
              Self.bits(date.timeIntervalSinceReferenceDate), Self.bits(sample.date.timeIntervalSinceReferenceDate))
        check("text", Array(text.unicodeScalars) == Array(sample.text.unicodeScalars), text.debugDescription, sample.text.debugDescription)
        return found
    }

    private static func bits(_ value: Double) -> String { "\(value) (0x\(String(value.bitPattern, radix: 16)))" }

    var description: String {
        "ValueCase(serial: \(serial), int16: \(int16), int32: \(int32), int64: \(int64), double: \(Self.bits(double)), "
            + "float: \(float) (0x\(String(float.bitPattern, radix: 16))), decimal: \(decimal), optionalDouble: \(optionalDouble.map(Self.bits) ?? "nil"), "
            + "optionalFloat: \(optionalFloat.map { "\($0)" } ?? "nil"), optionalDecimal: \(optionalDecimal.map { "\($0)" } ?? "nil"), "
            + "date: \(Self.bits(date.timeIntervalSinceReferenceDate)), text: \(text.debugDescription))"
    }
}
