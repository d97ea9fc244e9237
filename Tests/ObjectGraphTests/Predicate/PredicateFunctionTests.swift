import Foundation
import ObjectGraph
import XCTest

// Functions, bitwise operators, subscripts, TERNARY, literal lists and substitution variables.
// Sources:
// - [NSE] Apple, NSExpression `init(forFunction:arguments:)`: the function names (sum:,
//   average:, min:, max:, count:, add:to:, ..., modulus:by:, sqrt:, log:, ln:, raise:toPower:,
//   exp:, floor:, ceiling:, abs:, trunc:, lowercase:, uppercase:, bitwiseAnd:with:,
//   bitwiseOr:with:, bitwiseXor:with:, leftshift:by:, rightshift:by:, onesComplement:, now).
// - [HNE] github.com/daydreamboy/HelloProjects HelloNSExpression/README.md: Apple's parser
//   takes `& | ^ ~ << >>` (`0x10 >> 1 == 8`, `~0 == -1`).
// - [PPG] Predicate Programming Guide: `array[FIRST]`, `array[LAST]`, `array[SIZE]`,
//   `array[index]`; `TERNARY(predicate, a, b)`; `$VARIABLE` and
//   `withSubstitutionVariables`; ANY/ALL/NONE over a collection.
// Items: abc (count 3, ratio 0.5, flags 5, tags x:1 y:2, note nil), wxyz (10, 1.5, 2, z:5,
// "line1\nline2"), "" (-4, -2, 0, none, ""), Ünïcode (7, 3.0, 7, w:3, "bc"), "x\n" (0, 0, 8, none, "abc").
final class PredicateFunctionTests: PredicateModelTestCase {
    static let all = PredicateModelTestCase.everyone

    func testFoundationFunctionsOnValuesAndKeyPaths() {
        check([
            PredicateCase("abs:(count) == 4", [], [""]),
            PredicateCase("abs:(ratio) > 1.9", [], ["", "Ünïcode"]),
            PredicateCase("lowercase:(name) == 'ünïcode'", [], ["Ünïcode"]),
            PredicateCase("uppercase:(name) == 'ABC'", [], ["abc"]),
            PredicateCase("uppercase:(note) BEGINSWITH 'LINE'", [], ["wxyz"]),
            PredicateCase("lowercase:(note) == nil", [], ["abc"]),
            PredicateCase("sqrt:(count + 6) == 4", [], ["wxyz"]),
            PredicateCase("floor:(ratio) == 1", [], ["wxyz"]),
            PredicateCase("ceiling:(ratio) == 1", [], ["abc"]),
            PredicateCase("trunc:(ratio) == -2", [], [""]),
            PredicateCase("modulus:by:(count, 3) == 1", [], ["wxyz", "Ünïcode"]),
            PredicateCase("log:(100) == 2", [], Self.all),
            PredicateCase("ln:(1) == 0", [], Self.all),
            PredicateCase("exp:(0) == 1", [], Self.all),
            PredicateCase("raise:toPower:(2, 3) == 8", [], Self.all),
            PredicateCase("add:to:(count, 1) == 4", [], ["abc"]),
            PredicateCase("now() > %@", [Date(timeIntervalSinceReferenceDate: 0)], Self.all),
            PredicateCase("now() < %@", [Date(timeIntervalSinceReferenceDate: 0)], []),
        ])
    }

    /// [HNE] the bitwise operators, loosest first: `|`, `^`, `&`, shifts.
    func testBitwiseOperators() {
        check([
            PredicateCase("flags & 4 == 4", [], ["abc", "Ünïcode"]),
            PredicateCase("flags | 1 == 3", [], ["wxyz"]),
            PredicateCase("flags ^ 7 == 0", [], ["Ünïcode"]),
            PredicateCase("flags << 1 == 16", [], ["x\n"]),
            PredicateCase("flags >> 1 == 2", [], ["abc"]),
            PredicateCase("~flags == -1", [], [""]),
            PredicateCase("~0 == -1", [], Self.all),
            PredicateCase("0x10 >> 1 == 8", [], Self.all),
            PredicateCase("bitwiseAnd:with:(flags, 2) != 0", [], ["wxyz", "Ünïcode"]),
            PredicateCase("flags & 1 | 2 == 3", [], ["abc", "Ünïcode"]),
            PredicateCase("(flags & 3) * 2 == 2", [], ["abc"]),
        ])
    }

    /// [NSE] sum:, average:, min:, max:, count: of a list or of a to-many key path.
    func testAggregateFunctionsOverListsAndToManyKeyPaths() {
        check([
            PredicateCase("count == sum:({1, 2})", [], ["abc"]),
            PredicateCase("count == max:(%@)", [[1, 7, 3]], ["Ünïcode"]),
            PredicateCase("count > average:({2, 4})", [], ["wxyz", "Ünïcode"]),
            PredicateCase("min:({5, -4}) == count", [], [""]),
            PredicateCase("count:({1, 2, 3}) == count", [], ["abc"]),
            PredicateCase("sum:(tags.weight) == 3", [], ["abc", "Ünïcode"]),
            PredicateCase("max:(tags.weight) >= 3", [], ["wxyz", "Ünïcode"]),
            PredicateCase("count:(tags) == 1", [], ["wxyz", "Ünïcode"]),
            PredicateCase("average:(tags.weight) == 1.5", [], ["abc"]),
        ])
    }

    /// [PPG] subscripts on literal lists and arguments; [SIZE] on to-many key paths.
    func testSubscriptsOnListsAndToManyKeyPaths() {
        check([
            PredicateCase("{1, 2, 3}[SIZE] == 3", [], Self.all),
            PredicateCase("{1, 2, 3}[FIRST] == 1", [], Self.all),
            PredicateCase("{1, 2, 3}[LAST] == count", [], ["abc"]),
            PredicateCase("{3, 10}[1] == count", [], ["wxyz"]),
            PredicateCase("%@[LAST] == count", [[1, 7]], ["Ünïcode"]),
            PredicateCase("%@[%d] == count", [[1, 7], 0], []),
            PredicateCase("tags[SIZE] == 2", [], ["abc"]),
            PredicateCase("SUBQUERY(tags, $t, $t.weight > 1)[SIZE] == 1", [], ["abc", "wxyz", "Ünïcode"]),
        ])
        XCTAssertEqual(predicateError("tags[FIRST] == 1")?.code, .unsupported)     // a set has no first
        XCTAssertEqual(predicateError("{1, 2}[5] == 1")?.code, .unsupported)
        XCTAssertEqual(predicateError("{1, 2}[-1] == 1")?.code, .syntax)
        XCTAssertEqual(predicateError("tags[FIRST].weight == 1")?.code, .syntax)
    }

    /// [PPG] TERNARY(predicate, a, b).
    func testTernary() {
        check([
            PredicateCase("TERNARY(count > 5, 'big', 'small') == 'big'", [], ["wxyz", "Ünïcode"]),
            PredicateCase("TERNARY(note == nil, 0, count) == 0", [], ["abc", "x\n"]),
            PredicateCase("TERNARY(ANY tags.weight > 2, ratio, -1) > 1", [], ["wxyz", "Ünïcode"]),
            PredicateCase("ternary(count < 0, -count, count) == 4", [], [""]),
        ])
        XCTAssertEqual(predicateError("TERNARY(count > 5, 'a', 1) == 1")?.code, .typeMismatch)
    }

    /// Two literal lists compare element by element (NSArray isEqual:); ANY/ALL/NONE range
    /// over a literal list on the left.
    func testLiteralListsOnTheLeft() {
        check([
            PredicateCase("{1, 2} == {1, 2}", [], Self.all),
            PredicateCase("{1, 2} != {1, 2}", [], []),
            PredicateCase("{1, 2} == {2, 1}", [], []),
            PredicateCase("{1, 2.0} == {1.0, 2}", [], Self.all),
            PredicateCase("{'a'} ==[c] {'A'}", [], Self.all),
            PredicateCase("ANY {1, 3, 7} == count", [], ["abc", "Ünïcode"]),
            PredicateCase("ALL {1, 2} < count", [], ["abc", "wxyz", "Ünïcode"]),
            PredicateCase("NONE {3, 10} == count", [], Self.all.subtracting(["abc", "wxyz"])),
            PredicateCase("ANY {} == count", [], []),
            PredicateCase("ALL {} == count", [], Self.all),
            PredicateCase("{1, 3, 7} CONTAINS count", [], ["abc", "Ünïcode"]),
            PredicateCase("%@ CONTAINS name", [["abc", "q"]], ["abc"]),
            PredicateCase("{1, 2, 3}.@count == count", [], ["abc"]),
            PredicateCase("%@.@sum == count", [[3, 7]], ["wxyz"]),
            PredicateCase("{7, 3}.@max == count", [], ["Ünïcode"]),
            PredicateCase("{2, 4}.@avg == count", [], ["abc"]),
        ])
    }

    /// [PPG] `$VARIABLE` anywhere an expression goes, filled by withSubstitutionVariables.
    func testSubstitutionVariablesInEveryKindOfExpression() throws {
        let cases: [(String, [String: Any?], Set<String>)] = [
            ("count > $MIN AND name IN $NAMES", ["MIN": 2, "NAMES": ["abc", "wxyz", "x\n"]], ["abc", "wxyz"]),
            ("lowercase:(name) == $N", ["N": "abc"], ["abc"]),
            ("TERNARY(count > $T, 1, 0) == 1", ["T": 5], ["wxyz", "Ünïcode"]),
            ("{$A, $B}[LAST] == count", ["A": 1, "B": 3], ["abc"]),
            ("count * $K == 20", ["K": 2], ["wxyz"]),
            ("SUBQUERY(tags, $t, $t.weight > $W).@count > 0", ["W": 4], ["wxyz"]),
        ]
        for (format, variables, expected) in cases {
            let predicate = try FetchPredicate(format).withSubstitutionVariables(variables)
            XCTAssertEqual(try sqlNames(predicate), expected, format)
            XCTAssertEqual(try memoryNames(predicate), expected, "memory: \(format)")
        }
        XCTAssertEqual(predicateError("count * $K == 20")?.code, .variable)
    }

    func testFunctionsThatCannotBeAnsweredAreErrors() {
        let cases: [(String, FetchPredicateError.Code)] = [
            ("FUNCTION(name, 'uppercaseString') == 'ABC'", .unsupported),
            ("foo:(1) == 1", .unsupported),
            ("random() > 1", .unsupported),
            ("abs:(1, 2) == 1", .syntax),
            ("now(1) > 1", .syntax),
            ("lowercase:(count) == 'a'", .typeMismatch),
            ("abs:(name) == 1", .typeMismatch),
            ("sum:(name) == 1", .typeMismatch),
            ("sum:({'a'}) == 1", .typeMismatch),
            ("abs:(tags) == 1", .unsupported),
            ("count & 'a' == 1", .typeMismatch),
        ]
        for (format, code) in cases {
            XCTAssertEqual(predicateError(format)?.code, code, format)
        }
    }
}

extension PredicateFunctionTests {
    /// [NSE] set expressions (NSExpression `unionSet`, `intersectSet`, `minusSet`, written
    /// UNION, INTERSECT, MINUS) of collections, and median:. Expected values as in a public
    /// Foundation self-test ("Foundation self-test for the isim runtime", found by code search):
    /// `{1, 2} UNION {2, 3}` has 3 elements, INTERSECT gives {2}, MINUS {1}, median:({5, 1, 3})
    /// is 3, modulus:by:(17, 5) is 2, 2 ** 10 is 1024, sqrt:(16) + abs:(-2) is 6.
    func testSetExpressionsAndMedianOfConstantCollections() {
        check([
            PredicateCase("({1, 2} UNION {2, 3})[SIZE] == count", [], ["abc"]),
            PredicateCase("count IN {1, 2} UNION {3, 10}", [], ["abc", "wxyz"]),
            PredicateCase("count IN {3, 7, 10} INTERSECT %@", [[7, 10, 11]], ["wxyz", "Ünïcode"]),
            PredicateCase("count IN {3, 7, 10} MINUS {7}", [], ["abc", "wxyz"]),
            PredicateCase("({1, 2} INTERSECT {2, 3})[FIRST] == 2", [], Self.all),
            PredicateCase("median:({5, 1, 3}) == count", [], ["abc"]),
            PredicateCase("median:({10, 4}) == count", [], ["Ünïcode"]),
            PredicateCase("modulus:by:(17, 5) == 2", [], Self.all),
            PredicateCase("2 ** 10 == 1024", [], Self.all),
            PredicateCase("sqrt:(16) + abs:(-2) == 6", [], Self.all),
        ])
        XCTAssertEqual(predicateError("count IN tags UNION {1}")?.code, .unsupported)
        XCTAssertEqual(predicateError("stddev:({1, 2}) > 0")?.code, .unsupported)
        XCTAssertEqual(predicateError("median:(tags.weight) > 0")?.code, .unsupported)
    }
}
