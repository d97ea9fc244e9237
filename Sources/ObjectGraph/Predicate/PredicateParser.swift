import Foundation

/// Parses a predicate format string into a ``PredicateNode`` tree, taking `%@`/`%K`/`%d`...
/// arguments in order. Core Data's precedence: `OR` binds loosest, then `AND`, then `NOT`,
/// then comparisons.
///
/// ```
/// predicate  := or
/// or         := and (("OR" | "||") and)*
/// and        := not (("AND" | "&&") not)*
/// not        := ("NOT" | "!") not | "(" predicate ")" | TRUEPREDICATE | FALSEPREDICATE | comparison
/// comparison := [ANY | SOME | ALL | NONE] expression operator ["[" c|d|cd "]"] expression
/// expression := value | keypath | "{" expression, ... "}" | SUBQUERY(keypath, $var, predicate)
/// ```
struct PredicateParser {
    private let format: String
    private let tokens: [PredicateToken]
    private var position = 0
    private var arguments: [Any?]
    private var nextArgument = 0

    static let keywords: Set<String> = [
        "AND", "OR", "NOT", "IN", "BETWEEN", "LIKE", "MATCHES", "BEGINSWITH", "ENDSWITH", "CONTAINS",
        "ANY", "SOME", "ALL", "NONE", "NULL", "NIL", "TRUE", "FALSE", "YES", "NO", "SELF",
        "TRUEPREDICATE", "FALSEPREDICATE", "SUBQUERY",
    ]

    init(_ format: String, arguments: [Any?]) throws {
        self.format = format
        var lexer = PredicateLexer(format)
        self.tokens = try lexer.tokenize()
        self.arguments = arguments
    }

    /// Parses the whole string. Arguments beyond those the specifiers take are ignored, as
    /// `NSPredicate(format:)` ignores them (a quoted `'%@'` is text and takes none).
    mutating func parse() throws -> PredicateNode {
        let node = try parseOr()
        guard case .end = current.kind else { throw expected("AND, OR or the end of the predicate") }
        return node
    }

    // MARK: Tokens

    private var current: PredicateToken { tokens[position] }

    private mutating func advance() { if position < tokens.count - 1 { position += 1 } }

    private func keyword(_ token: PredicateToken) -> String? {
        if case .word(let word) = token.kind {
            let upper = word.uppercased()
            if Self.keywords.contains(upper) { return upper }
        }
        return nil
    }

    private mutating func accept(keyword names: String...) -> String? {
        guard let word = keyword(current), names.contains(word) else { return nil }
        advance()
        return word
    }

    private mutating func accept(symbol names: String...) -> String? {
        guard case .symbol(let symbol) = current.kind, names.contains(symbol) else { return nil }
        advance()
        return symbol
    }

    private mutating func expect(symbol: String) throws {
        guard accept(symbol: symbol) != nil else { throw expected("'\(symbol)'") }
    }

    private func expected(_ what: String) -> FetchPredicateError {
        FetchPredicateError.syntax(what, at: current.position, in: format)
    }

    private mutating func takeArgument(_ specifier: Character) throws -> Any? {
        guard nextArgument < arguments.count else {
            throw FetchPredicateError(.argument, "%\(specifier) at \(tokens[position].position) has no argument in \"\(format)\" (\(arguments.count) given)",
                                 position: tokens[position].position, format: format)
        }
        defer { nextArgument += 1 }
        return arguments[nextArgument]
    }

    // MARK: Predicates

    private mutating func parseOr() throws -> PredicateNode {
        var nodes = [try parseAnd()]
        while accept(keyword: "OR") != nil || accept(symbol: "||") != nil { nodes.append(try parseAnd()) }
        return nodes.count == 1 ? nodes[0] : .or(nodes)
    }

    private mutating func parseAnd() throws -> PredicateNode {
        var nodes = [try parseNot()]
        while accept(keyword: "AND") != nil || accept(symbol: "&&") != nil { nodes.append(try parseNot()) }
        return nodes.count == 1 ? nodes[0] : .and(nodes)
    }

    private mutating func parseNot() throws -> PredicateNode {
        if accept(keyword: "NOT") != nil || accept(symbol: "!") != nil { return .not(try parseNot()) }
        if case .symbol("(") = current.kind, !opensExpression() {
            advance()
            let node = try parseOr()
            try expect(symbol: ")")
            return node
        }
        if accept(keyword: "TRUEPREDICATE") != nil { return .constant(true) }
        if accept(keyword: "FALSEPREDICATE") != nil { return .constant(false) }
        return try parseComparison()
    }

    private mutating func parseComparison() throws -> PredicateNode {
        var quantifier = PredicateQuantifier.direct
        switch accept(keyword: "ANY", "SOME", "ALL", "NONE") {
        case "ANY", "SOME": quantifier = .any
        case "ALL": quantifier = .all
        case "NONE": quantifier = .none
        default: break
        }
        if case .end = current.kind { throw expected("a key path or a value") }
        let lhs = try parseExpression()
        let op = try parseOperator()
        let options = try parseOptions()
        let rhs = try parseExpression()
        return .comparison(PredicateComparison(quantifier: quantifier, lhs: lhs, op: op, rhs: rhs, options: options))
    }

    private mutating func parseOperator() throws -> PredicateOperator {
        if let symbol = accept(symbol: "==", "=", "!=", "<>", "<", "<=", "=<", ">", ">=", "=>") {
            switch symbol {
            case "==", "=": return .equal
            case "!=", "<>": return .notEqual
            case "<": return .less
            case "<=", "=<": return .lessOrEqual
            case ">": return .greater
            default: return .greaterOrEqual
            }
        }
        if let word = accept(keyword: "BEGINSWITH", "ENDSWITH", "CONTAINS", "LIKE", "MATCHES", "IN", "BETWEEN") {
            return PredicateOperator(rawValue: word)!
        }
        throw expected("a comparison operator (==, !=, <, <=, >, >=, BETWEEN, IN, BEGINSWITH, ENDSWITH, CONTAINS, LIKE, MATCHES)")
    }

    private mutating func parseOptions() throws -> StringOptions {
        guard accept(symbol: "[") != nil else { return [] }
        guard case .word(let letters) = current.kind else { throw expected("c, d or cd inside '[ ]'") }
        var options: StringOptions = []
        for letter in letters.lowercased() {
            switch letter {
            case "c": options.insert(.caseInsensitive)
            case "d": options.insert(.diacriticInsensitive)
            case "n", "l": continue
            default: throw expected("c, d or cd inside '[ ]'")
            }
        }
        advance()
        try expect(symbol: "]")
        return options
    }

    /// Whether the `(` at the current token opens an expression (`(age + 1) * 2 > 90`) rather
    /// than a group of predicates: what follows its `)` continues an expression or compares.
    private func opensExpression() -> Bool {
        var depth = 0
        for index in position..<tokens.count {
            switch tokens[index].kind {
            case .symbol("("): depth += 1
            case .symbol(")"):
                depth -= 1
                guard depth == 0 else { continue }
                let next = tokens[min(index + 1, tokens.count - 1)]
                if case .symbol(let symbol) = next.kind {
                    return ["==", "=", "!=", "<>", "<", "<=", "=<", ">", ">=", "=>", "+", "-", "*", "/", "**", ".", "["].contains(symbol)
                }
                guard let word = keyword(next) else { return false }
                return ["BEGINSWITH", "ENDSWITH", "CONTAINS", "LIKE", "MATCHES", "IN", "BETWEEN"].contains(word)
            case .end: return false
            default: continue
            }
        }
        return false
    }

    // MARK: Expressions

    /// `+` and `-`, then `*` and `/`, then `**`, then unary minus: each is a Foundation
    /// function (`add:to:`, `from:subtract:`, `multiply:by:`, `divide:by:`, `raise:toPower:`).
    private mutating func parseExpression() throws -> PredicateExpression {
        var lhs = try parseProduct()
        while let symbol = accept(symbol: "+", "-") {
            lhs = .function(symbol == "+" ? "add:to:" : "from:subtract:", [lhs, try parseProduct()])
        }
        return lhs
    }

    private mutating func parseProduct() throws -> PredicateExpression {
        var lhs = try parsePower()
        while let symbol = accept(symbol: "*", "/") {
            lhs = .function(symbol == "*" ? "multiply:by:" : "divide:by:", [lhs, try parsePower()])
        }
        return lhs
    }

    private mutating func parsePower() throws -> PredicateExpression {
        var lhs = try parseUnary()
        while accept(symbol: "**") != nil { lhs = .function("raise:toPower:", [lhs, try parseUnary()]) }
        return lhs
    }

    private mutating func parseUnary() throws -> PredicateExpression {
        if accept(symbol: "+") != nil { return try parseUnary() }
        guard accept(symbol: "-") != nil else { return try parsePostfix() }
        let operand = try parseUnary()
        switch operand {      // a negative literal stays a literal
        case .value(.int(let v)) where v != .min: return .value(.int(-v))
        case .value(.double(let v)): return .value(.double(-v))
        case .value(.decimal(let v)): return .value(.decimal(-v))
        default: return .function("from:subtract:", [.value(.int(0)), operand])
        }
    }

    private mutating func parsePostfix() throws -> PredicateExpression {
        var expression = try parsePrimary()
        while accept(symbol: ".") != nil {
            let keys: [String]
            switch current.kind {
            case .word(let word), .escapedWord(let word): keys = [word]
            case .collectionOperator(let name): keys = ["@" + name]
            case .specifier("K"): keys = try keyArgument(at: current.position)     // owner.%K
            default: throw expected("a key after '.'")
            }
            advance()
            switch expression {
            case .keyPath(var path):
                path.components += keys
                expression = .keyPath(path)
            case .subquery(let collection, let variable, let predicate, let trailing):
                expression = .subquery(collection: collection, variable: variable, predicate: predicate, trailing: trailing + keys)
            default:
                throw FetchPredicateError.syntax("a key path before '.\(keys.joined(separator: "."))'", at: tokens[position - 1].position, in: format)
            }
        }
        return expression
    }

    private mutating func parsePrimary() throws -> PredicateExpression {
        let token = current
        switch token.kind {
        case .string(let text):
            advance()
            return .value(.string(text))
        case .number(let value):
            advance()
            return .value(value)
        case .symbol("("):
            advance()
            let expression = try parseExpression()
            try expect(symbol: ")")
            return expression
        case .symbol("{"):
            advance()
            var items: [PredicateExpression] = []
            if accept(symbol: "}") != nil { return .aggregate(items) }
            repeat { items.append(try parseExpression()) } while accept(symbol: ",") != nil
            try expect(symbol: "}")
            return .aggregate(items)
        case .escapedWord(let name):
            advance()
            return .keyPath(KeyPathExpression(variable: nil, components: [name]))
        case .collectionOperator(let name):
            advance()
            return .keyPath(KeyPathExpression(variable: nil, components: ["@" + name]))
        case .variable(let name):
            advance()
            return .keyPath(KeyPathExpression(variable: name, components: []))
        case .specifier(let specifier):
            advance()
            return try argumentExpression(specifier, at: token.position)
        case .word(let word):
            switch keyword(token) {
            case nil:
                advance()
                return .keyPath(KeyPathExpression(variable: nil, components: [word]))
            case "TRUE", "YES": advance(); return .value(.bool(true))
            case "FALSE", "NO": advance(); return .value(.bool(false))
            case "NIL", "NULL": advance(); return .value(.null)
            case "SELF": advance(); return .keyPath(KeyPathExpression(variable: nil, components: []))
            case "SUBQUERY": advance(); return try parseSubquery()
            default: throw expected("a key path or a value (found the keyword \(word.uppercased()); write #\(word) for a key of that name)")
            }
        default:
            throw expected("a key path or a value")
        }
    }

    private mutating func argumentExpression(_ specifier: Character, at offset: Int) throws -> PredicateExpression {
        if specifier == "K" { return .keyPath(KeyPathExpression(variable: nil, components: try keyArgument(at: offset))) }
        let argument = try takeArgument(specifier)
        switch specifier {
        case "@":
            return .value(try PredicateValue.from(argument))
        case "s", "c":
            return .value(.string(argument.map { "\($0)" } ?? ""))
        default:
            let value = try PredicateValue.from(argument)
            switch value {
            case .int, .double, .decimal, .bool: return .value(value)
            default:
                throw FetchPredicateError(.argument, "%\(specifier) at \(offset) takes a number, not \(value.typeName)", position: offset, format: format)
            }
        }
    }

    /// The keys of a `%K` argument (`"department.name"` gives two), at any place in a key path.
    private mutating func keyArgument(at offset: Int) throws -> [String] {
        let argument = try takeArgument("K")
        guard let key = argument as? String ?? (argument as? Substring).map(String.init) else {
            throw FetchPredicateError(.argument, "%K at \(offset) takes a key path String, not \(argument.map { "\(type(of: $0))" } ?? "nil")",
                                 position: offset, format: format)
        }
        return key.split(separator: ".", omittingEmptySubsequences: false).map(String.init)
    }

    private mutating func parseSubquery() throws -> PredicateExpression {
        try expect(symbol: "(")
        let collection = try parseExpression()
        guard case .keyPath(let path) = collection else { throw expected("a to-many key path as SUBQUERY's first argument") }
        try expect(symbol: ",")
        guard case .variable(let variable) = current.kind else { throw expected("a $variable as SUBQUERY's second argument") }
        advance()
        try expect(symbol: ",")
        let predicate = try parseOr()
        try expect(symbol: ")")
        return .subquery(collection: path, variable: variable, predicate: predicate, trailing: [])
    }
}
