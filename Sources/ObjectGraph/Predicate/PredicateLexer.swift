import Foundation

/// One token of a predicate format string, with its character offset.
struct PredicateToken: Equatable {
    enum Kind: Equatable {
        /// A bare word: a key or a keyword (keywords are matched case-insensitively).
        case word(String)
        /// A Foundation function name with its colons: `lowercase:`, `add:to:`.
        case selector(String)
        /// A word after `#`: always a key, even when it spells a keyword.
        case escapedWord(String)
        /// `@count`, `@sum`, ...
        case collectionOperator(String)
        case string(String)
        case number(PredicateValue)
        /// `$NAME`.
        case variable(String)
        /// `%@`, `%K`, `%d`, ... (without the `%`, lowercased length modifiers removed).
        case specifier(Character)
        /// Operators and punctuation: `==`, `(`, `{`, `,`, `.`, `[`, ...
        case symbol(String)
        case end
    }

    let kind: Kind
    let position: Int
}

/// Splits a format string into tokens. Positions are character offsets, 0-based.
struct PredicateLexer {
    private let characters: [Character]
    private let format: String
    private var index = 0

    init(_ format: String) {
        self.format = format
        self.characters = Array(format)
    }

    static let symbols = ["==", "!=", "<>", "<<", ">>", "<=", "=<", ">=", "=>", "&&", "||",
                          "**", "&", "|", "^", "~",
                          "=", "<", ">", "!", "(", ")", "{", "}", ",", ".", "[", "]", "-", "+", "*", "/"]

    mutating func tokenize() throws -> [PredicateToken] {
        var tokens: [PredicateToken] = []
        while true {
            let token = try next()
            tokens.append(token)
            if token.kind == .end { return tokens }
        }
    }

    private func isWordStart(_ c: Character) -> Bool { c.isLetter || c == "_" }
    private func isWordPart(_ c: Character) -> Bool { c.isLetter || c.isNumber || c == "_" }

    private mutating func next() throws -> PredicateToken {
        while index < characters.count, characters[index].isWhitespace { index += 1 }
        let start = index
        guard index < characters.count else { return PredicateToken(kind: .end, position: start) }
        let c = characters[index]
        if c == "\"" || c == "'" { return PredicateToken(kind: .string(try quoted(c)), position: start) }
        if c.isASCII && c.isNumber { return PredicateToken(kind: .number(try number()), position: start) }
        if isWordStart(c) {
            let name = word()
            guard index < characters.count, characters[index] == ":" else { return PredicateToken(kind: .word(name), position: start) }
            var selector = name
            while index < characters.count, characters[index] == ":" {     // add:to:
                index += 1
                selector += ":"
                if index < characters.count, isWordStart(characters[index]) { selector += word() }
            }
            return PredicateToken(kind: .selector(selector), position: start)
        }
        if c == "#" || c == "@" || c == "$" {
            index += 1
            guard index < characters.count, isWordStart(characters[index]) else {
                throw FetchPredicateError.syntax(c == "$" ? "a variable name after '$'" : "a key after '\(c)'", at: index, in: format)
            }
            let name = word()
            switch c {
            case "#": return PredicateToken(kind: .escapedWord(name), position: start)
            case "@": return PredicateToken(kind: .collectionOperator(name), position: start)
            default: return PredicateToken(kind: .variable(name), position: start)
            }
        }
        if c == "%" { return PredicateToken(kind: .specifier(try specifier()), position: start) }
        for symbol in Self.symbols where matches(symbol) {
            index += symbol.count
            return PredicateToken(kind: .symbol(symbol), position: start)
        }
        throw FetchPredicateError.syntax("a key, a value or an operator (found '\(c)')", at: start, in: format)
    }

    private func matches(_ symbol: String) -> Bool {
        var i = index
        for s in symbol {
            guard i < characters.count, characters[i] == s else { return false }
            i += 1
        }
        return true
    }

    private mutating func word() -> String {
        let start = index
        while index < characters.count, isWordPart(characters[index]) { index += 1 }
        return String(characters[start..<index])
    }

    private mutating func quoted(_ quote: Character) throws -> String {
        let start = index
        index += 1
        var text = ""
        while index < characters.count {
            let c = characters[index]
            index += 1
            if c == quote { return text }
            guard c == "\\" else { text.append(c); continue }
            guard index < characters.count else { break }
            let escaped = characters[index]
            index += 1
            switch escaped {
            case "n": text.append("\n")
            case "t": text.append("\t")
            case "r": text.append("\r")
            case "0": text.append("\0")
            case "u":
                let hex = String(characters[index..<min(characters.count, index + 4)])
                guard hex.count == 4, let code = UInt32(hex, radix: 16), let scalar = Unicode.Scalar(code) else {
                    throw FetchPredicateError.syntax("four hex digits after \\u", at: index, in: format)
                }
                text.unicodeScalars.append(scalar)
                index += 4
            default: text.append(escaped)
            }
        }
        throw FetchPredicateError.syntax("a closing \(quote) for the string that starts at \(start)", at: characters.count, in: format)
    }

    private mutating func number() throws -> PredicateValue {
        let start = index
        for (prefix, radix, name) in [("x", 16, "hexadecimal"), ("o", 8, "octal"), ("b", 2, "binary")]
        where matches("0" + prefix) || matches("0" + prefix.uppercased()) {     // 0x1F, 0o17, 0b101
            index += 2
            let digitsStart = index
            while index < characters.count, characters[index].isHexDigit { index += 1 }
            guard let value = Int64(String(characters[digitsStart..<index]), radix: radix) else {
                throw FetchPredicateError.syntax("\(name) digits", at: digitsStart, in: format)
            }
            return .int(value)
        }
        var isDecimal = false
        while index < characters.count, characters[index].isASCII, characters[index].isNumber { index += 1 }
        if index + 1 < characters.count, characters[index] == ".", characters[index + 1].isASCII, characters[index + 1].isNumber {
            isDecimal = true
            index += 1
            while index < characters.count, characters[index].isASCII, characters[index].isNumber { index += 1 }
        }
        if index < characters.count, characters[index] == "e" || characters[index] == "E" {
            var i = index + 1
            if i < characters.count, characters[i] == "-" || characters[i] == "+" { i += 1 }
            if i < characters.count, characters[i].isASCII, characters[i].isNumber {
                isDecimal = true
                index = i
                while index < characters.count, characters[index].isASCII, characters[index].isNumber { index += 1 }
            }
        }
        let text = String(characters[start..<index])
        if !isDecimal, let value = Int64(text) { return .int(value) }
        guard let value = Double(text) else { throw FetchPredicateError.syntax("a number", at: start, in: format) }
        return .double(value)
    }

    /// `%@ %K %d %i %u %f %s %c` with optional `l`, `ll`, `h`, `q` length modifiers.
    private mutating func specifier() throws -> Character {
        index += 1
        while index < characters.count, "lhqz".contains(characters[index]) { index += 1 }
        guard index < characters.count, "@KdiufsDUxXegcF".contains(characters[index]) else {
            throw FetchPredicateError.syntax("a format specifier (%@, %K, %d, %i, %ld, %lld, %u, %f, %lf, %s) after '%'", at: index, in: format)
        }
        let c = characters[index]
        index += 1
        return c
    }
}
