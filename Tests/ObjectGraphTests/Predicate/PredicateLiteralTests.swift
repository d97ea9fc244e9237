import Foundation
import ObjectGraph
import XCTest

// Literal and key-path forms of Foundation's predicate language. Sources:
// - [PPG] Predicate Programming Guide, "Predicate Format String Syntax": hexadecimal (0x),
//   octal (0o) and binary (0b) integer literals; `CAST(x, 'NSDate')` with seconds since
//   2001-01-01; IN takes an array, a set or a dictionary (its values).
// - [NSString] `length`: the number of UTF-16 code units; `name.length` is key-value coding
//   on the string, which Core Data's SQLite store also answers.
// Items: abc (count 3, flags 5, note nil), wxyz (10, 2, "line1\nline2"), "" (-4, 0, ""),
// Ünïcode (7, 7, "bc"), "x\n" (0, 8, "abc").
final class PredicateLiteralTests: PredicateModelTestCase {
    static let all = PredicateModelTestCase.everyone

    func testIntegerLiteralsInEveryBase() {
        check([
            PredicateCase("flags == 0b101", [], ["abc"]),
            PredicateCase("flags == 0o7", [], ["Ünïcode"]),
            PredicateCase("flags == 0x8", [], ["x\n"]),
            PredicateCase("0B10 == flags", [], ["wxyz"]),
            PredicateCase("flags == 0XA - 0b1000", [], ["wxyz"]),
        ])
        XCTAssertEqual(predicateError("flags == 0b102")?.code, .syntax)
    }

    func testCastOfConstants() {
        check([
            PredicateCase("now() > CAST(100, 'NSDate')", [], Self.all),
            PredicateCase("CAST(0, \"NSDate\") == %@", [Date(timeIntervalSinceReferenceDate: 0)], Self.all),
            PredicateCase("CAST('3', 'NSNumber') == count", [], ["abc"]),
            PredicateCase("CAST(3.5, 'NSString') == '3.5'", [], Self.all),
        ])
        XCTAssertEqual(predicateError("CAST(name, 'NSDate') == 1")?.code, .unsupported)
        XCTAssertEqual(predicateError("CAST('x', 'NSDate') > now()")?.code, .typeMismatch)
        XCTAssertEqual(predicateError("CAST(1) == 1")?.code, .syntax)
    }

    func testStringLengthKeyPaths() {
        check([
            PredicateCase("name.length == 3", [], ["abc"]),
            PredicateCase("name.length == 0", [], [""]),
            PredicateCase("name.length == 7", [], ["Ünïcode"]),
            PredicateCase("note.length > 2", [], ["wxyz", "x\n"]),
            PredicateCase("length:(name) == 4", [], ["wxyz"]),
            PredicateCase("ANY tags.label.length == 1", [], ["abc", "wxyz", "Ünïcode"]),
        ])
        XCTAssertEqual(predicateError("count.length == 1")?.code, .unknownKey)
    }

    func testInADictionaryMeansInItsValues() {
        check([
            PredicateCase("count IN %@", [["a": 3, "b": 7]], ["abc", "Ünïcode"]),
            PredicateCase("name IN %@", [["k": "wxyz"]], ["wxyz"]),
        ])
    }
}
