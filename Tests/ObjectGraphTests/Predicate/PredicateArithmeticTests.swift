import Foundation
import ObjectGraph
import XCTest

// Arithmetic on either side of a comparison. Sources:
// - [PPG] Predicate Programming Guide, "Predicate Format String Syntax" / NSExpression:
//   `+ - * / **` and unary minus are the functions add:to:, from:subtract:, multiply:by:,
//   divide:by:, raise:toPower:.
// - [NSE] Apple's NSExpression divides two integers as integers (`7 / 2` is 3; documented
//   from experiments in github.com/daydreamboy/HelloProjects HelloNSExpression/README.md,
//   "/ is integer division"); with a double operand it divides doubles, so `x / 0.0` is
//   ±infinity (IEEE). GNUstep (Source/NSPredicate.m, `_eval__div:`) always uses doubles;
//   Apple's answer is the one followed.
// Items: abc (count 3, ratio 0.5, flags 5, 2 tags), wxyz (10, 1.5, 2), "" (-4, -2, 0),
// Ünïcode (7, 3.0, 7), "x\n" (0, 0, 8).
final class PredicateArithmeticTests: PredicateModelTestCase {
    static let all = PredicateModelTestCase.everyone

    func testArithmeticOnEitherSideMeansWhatFoundationComputes() {
        check([
            PredicateCase("count + 1 == 4", [], ["abc"]),
            PredicateCase("count - 1 > 5", [], ["wxyz", "Ünïcode"]),
            PredicateCase("count * 2 == 20", [], ["wxyz"]),
            PredicateCase("count / 2 == 1", [], ["abc"]),             // [NSE] integers divide as integers
            PredicateCase("count / 2 == 1.5", [], []),
            PredicateCase("count / 2.0 == 1.5", [], ["abc"]),
            PredicateCase("-7 / 2 == -3", [], Self.all),              // toward zero, as C and SQLite
            PredicateCase("count / 0 == nil", [], Self.all),          // integer division by zero: nil
            PredicateCase("count ** 2 == 49", [], ["Ünïcode"]),
            PredicateCase("2 ** count == 8", [], ["abc"]),
            PredicateCase("-count == 4", [], [""]),
            PredicateCase("- count < -5", [], ["wxyz", "Ünïcode"]),
            PredicateCase("count + ratio == 3.5", [], ["abc"]),
            PredicateCase("(count + 1) * 2 == 8", [], ["abc"]),
            PredicateCase("count + 1 * 2 == 5", [], ["abc"]),         // * before +
            PredicateCase("count - 2 - 1 == 0", [], ["abc"]),         // left to right
            PredicateCase("((count + 1) * 2 > 15) AND count < 10", [], ["Ünïcode"]),
            PredicateCase("NOT (count + 1) * 2 > 15", [], Self.all.subtracting(["wxyz", "Ünïcode"])),
            PredicateCase("count / 0.0 > 1000", [], ["abc", "wxyz", "Ünïcode"]),   // ±infinity; 0 / 0.0 is no number
            PredicateCase("10 < count * 2", [], ["wxyz", "Ünïcode"]),
            PredicateCase("count > ratio * 4", [], ["abc", "wxyz", ""]),
            PredicateCase("1 + 2 == 3", [], Self.all),
            PredicateCase("count + %@ == 4", [1], ["abc"]),
            PredicateCase("count * %@ == 5", [0.5], ["wxyz"]),
            PredicateCase("tags.@count * 10 == 20", [], ["abc"]),
            PredicateCase("SUBQUERY(tags, $t, $t.weight * 2 > 4).@count > 0", [], ["wxyz", "Ünïcode"]),
            PredicateCase("flags - count BETWEEN {0, 2}", [], ["abc", "Ünïcode"]),
            PredicateCase("count * 9223372036854775807 > 0", [], ["abc", "wxyz", "Ünïcode"]),   // overflow becomes a double
            PredicateCase("score * 2 > 3.3", [], ["abc", "wxyz", "x\n"]),
        ])
        XCTAssertEqual(try FetchPredicate("count + 1 * 2 == -5").predicateFormat, "(count + (1 * 2)) == -5")
    }

    func testArithmeticOnValuesThatAreNotNumbersIsAnError() {
        let cases: [(String, FetchPredicateError.Code)] = [
            ("name + 1 == 2", .typeMismatch),
            ("count + 'a' == 1", .typeMismatch),
            ("-name == 'a'", .typeMismatch),
            ("count + {1, 2} == 1", .typeMismatch),
            ("tags + 1 == 1", .unsupported),
            ("ANY tags.weight + 1 == 6", .unsupported),     // Foundation cannot add 1 to a set either
            ("count + == 1", .syntax),
            ("(count + 1 == 2", .syntax),
            ("count ** == 1", .syntax),
            ("count * 2", .syntax),
        ]
        for (format, code) in cases {
            XCTAssertEqual(predicateError(format)?.code, code, format)
        }
    }
}
