import Foundation
import ObjectGraph
import XCTest

/// A deterministic random corpus (fixed seed) through the parser and the binder: format
/// strings generated from the grammar, then mutated character by character. Each one either
/// parses and binds, or throws a FetchPredicateError; nothing crashes and no other error
/// escapes. Those that bind are also run through SQL and in memory, which must agree.
final class PredicateFuzzTests: PredicateModelTestCase {
    static let executions = 20_000

    /// The same sequence on every run and platform (SplitMix64, from IdentityMapTests).
    struct Random {
        var generator: SplitMix
        init(state: UInt64) { generator = SplitMix(seed: state) }
        mutating func next() -> UInt64 { generator.next() }
        mutating func below(_ n: Int) -> Int { Int(next() % UInt64(n)) }
        mutating func pick<T>(_ items: [T]) -> T { items[below(items.count)] }
        mutating func chance(_ percent: Int) -> Bool { below(100) < percent }
    }

    static let keys = ["name", "note", "score", "ratio", "count", "flags", "tags", "tags.label", "tags.weight", "tags.@count",
                       "tags.@sum.weight", "tags.@avg.weight", "tags.@max.label", "SELF", "nope", "name.x", "%K", "$v", "#name"]
    static let values = ["1", "-2", "2.5", "0x1F", "1e3", "'abc'", "\"x\\ny\"", "''", "nil", "YES", "FALSE", "%@", "%d", "%f",
                         "{1, 2}", "{'a', nil}", "{}", "'%@'", "$V", "now()", "'é'", "'\\u00e9'", "9223372036854775807"]
    static let operators = ["==", "!=", "<", "<=", ">", ">=", "=>", "=<", "<>", "=", "BEGINSWITH", "ENDSWITH", "CONTAINS", "LIKE",
                            "MATCHES", "IN", "BETWEEN"]
    static let options = ["", "", "", "[c]", "[d]", "[cd]", "[x]", "[n]"]
    static let alphabet = Array("abcnameotgsflwi0123456789 .,'\"\\%@K$#{}[]()!=<>&|^~+-*/:_é\n\tANDORNTIY")
    var argumentPool: [Any?] { [1, 2.5, "abc", nil, [1, 2], ["abc", "x"], Date(timeIntervalSinceReferenceDate: 0), true, "name",
                                       "tags.weight", Float(1.7), [String](), "line1\nline2", "(", -4] }

    func expression(_ r: inout Random, _ depth: Int) -> String {
        let choice = depth > 2 ? r.below(2) : r.below(9)
        switch choice {
        case 0: return r.pick(Self.keys)
        case 1: return r.pick(Self.values)
        case 2: return "\(expression(&r, depth + 1)) \(r.pick(["+", "-", "*", "/", "**", "&", "|", "^", "<<", ">>"])) \(expression(&r, depth + 1))"
        case 3: return "\(r.pick(["-", "~", "("]))\(expression(&r, depth + 1))\(r.chance(80) ? ")" : "")"
        case 4: return "\(r.pick(["abs:", "lowercase:", "uppercase:", "sum:", "max:", "count:", "sqrt:", "modulus:by:", "foo:", "now"]))(\(expression(&r, depth + 1)))"
        case 5: return "{\(expression(&r, depth + 1)), \(expression(&r, depth + 1))}\(r.pick(["", "[FIRST]", "[LAST]", "[SIZE]", "[1]", "[9]"]))"
        case 6: return "TERNARY(\(predicate(&r, depth + 1)), \(expression(&r, depth + 1)), \(expression(&r, depth + 1)))"
        case 7: return "SUBQUERY(tags, $t, $t.\(r.pick(["weight", "label", "item.name", "%K"])) \(r.pick(Self.operators)) \(expression(&r, depth + 1)))\(r.pick([".@count", "[SIZE]", ""]))"
        default: return "\(r.pick(["tags", "%K"]))\(r.pick(["[SIZE]", "[FIRST]", ".@count", ".weight"]))"
        }
    }

    func predicate(_ r: inout Random, _ depth: Int) -> String {
        switch depth > 2 ? 0 : r.below(6) {
        case 1: return "\(predicate(&r, depth + 1)) \(r.pick(["AND", "OR", "&&", "||"])) \(predicate(&r, depth + 1))"
        case 2: return "\(r.pick(["NOT ", "!", "NOT NOT "]))(\(predicate(&r, depth + 1)))"
        case 3: return r.pick(["TRUEPREDICATE", "FALSEPREDICATE"])
        default:
            let quantifier = r.chance(20) ? r.pick(["ANY ", "ALL ", "NONE ", "SOME "]) : ""
            return "\(quantifier)\(expression(&r, depth)) \(r.pick(Self.operators))\(r.pick(Self.options)) \(expression(&r, depth))"
        }
    }

    func mutate(_ text: String, _ r: inout Random) -> String {
        var characters = Array(text)
        for _ in 0..<(1 + r.below(4)) {
            let at = characters.isEmpty ? 0 : r.below(characters.count + 1)
            switch r.below(5) {
            case 0 where at < characters.count: characters.remove(at: at)
            case 1: characters.insert(r.pick(Self.alphabet), at: at)
            case 2 where at < characters.count: characters[at] = r.pick(Self.alphabet)
            case 3 where at < characters.count:
                let end = min(characters.count, at + 1 + r.below(8))
                characters.insert(contentsOf: characters[at..<end], at: r.below(characters.count + 1))
            default: characters = Array(characters.prefix(at))
            }
        }
        return String(characters)
    }

    func testRandomFormatStringsParseAndBindOrThrowPredicateErrors() throws {
        var r = Random(state: 0x5EED_2026_1123)
        let items = try context.fetch(FetchRequest<PItem>())
        var executions = 0, parsed = 0, bound = 0, predicateErrors = 0, ranInSQL = 0
        var failures: [String] = []
        for iteration in 0..<Self.executions {
            var format = predicate(&r, 0)
            if iteration % 2 == 1 { format = mutate(format, &r) }
            if iteration % 97 == 0 { format = String(repeating: r.pick(["(", "NOT ", "-", "{", "~"]), count: 150 + r.below(200)) + format }
            let arguments = (0..<r.below(4)).map { _ in r.pick(argumentPool) }
            executions += 1
            do {
                var predicate = try FetchPredicate(format, argumentArray: arguments)
                parsed += 1
                if r.chance(30) { predicate = try predicate.withSubstitutionVariables(["V": r.pick(argumentPool), "v": 1]) }
                let memory = Set(try items.filter { try predicate.evaluate(with: $0) }.map(\.name))
                bound += 1
                if ranInSQL < 4_000 {
                    ranInSQL += 1
                    let sql = try sqlNames(predicate)
                    if sql != memory { failures.append("SQL \(sql.sorted()) != memory \(memory.sorted()): \(format) \(arguments)") }
                }
            } catch is FetchPredicateError {
                predicateErrors += 1
            } catch {
                failures.append("\(type(of: error)) \(error): \(format) \(arguments)")
            }
        }
        print("PredicateFuzzTests: \(executions) executions, \(parsed) parsed, \(bound) bound and evaluated, \(ranInSQL) also in SQL, \(predicateErrors) FetchPredicateErrors")
        XCTAssertEqual(executions, Self.executions)
        XCTAssertGreaterThan(bound, 1_000, "the corpus should reach the back ends")
        XCTAssertGreaterThan(predicateErrors, 1_000, "the corpus should reach the error paths")
        XCTAssertEqual(failures.count, 0, failures.prefix(20).joined(separator: "\n"))
    }
}

extension PredicateFuzzTests {
    /// The deepest predicates within the nesting budget run in SQLite (whose parser stops
    /// near 100 grammar levels) and in memory alike; one level more is a FetchPredicateError.
    func testNestingUpToTheBudgetRunsAndBeyondItIsAnError() throws {
        func nested(_ levels: Int, _ wrap: (String) -> String, _ core: String) -> String {
            (0..<levels).reduce(core) { text, _ in wrap(text) }
        }
        func subqueries(_ levels: Int) -> String {
            (0..<levels).reduce("VALUE > 0") { text, level in
                "SUBQUERY(\(level == levels - 1 ? "tags" : "$s\(level + 1).item.tags"), $s\(level), \(text.replacingOccurrences(of: "VALUE", with: "$s\(level).weight"))).@count > 0"
            }
        }
        let shapes: [(String, Int, (Int) -> String)] = [
            ("NOT", 12, { nested($0, { "NOT (\($0))" }, "count > 0") }),
            ("AND/OR groups", 8, { nested($0, { "count > -9 AND (name != 'q' OR (\($0)))" }, "count > 0") }),
            ("operators", 24, { nested($0, { "(\($0) + 1)" }, "count") + " > 0" }),
            ("functions", 12, { nested($0, { "abs:(\($0))" }, "count") + " > 0" }),
            ("TERNARY", 10, { nested($0, { "TERNARY(count > 1, \($0), 0)" }, "count") + " > 0" }),
            ("SUBQUERY", 3, { subqueries($0) }),
        ]
        for (name, minimum, make) in shapes {
            var levels = 1
            while (try? FetchPredicate(make(levels + 1)).evaluate(with: context.fetch(FetchRequest<PItem>())[0])) != nil { levels += 1 }
            XCTAssertGreaterThanOrEqual(levels, minimum, "\(name): only \(levels) levels fit")
            let deepest = try FetchPredicate(make(levels))
            XCTAssertEqual(try sqlNames(deepest), try memoryNames(deepest), "\(name) at \(levels) levels")
            XCTAssertThrowsError(try sqlNames(FetchPredicate(make(levels + 1))), name) { error in
                XCTAssertEqual((error as? FetchPredicateError)?.code, .unsupported, "\(name): \(error)")
            }
        }
    }
}
