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
                         "{1, 2}", "{'a', nil}", "{}", "{nil, nil}", "{1, nil}", "{'a', 'z'}", "{0.5, 2.5}", "'%@'", "$V", "now()", "'é'", "'\\u00e9'", "9223372036854775807"]
    static let operators = ["==", "!=", "<", "<=", ">", ">=", "=>", "=<", "<>", "=", "BEGINSWITH", "ENDSWITH", "CONTAINS", "LIKE",
                            "MATCHES", "IN", "BETWEEN"]
    static let options = ["", "", "", "[c]", "[d]", "[cd]", "[x]", "[n]"]
    static let alphabet = Array("abcnameotgsflwi0123456789 .,'\"\\%@K$#{}[]()!=<>&|^~+-*/:_é\n\tANDORNTIY")
    var argumentPool: [Any?] { [1, 2.5, "abc", nil, [1, 2], ["abc", "x"], Date(timeIntervalSinceReferenceDate: 0), true, "name",
                                       "tags.weight", Float(1.7), [String](), "line1\nline2", "(", -4, [nil, 3], ["b", "c"], ""] }

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

    /// Makes a predicate and runs it in memory, and in SQL too when `inSQL` (both must select
    /// the same items): true when it ran, false when it threw a FetchPredicateError, nil (and
    /// a failure noted) for any other error or a disagreement.
    func run(on items: [PItem], inSQL: Bool, _ label: String, _ failures: inout [String], _ make: () throws -> FetchPredicate) -> Bool? {
        do {
            let predicate = try make()
            let memory = Set(try items.filter { try predicate.evaluate(with: $0) }.map(\.name))
            if inSQL {
                let sql = try sqlNames(predicate)
                if sql != memory {
                    failures.append("SQL \(sql.sorted()) != memory \(memory.sorted()): \(label)")
                    return nil
                }
            }
            return true
        } catch is FetchPredicateError {
            return false
        } catch {
            failures.append("\(type(of: error)) \(error): \(label)")
            return nil
        }
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
            let substitutes = r.chance(30), variable = r.pick(argumentPool)
            let ran = run(on: items, inSQL: ranInSQL < 4_000, "\(format) \(arguments)", &failures) {
                let predicate = try FetchPredicate(format, argumentArray: arguments)
                parsed += 1
                return substitutes ? try predicate.withSubstitutionVariables(["V": variable, "v": 1]) : predicate
            }
            if ran == true { bound += 1; ranInSQL += ranInSQL < 4_000 ? 1 : 0 }
            if ran == false { predicateErrors += 1 }
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

extension PredicateFuzzTests {
    func number(_ r: inout Random, _ depth: Int) -> String {
        switch depth > 2 ? r.below(2) : r.below(8) {
        case 0: return r.pick(["count", "ratio", "score", "flags", "tags.@count", "tags.@sum.weight", "tags.@max.weight", "tags.@avg.weight",
                               "name.length", "SUBQUERY(tags, $t, $t.weight > 1).@count"])
        case 1: return r.pick(["0", "1", "-1", "2", "3", "0.5", "-2.5", "1.7", "7", "10", "9223372036854775807", "-9223372036854775807", "1e300", "nil"])
        case 2, 3: return "(\(number(&r, depth + 1)) \(r.pick(["+", "-", "*", "/", "**", "&", "|", "^", "<<", ">>"])) \(number(&r, depth + 1)))"
        case 4: return "\(r.pick(["abs:", "sqrt:", "floor:", "ceiling:", "trunc:", "ln:", "exp:", "log:", "onesComplement:"]))(\(number(&r, depth + 1)))"
        case 5: return "modulus:by:(\(number(&r, depth + 1)), \(number(&r, depth + 1)))"
        case 6: return "TERNARY(\(typedPredicate(&r, depth + 1)), \(number(&r, depth + 1)), \(number(&r, depth + 1)))"
        default: return "-\(number(&r, depth + 1))"
        }
    }

    func text(_ r: inout Random, _ depth: Int) -> String {
        switch depth > 2 ? r.below(2) : r.below(4) {
        case 0: return r.pick(["name", "note", "tags.@max.label"])
        case 1: return r.pick(["''", "'a'", "'abc'", "'ABC'", "'b'", "'x\\n'", "'line1'", "'Ü'", "'unicode'", "nil", "'c'"])
        case 2: return "\(r.pick(["lowercase:", "uppercase:"]))(\(text(&r, depth + 1)))"
        default: return "TERNARY(\(typedPredicate(&r, depth + 1)), \(text(&r, depth + 1)), \(text(&r, depth + 1)))"
        }
    }

    func typedPredicate(_ r: inout Random, _ depth: Int) -> String {
        switch depth > 2 ? r.below(3) : r.below(8) {
        case 0: return "\(number(&r, depth + 1)) \(r.pick(["==", "!=", "<", "<=", ">", ">="])) \(number(&r, depth + 1))"
        case 1: return "\(text(&r, depth + 1)) \(r.pick(["==", "!=", "<", "<=", ">", ">=", "BEGINSWITH", "ENDSWITH", "CONTAINS", "LIKE", "IN"]))\(r.pick(Self.options.filter { $0 != "[x]" })) \(text(&r, depth + 1))"
        case 2: return "\(number(&r, depth + 1)) \(r.pick(["IN", "BETWEEN"])) {\(number(&r, 3)), \(number(&r, 3))}"
        case 3: return "\(typedPredicate(&r, depth + 1)) \(r.pick(["AND", "OR"])) \(typedPredicate(&r, depth + 1))"
        case 4: return "NOT (\(typedPredicate(&r, depth + 1)))"
        case 5: return "\(r.pick(["ANY", "ALL", "NONE"])) tags.\(r.pick(["weight \(r.pick(["<", ">=", "=="])) \(number(&r, 3))", "label \(r.pick(["==", "BEGINSWITH[c]", "!=", "IN"])) \(text(&r, 3))"]))"
        case 6: return "SUBQUERY(tags, $t, $t.weight \(r.pick(["<", ">"])) \(number(&r, 3))).@count \(r.pick(["==", ">"])) \(number(&r, 3))"
        default: return "name MATCHES \(r.pick(["'a.*'", "'.*c'", "'(?i)ABC'", "'.'", "'x.'", "'[a-z]+'", "'.*'"]))"
        }
    }

    /// Well-typed predicates only, so nearly all of them reach both back ends, which must agree.
    func testRandomWellTypedPredicatesMeanTheSameInSQLAndInMemory() throws {
        var r = Random(state: 0x7E57_0F_B0_77)
        let items = try context.fetch(FetchRequest<PItem>())
        var ran = 0, refused = 0
        var failures: [String] = []
        for _ in 0..<3_000 {
            let format = typedPredicate(&r, 0)
            switch run(on: items, inSQL: true, format, &failures, { try FetchPredicate(format) }) {
            case true?: ran += 1
            case false?: refused += 1
            case nil: break
            }
        }
        print("PredicateFuzzTests (well typed): \(ran) ran in SQL and memory, \(refused) refused")
        XCTAssertGreaterThan(ran, 2_000)
        XCTAssertEqual(failures.count, 0, failures.prefix(20).joined(separator: "\n"))
    }
}
