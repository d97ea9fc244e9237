import Foundation

// Expressions: the sides of a comparison, from `|` (loosest) down to key paths, literals,
// function calls, TERNARY, SUBQUERY and subscripts.
extension PredicateParser {
    /// Whether the `(` at the current token opens an expression (`(age + 1) * 2 > 90`) rather
    /// than a group of predicates: what follows its `)` continues an expression or compares.
    func opensExpression() -> Bool {
        var depth = 0
        for index in position..<tokens.count {
            switch tokens[index].kind {
            case .symbol("("): depth += 1
            case .symbol(")"):
                depth -= 1
                guard depth == 0 else { continue }
                let next = tokens[min(index + 1, tokens.count - 1)]
                if case .symbol(let symbol) = next.kind {
                    return ["==", "=", "!=", "<>", "<", "<=", "=<", ">", ">=", "=>", "+", "-", "*", "/", "**", ".", "[",
                            "&", "|", "^", "<<", ">>"].contains(symbol)
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

    /// Loosest first: `|`, `^`, `&`, `<<` `>>`, `+` `-`, `*` `/`, `**`, then unary `-` `~`;
    /// each is a Foundation function (`bitwiseOr:with:`, ..., `add:to:`, `raise:toPower:`).
    mutating func parseExpression() throws -> PredicateExpression {
        var lhs = try parseBinary(level: 0)
        while let word = accept(keyword: "UNION", "INTERSECT", "MINUS") {     // set expressions, loosest of all
            lhs = .function(word.lowercased() + "Set", [lhs, try parseBinary(level: 0)])
        }
        return lhs
    }

    static let bitwiseLevels: [[String: String]] = [
        ["|": "bitwiseOr:with:"], ["^": "bitwiseXor:with:"], ["&": "bitwiseAnd:with:"],
        ["<<": "leftshift:by:", ">>": "rightshift:by:"],
    ]

    mutating func parseBinary(level: Int) throws -> PredicateExpression {
        guard level < Self.bitwiseLevels.count else { return try parseSum() }
        let operators = Self.bitwiseLevels[level]
        var lhs = try parseBinary(level: level + 1)
        while case .symbol(let symbol) = current.kind, let name = operators[symbol] {
            advance()
            lhs = .function(name, [lhs, try parseBinary(level: level + 1)])
        }
        return lhs
    }

    mutating func parseSum() throws -> PredicateExpression {
        var lhs = try parseProduct()
        while let symbol = accept(symbol: "+", "-") {
            lhs = .function(symbol == "+" ? "add:to:" : "from:subtract:", [lhs, try parseProduct()])
        }
        return lhs
    }

    mutating func parseProduct() throws -> PredicateExpression {
        var lhs = try parsePower()
        while let symbol = accept(symbol: "*", "/") {
            lhs = .function(symbol == "*" ? "multiply:by:" : "divide:by:", [lhs, try parsePower()])
        }
        return lhs
    }

    mutating func parsePower() throws -> PredicateExpression {
        var lhs = try parseUnary()
        while accept(symbol: "**") != nil { lhs = .function("raise:toPower:", [lhs, try parseUnary()]) }
        return lhs
    }

    mutating func parseUnary() throws -> PredicateExpression {
        try enterNesting()
        defer { depth -= 1 }
        if accept(symbol: "+") != nil { return try parseUnary() }
        if accept(symbol: "~") != nil { return .function("onesComplement:", [try parseUnary()]) }
        guard accept(symbol: "-") != nil else { return try parsePostfix() }
        let operand = try parseUnary()
        switch operand {      // a negative literal stays a literal
        case .value(.int(let v)) where v != .min: return .value(.int(-v))
        case .value(.double(let v)): return .value(.double(-v))
        case .value(.decimal(let v)): return .value(.decimal(-v))
        default: return .function("from:subtract:", [.value(.int(0)), operand])
        }
    }

    mutating func parsePostfix() throws -> PredicateExpression {
        var expression = try parsePrimary()
        while true {
            if accept(symbol: "[") != nil {
                expression = .index(expression, try parseIndex())
                continue
            }
            guard accept(symbol: ".") != nil else { break }
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
            case .aggregate, .value(.list):     // {1, 2}.@sum
                guard keys.count == 1, let name = Self.listOperators[keys[0].lowercased()] else {
                    throw FetchPredicateError.syntax("@count, @sum, @avg, @min or @max after a list", at: tokens[position - 1].position, in: format)
                }
                expression = .function(name, [expression])
            case .subquery(let collection, let variable, let predicate, let trailing):
                expression = .subquery(collection: collection, variable: variable, predicate: predicate, trailing: trailing + keys)
            default:
                throw FetchPredicateError.syntax("a key path before '.\(keys.joined(separator: "."))'", at: tokens[position - 1].position, in: format)
            }
        }
        return expression
    }

    /// Collection operators after a literal list or an array argument, as the list functions.
    static let listOperators = ["@count": "count:", "@sum": "sum:", "@avg": "average:", "@min": "min:", "@max": "max:"]

    /// `FIRST`, `LAST`, `SIZE` or an index (a literal or an argument) and the closing `]`.
    mutating func parseIndex() throws -> PredicateIndex {
        let token = current
        var index: PredicateIndex
        switch token.kind {
        case .word(let word) where ["FIRST", "LAST", "SIZE"].contains(word.uppercased()):
            index = word.uppercased() == "FIRST" ? .first : word.uppercased() == "LAST" ? .last : .size
            advance()
        case .number(.int(let n)):
            index = .at(n)
            advance()
        case .specifier(let specifier) where specifier != "K":
            advance()
            guard case .value(.int(let n)) = try argumentExpression(specifier, at: token.position) else {
                throw FetchPredicateError(.argument, "the index at \(token.position) takes an integer", position: token.position, format: format)
            }
            index = .at(n)
        default: throw expected("FIRST, LAST, SIZE or an integer index inside '[ ]'")
        }
        try expect(symbol: "]")
        return index
    }

    mutating func parsePrimary() throws -> PredicateExpression {
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
        case .selector(let name):     // lowercase:(name), add:to:(1, 2)
            advance()
            return .function(name, try parseArguments())
        case .word(let word) where keyword(token) == nil && tokens[min(position + 1, tokens.count - 1)].kind == .symbol("("):
            advance()
            switch word.uppercased() {     // now(), TERNARY(...), FUNCTION(...)
            case "TERNARY":
                try expect(symbol: "(")
                let condition = try parseOr()
                try expect(symbol: ",")
                let then = try parseExpression()
                try expect(symbol: ",")
                let otherwise = try parseExpression()
                try expect(symbol: ")")
                return .ternary(condition, then, otherwise)
            case "FUNCTION":
                throw FetchPredicateError(.unsupported, "FUNCTION(object, 'selector', ...) calls a method, which a store cannot run; use Foundation's built-in functions (lowercase:(name), abs:(x), ...) at \(token.position) in \"\(format)\"",
                                          position: token.position, format: format)
            default: return .function(word, try parseArguments())
            }
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

    mutating func argumentExpression(_ specifier: Character, at offset: Int) throws -> PredicateExpression {
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
    mutating func keyArgument(at offset: Int) throws -> [String] {
        let argument = try takeArgument("K")
        guard let key = argument as? String ?? (argument as? Substring).map(String.init) else {
            throw FetchPredicateError(.argument, "%K at \(offset) takes a key path String, not \(argument.map { "\(type(of: $0))" } ?? "nil")",
                                 position: offset, format: format)
        }
        return key.split(separator: ".", omittingEmptySubsequences: false).map(String.init)
    }

    /// `( expression, ... )` after a function name.
    mutating func parseArguments() throws -> [PredicateExpression] {
        try expect(symbol: "(")
        var arguments: [PredicateExpression] = []
        if accept(symbol: ")") != nil { return arguments }
        repeat { arguments.append(try parseExpression()) } while accept(symbol: ",") != nil
        try expect(symbol: ")")
        return arguments
    }

    mutating func parseSubquery() throws -> PredicateExpression {
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
