import Foundation
import ObjectGraph
import Testing

/// A predicate whose text argument holds NUL (U+0000) gets the same answer from both stores
/// (issue 43, docs/stores.md#what-differs): the in-memory evaluator's, over the same rows. No
/// stored PostgreSQL text holds NUL, so `==` is false, `!=` true, `BEGINSWITH`, `ENDSWITH`,
/// `CONTAINS` and `LIKE` false, `IN` ignores such an element, and `<`, `>` compare with the
/// part before the first NUL; SQLite answers the same for rows without NUL.
///
/// Seeded random predicates; `NUL_PREDICATE_CASES` sets how many (default 150),
/// `NUL_PREDICATE_SEED` the seed (printed with each failure).
@Suite("Predicate arguments holding NUL", .onOwnThreads)
struct NULArgumentTests {
    /// Text holding at least one NUL, made of pieces of the company's names.
    private static func argument(_ random: inout GraphRandom) -> String {
        let pieces = ["", "A", "Ann", "an", "B", "Bob", "Bo", "li", "M", "olga", "Z", "É", "é", "mile", "Émile", "Sales", "x", "*", "?"]
        var text = pieces.randomElement(using: &random)!
        for _ in 0..<Int.random(in: 1...2, using: &random) {
            text += "\u{0}" + pieces.randomElement(using: &random)!
        }
        return text
    }

    @Test("Random comparisons with a NUL-holding argument answer as the in-memory evaluator", arguments: StoreKind.allCases)
    func nulArgumentsAnswerAsInMemory(_ kind: StoreKind) throws {
        let context = try kind.newStore().seededCompany()
        let everyone = try context.fetch(FetchRequest<Employee>())
        let settings = LongRunSettings(prefix: "NUL_PREDICATE_")
        let cases = settings.count("CASES", 150)
        let seed = settings.seed(43)
        var random = GraphRandom(seed: seed)
        let paths = ["firstName", "nickname", "department.name", "ANY projects.title"]
        let operators = ["==", "!=", "<", "<=", ">", ">=", "BEGINSWITH", "ENDSWITH", "CONTAINS", "LIKE", "IN"]
        let options = ["", "[c]", "[d]", "[cd]"]
        for number in 0..<cases {
            let path = paths.randomElement(using: &random)!
            let op = operators.randomElement(using: &random)!
            let option = options.randomElement(using: &random)!
            let nul = Self.argument(&random)
            let argument: Any = op == "IN" ? [nul, ["Ann", "Sales", "olga", "Apollo"].randomElement(using: &random)!] : nul
            // Comparisons also with the argument on the left (not for a quantified path).
            let mirrored = !path.hasPrefix("ANY") && ["==", "!=", "<", "<=", ">", ">="].contains(op) && Bool.random(using: &random)
            let format = mirrored ? "%@ \(op)\(option) \(path)" : "\(path) \(op)\(option) %@"
            let predicate = try FetchPredicate(format, argument)
            let expected = try everyone.filter { try predicate.evaluate(with: $0) }.map(\.firstName).sorted()
            let shown = "case \(number) of seed \(seed): \(format) with \(String(reflecting: argument))"
            do {
                #expect(try context.employeeNames(predicate) == expected, "\(shown)")
                #expect(try context.count(for: FetchRequest<Employee>(predicate: predicate)) == expected.count, "\(shown)")
            } catch {
                Issue.record("\(shown) threw \(error)")
            }
        }
    }

    @Test("NOT, AND and OR around a NUL-holding comparison", arguments: StoreKind.allCases)
    func nulArgumentsInCompoundPredicates(_ kind: StoreKind) throws {
        let context = try kind.newStore().seededCompany()
        #expect(try context.employeeNames("firstName == %@", "A\u{0}nn") == [])
        #expect(try context.employeeNames("NOT firstName == %@", "A\u{0}nn") == ["Ann", "Bob", "Li", "Mia", "Zed", "olga", "Émile"])
        #expect(try context.employeeNames("firstName != %@ AND age > 40", "Bob\u{0}") == ["Bob", "Mia", "Zed", "Émile"])
        #expect(try context.employeeNames("firstName CONTAINS %@ OR firstName == 'Li'", "o\u{0}") == ["Li"])
        #expect(try context.employeeNames("firstName < %@", "Bob\u{0}") == ["Ann", "Bob"])
        #expect(try context.employeeNames("firstName IN %@", ["Li\u{0}", "Mia"]) == ["Mia"])
    }
}
