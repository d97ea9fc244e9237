import Foundation
import ObjectGraph
import XCTest

// Where a predicate meant something other than in Foundation, it now means what Foundation
// answers. Sources cited per group:
// - [PPG] Apple, Predicate Programming Guide, "Predicate Format String Syntax".
// - [GS] GNUstep libs-base Source/NSPredicate.m: `-[NSComparisonPredicate
//   _evaluateLeftValue:rightValue:object:]` and `GSICUStringMatchesRegex`.
// - [NSString] Apple, NSString `hasPrefix(_:)` / `hasSuffix(_:)`: "Returns false if aString is
//   empty"; `range(of:)` finds no empty string (NSNotFound).
final class PredicateFoundationMeaningTests: PredicateModelTestCase {
    static let all = PredicateModelTestCase.everyone

    /// [PPG] "%K is a var arg substitution for a key path"; Foundation's parser takes it as any
    /// component of a key path, not only the first.
    func testKeyPathArgumentsAnywhereInAKeyPath() {
        check([
            PredicateCase("%K == %@", ["name", "abc"], ["abc"]),
            PredicateCase("ANY %K.%K == 'x'", ["tags", "label"], ["abc"]),
            PredicateCase("ANY tags.%K == %@", ["label", "z"], ["wxyz"]),
            PredicateCase("tags.%K >= 5", ["weight"], ["wxyz"]),
            PredicateCase("%K.%K == 2", ["tags", "@count"], ["abc"]),
            PredicateCase("SUBQUERY(tags, $t, $t.%K > 1).@count > 0", ["weight"], ["abc", "wxyz", "Ünïcode"]),
        ])
        XCTAssertEqual(predicateError("tags.%K == 1", [3])?.code, .argument)
        XCTAssertEqual(predicateError("tags.%K == 1")?.code, .argument)
    }

    /// [NSString] an empty search string is never found, with or without [c] [d] [cd]
    /// (Foundation's BEGINSWITH/ENDSWITH/CONTAINS are hasPrefix/hasSuffix/range(of:)).
    func testEmptySearchStringsAreNeverFound() {
        var cases: [PredicateCase] = []
        for op in ["BEGINSWITH", "ENDSWITH", "CONTAINS"] {
            for options in ["", "[c]", "[d]", "[cd]"] {
                cases.append(PredicateCase("name \(op)\(options) ''", [], []))
                cases.append(PredicateCase("note \(op)\(options) %@", [""], []))
                cases.append(PredicateCase("NOT name \(op)\(options) ''", [], Self.all))
            }
        }
        cases += [
            PredicateCase("name CONTAINS name", [], Self.all.subtracting([""])),
            PredicateCase("name BEGINSWITH note", [], []),
            PredicateCase("'' BEGINSWITH ''", [], []),
            PredicateCase("'abc' CONTAINS ''", [], []),
            PredicateCase("name == ''", [], [""]),
            PredicateCase("name LIKE ''", [], [""]),
            PredicateCase("ANY tags.label CONTAINS ''", [], []),
        ]
        check(cases)
    }

    /// [GS] IN with a string on the right is `rangeOfString:` of the left side: a substring
    /// test (with the comparison's [c]/[d] options).
    func testInWithAStringOnTheRightIsASubstringTest() {
        check([
            PredicateCase("name IN 'wxyz abc'", [], ["abc", "wxyz"]),
            PredicateCase("name IN %@", ["xabcx"], ["abc"]),
            PredicateCase("name IN[c] 'ABC'", [], ["abc"]),
            PredicateCase("name IN[cd] 'unicode!'", [], ["Ünïcode"]),
            PredicateCase("%@ IN %@", ["b", "abc"], Self.all),
            PredicateCase("%@ IN %@", ["q", "abc"], []),
            PredicateCase("'b' IN note", [], ["Ünïcode", "x\n"]),
            PredicateCase("'c' IN name", [], ["abc", "Ünïcode"]),
            PredicateCase("note IN name", [], []),
            PredicateCase("'' IN name", [], []),
            PredicateCase("name IN {'abc', 'b'}", [], ["abc"]),
        ])
    }

    /// A decimal literal meets a Float attribute at Float precision: Foundation compares the
    /// attribute's NSNumber (a float) with the literal as written, so `score == 1.7` finds the
    /// item whose score was set to 1.7.
    func testDecimalLiteralsMeetFloatAttributesAtFloatPrecision() {
        check([
            PredicateCase("score == 1.7", [], ["abc"]),
            PredicateCase("score == %@", [1.7], ["abc"]),
            PredicateCase("score == %@", [Float(1.7)], ["abc"]),
            PredicateCase("1.7 == score", [], ["abc"]),
            PredicateCase("score IN {1.1, 2.5}", [], ["Ünïcode", "wxyz"]),
            PredicateCase("score IN %@", [[1.1, 2.5]], ["Ünïcode", "wxyz"]),
            PredicateCase("score != 1.1", [], Self.all.subtracting(["Ünïcode"])),
            PredicateCase("score > 1.7", [], ["wxyz", "x\n"]),
            PredicateCase("score >= 1.7", [], ["abc", "wxyz", "x\n"]),
            PredicateCase("score <= 1.1", [], ["Ünïcode", ""]),
            PredicateCase("score BETWEEN {1.1, 1.7}", [], ["Ünïcode", "abc"]),
            PredicateCase("score == 2", [], ["x\n"]),
            PredicateCase("ratio == 0.5", [], ["abc"]),
        ])
    }

    /// [GS] MATCHES is ICU's uregex_matches with UREGEX_DOTALL: the whole string, `.` takes
    /// newlines too; `$` before a final newline does not make a partial match whole.
    func testMatchesTakesTheWholeStringWithICUSemantics() {
        check([
            PredicateCase("note MATCHES 'line1.line2'", [], ["wxyz"]),
            PredicateCase("note MATCHES 'line1'", [], []),
            PredicateCase("note MATCHES 'line1$.*'", [], []),
            PredicateCase("note MATCHES '(?m)line1$.*'", [], ["wxyz"]),
            PredicateCase("name MATCHES 'x'", [], []),
            PredicateCase("name MATCHES 'x$'", [], []),
            PredicateCase("name MATCHES 'x\\n'", [], ["x\n"]),
            PredicateCase("name MATCHES 'x\\\\s'", [], ["x\n"]),
            PredicateCase("name MATCHES '.*'", [], Self.all),
            PredicateCase("name MATCHES '^a.*$'", [], ["abc"]),
            PredicateCase("name MATCHES 'a|abc'", [], ["abc"]),
            PredicateCase("name MATCHES[c] 'ABC'", [], ["abc"]),
            PredicateCase("name MATCHES[cd] 'unicode'", [], ["Ünïcode"]),
            PredicateCase("name MATCHES '\\\\p{Lu}.*'", [], ["Ünïcode"]),
            // An empty pattern is no regular expression (ICU's uregex_open refuses a zero length).
            PredicateCase("note MATCHES name", [], []),
        ])
        XCTAssertEqual(predicateError("name MATCHES '('")?.code, .syntax)
        XCTAssertEqual(predicateError("name MATCHES ''")?.code, .syntax)
        XCTAssertEqual(predicateError("name MATCHES 'a)(b'")?.code, .syntax)
        XCTAssertTrue(predicateError("name MATCHES %@", ["[z-a]"])?.message.contains("regular expression") ?? false)
    }

    /// Decided against [GS], whose `_evaluateLeftValue:` answers `==`, `<=`, `>=` with
    /// "both nil": nil is `<=` and `>=` nil, never `<` or `>` it. One nil side is never
    /// ordered (SQL's NULL, as Core Data's SQLite store answers).
    func testNilAgainstNilUnderOrderingOperators() {
        check([
            PredicateCase("note <= nil", [], ["abc"]),
            PredicateCase("note >= nil", [], ["abc"]),
            PredicateCase("note =< NULL", [], ["abc"]),
            PredicateCase("note < nil", [], []),
            PredicateCase("note > nil", [], []),
            PredicateCase("nil <= nil", [], Self.all),
            PredicateCase("nil >= nil", [], Self.all),
            PredicateCase("nil < nil", [], []),
            PredicateCase("nil > note", [], []),
            PredicateCase("nil <= note", [], ["abc"]),
            PredicateCase("note <= note", [], Self.all),
            PredicateCase("note >= note", [], Self.all),
            PredicateCase("note < note", [], []),
            PredicateCase("note >= name", [], [""]),
            PredicateCase("note < 'b'", [], ["", "x\n"]),
            PredicateCase("note BETWEEN {nil, nil}", [], ["abc"]),
            PredicateCase("note BETWEEN {nil, 'z'}", [], []),
            PredicateCase("count BETWEEN %@", [[nil, 5]], []),
            PredicateCase("NOT note < 'b'", [], Self.all.subtracting(["", "x\n"])),
        ])
    }

    /// [PPG] "%@ ... single or double quoting variables (or substitution variable strings)
    /// cause %@, %K, or $variable to be interpreted as a literal in the format string";
    /// arguments the format does not use are ignored, as with a C varargs list.
    func testQuotedSpecifiersAreTextAndUnusedArgumentsAreIgnored() throws {
        check([
            PredicateCase("name == '%@'", [], []),
            PredicateCase("name == '%@' OR name == %@", ["abc"], ["abc"]),
            PredicateCase("name == \"%K\" OR name == %@", ["wxyz"], ["wxyz"]),
            PredicateCase("name == %@", ["abc", "unused", 3], ["abc"]),
            PredicateCase("TRUEPREDICATE", ["unused"], Self.all),
        ])
        XCTAssertEqual(try FetchPredicate("name == '$NAME'").withSubstitutionVariables(["NAME": "abc"]).predicateFormat, "name == \"$NAME\"")
    }

    /// Decided: a Boolean literal against a string attribute is a type mismatch. Foundation
    /// would compare an NSNumber with an NSString (never equal); that is a bug in the
    /// predicate, so it is reported rather than answered.
    func testBooleanLiteralsAgainstStringAttributesAreTypeMismatches() {
        for format in ["name == YES", "name == TRUE", "note != NO", "name IN {TRUE}", "name BEGINSWITH FALSE"] {
            let error = predicateError(format)
            XCTAssertEqual(error?.code, .typeMismatch, format)
            XCTAssertTrue(error?.message.contains("String") ?? false, "\(format): \(String(describing: error))")
        }
    }
}
