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
/// expression := arithmetic and bitwise operators over values, key paths, "{...}" lists,
///               function calls, TERNARY, SUBQUERY and subscripts (PredicateParser+Expression)
/// ```
struct PredicateParser {
    let format: String
    let tokens: [PredicateToken]
    var position = 0
    var arguments: [Any?]
    var nextArgument = 0
    /// How deeply `NOT`, `(`, unary operators and lists nest at the current token.
    var depth = 0
    /// Deeper nesting is refused: the parser, the binder and both back ends recurse on it.
    static let maxDepth = 200

    static let keywords: Set<String> = [
        "AND", "OR", "NOT", "IN", "BETWEEN", "LIKE", "MATCHES", "BEGINSWITH", "ENDSWITH", "CONTAINS",
        "ANY", "SOME", "ALL", "NONE", "NULL", "NIL", "TRUE", "FALSE", "YES", "NO", "SELF",
        "TRUEPREDICATE", "FALSEPREDICATE", "SUBQUERY", "UNION", "INTERSECT", "MINUS",
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

    var current: PredicateToken { tokens[position] }

    mutating func advance() { if position < tokens.count - 1 { position += 1 } }

    func keyword(_ token: PredicateToken) -> String? {
        if case .word(let word) = token.kind {
            let upper = word.uppercased()
            if Self.keywords.contains(upper) { return upper }
        }
        return nil
    }

    mutating func accept(keyword names: String...) -> String? {
        guard let word = keyword(current), names.contains(word) else { return nil }
        advance()
        return word
    }

    mutating func accept(symbol names: String...) -> String? {
        guard case .symbol(let symbol) = current.kind, names.contains(symbol) else { return nil }
        advance()
        return symbol
    }

    mutating func expect(symbol: String) throws {
        guard accept(symbol: symbol) != nil else { throw expected("'\(symbol)'") }
    }

    func expected(_ what: String) -> FetchPredicateError {
        FetchPredicateError.syntax(what, at: current.position, in: format)
    }

    mutating func takeArgument(_ specifier: Character) throws -> Any? {
        guard nextArgument < arguments.count else {
            throw FetchPredicateError(.argument, "%\(specifier) at \(tokens[position].position) has no argument in \"\(format)\" (\(arguments.count) given)",
                                 position: tokens[position].position, format: format)
        }
        defer { nextArgument += 1 }
        return arguments[nextArgument]
    }

    // MARK: Predicates

    mutating func parseOr() throws -> PredicateNode {
        var nodes = [try parseAnd()]
        while accept(keyword: "OR") != nil || accept(symbol: "||") != nil { nodes.append(try parseAnd()) }
        return nodes.count == 1 ? nodes[0] : .or(nodes)
    }

    mutating func parseAnd() throws -> PredicateNode {
        var nodes = [try parseNot()]
        while accept(keyword: "AND") != nil || accept(symbol: "&&") != nil { nodes.append(try parseNot()) }
        return nodes.count == 1 ? nodes[0] : .and(nodes)
    }

    /// Counts one more level of nesting, refusing more than ``maxDepth``; pair with `depth -= 1`.
    mutating func enterNesting() throws {
        depth += 1
        if depth > Self.maxDepth {
            throw FetchPredicateError.syntax("at most \(Self.maxDepth) levels of nesting (NOT, parentheses, lists, unary operators)", at: current.position, in: format)
        }
    }

    mutating func parseNot() throws -> PredicateNode {
        try enterNesting()
        defer { depth -= 1 }
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

    mutating func parseComparison() throws -> PredicateNode {
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

    mutating func parseOperator() throws -> PredicateOperator {
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

    mutating func parseOptions() throws -> StringOptions {
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
}
