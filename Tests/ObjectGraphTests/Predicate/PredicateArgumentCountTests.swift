import Foundation
import ObjectGraph
import XCTest

/// Every function a format string can name, called with every count (0 to 3) of arguments of
/// every kind: each call either binds and runs (in memory and in SQL, with one answer) or is
/// a `FetchPredicateError`. A function that indexed its arguments before counting them
/// stopped the process (`age IN unionSet({1})`).
final class PredicateArgumentCountTests: PredicateModelTestCase {
    /// Functions named in format strings, and the operators that become functions.
    static let functionNames: [String] = [
        "add:to:", "from:subtract:", "multiply:by:", "divide:by:", "raise:toPower:", "modulus:by:",
        "abs:", "sqrt:", "log:", "ln:", "exp:", "floor:", "ceiling:", "trunc:",
        "bitwiseAnd:with:", "bitwiseOr:with:", "bitwiseXor:with:", "leftshift:by:", "rightshift:by:", "onesComplement:",
        "lowercase:", "uppercase:", "length:", "sum:", "average:", "min:", "max:", "count:",
        "CAST", "castObject:toType:", "unionSet", "intersectSet", "minusSet", "median:", "mode:", "stddev:", "now",
        "random", "randomn:", "noindex:", "objectFrom:withIndex:", "distinctUnionOfObjects:",
    ]
    /// One argument of each kind the binder tells apart.
    static let argumentKinds = ["1", "2.5", "'a'", "'NSDate'", "nil", "{1, 2}", "{}", "name", "score", "tags", "tags.weight", "SELF"]

    func testEveryFunctionWithAnyArgumentCountBindsOrThrowsAPredicateError() throws {
        let items = try context.fetch(FetchRequest<PItem>())
        var calls = 0, ran = 0, refused = 0
        var failures: [String] = []
        /// Every list of `count` kinds; three arguments from a smaller set, to keep the run short.
        func argumentLists(_ count: Int, of kinds: [String]) -> [[String]] {
            guard count > 0 else { return [[]] }
            return argumentLists(count - 1, of: kinds).flatMap { list in kinds.map { list + [$0] } }
        }
        func argumentLists(_ count: Int) -> [[String]] {
            argumentLists(count, of: count == 3 ? ["1", "'a'", "nil", "{1, 2}", "name", "tags"] : Self.argumentKinds)
        }
        for name in Self.functionNames {
            for count in 0...3 {
                for arguments in argumentLists(count) {
                    let call = "\(name)(\(arguments.joined(separator: ", ")))"
                    for format in ["score IN \(call)", "\(call) == 1"] {
                        calls += 1
                        do {
                            let predicate = try FetchPredicate(format)
                            let memory = Set(try items.filter { try predicate.evaluate(with: $0) }.map(\.name))
                            if count <= 1 {   // SQL for the short calls: enough to reach each compiler path
                                let sql = try sqlNames(predicate)
                                if sql != memory { failures.append("SQL \(sql.sorted()) != memory \(memory.sorted()): \(format)") }
                            }
                            ran += 1
                        } catch let error as FetchPredicateError {
                            XCTAssertFalse(error.message.isEmpty, format)
                            refused += 1
                        } catch {
                            failures.append("\(type(of: error)) \(error): \(format)")
                        }
                    }
                }
            }
        }
        print("PredicateArgumentCountTests: \(calls) calls, \(ran) ran, \(refused) FetchPredicateErrors")
        XCTAssertGreaterThan(ran, 100, "some calls should reach the back ends")
        XCTAssertGreaterThan(refused, 1_000, "wrong counts and kinds should reach the error paths")
        XCTAssertEqual(failures.count, 0, failures.prefix(20).joined(separator: "\n"))
    }

    /// The reported case: a set function with one collection.
    func testASetFunctionWithOneCollectionIsASyntaxError() {
        for format in ["score IN unionSet({1})", "score IN intersectSet({1})", "score IN minusSet({1})", "score IN unionSet()"] {
            XCTAssertThrowsError(try FetchPredicate(format).evaluate(with: PItem(context: context)), format) { error in
                guard let error = error as? FetchPredicateError else { return XCTFail("\(type(of: error)): \(error)") }
                XCTAssertEqual(error.code, .syntax, format)
                XCTAssertTrue(error.message.contains("takes two collections"), error.message)
            }
        }
    }
}
