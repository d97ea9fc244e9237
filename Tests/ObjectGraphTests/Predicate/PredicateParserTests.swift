import Foundation
import ObjectGraph
import XCTest

/// Malformed strings, unknown keys, type mismatches and bad arguments throw
/// `FetchPredicateError`s that say where and what, before any SQL reaches SQLite.
final class PredicateParserTests: QueryTestCase {
    private func syntaxError(_ format: String, _ arguments: [Any?] = [], file: StaticString = #filePath, line: UInt = #line) -> FetchPredicateError? {
        do {
            _ = try FetchPredicate(format, argumentArray: arguments)
            XCTFail("\(format) parsed", file: file, line: line)
            return nil
        } catch let error as FetchPredicateError {
            return error
        } catch {
            XCTFail("\(format): \(error)", file: file, line: line)
            return nil
        }
    }

    func testAnUnclosedParenthesisNamesThePositionAndTheExpectedToken() {
        let error = syntaxError("age > 3 AND (name == 'x'")
        XCTAssertEqual(error?.code, .syntax)
        XCTAssertEqual(error?.position, 24)
        XCTAssertEqual(error?.message, "expected ')' at 24 (end of input) in \"age > 3 AND (name == 'x'\"")
    }

    func testEveryMalformedStringThrowsASyntaxErrorAtItsPosition() {
        let cases: [(String, Int, String)] = [
            ("age >", 5, "a key path or a value"),
            ("age 3", 4, "a comparison operator"),
            ("age > 3 extra", 8, "AND, OR or the end"),
            ("age > 3 AND", 11, "a key path or a value"),
            ("(age > 3", 8, "')'"),
            ("age IN {1, 2", 12, "'}'"),
            ("name == 'unterminated", 21, "a closing '"),
            ("name == \"open", 13, "a closing \""),
            ("age ==[x] 3", 7, "c, d or cd"),
            ("age ==[c 3", 9, "']'"),
            ("age ~ 3", 4, "a comparison operator"),     // ~ is a prefix operator (onesComplement:)
            ("age ` 3", 4, "a key, a value or an operator"),
            ("AND age > 3", 0, "a key path or a value"),
            ("", 0, "a key path or a value"),
            ("age > 3 AND OR age < 2", 12, "a key path or a value"),
            ("age > % 3", 7, "a format specifier"),
            ("SUBQUERY(reports, r, r.age > 3).@count > 0", 18, "a $variable"),
            ("SUBQUERY(reports, $r $r.age > 3).@count > 0", 21, "','"),
            ("name == 'x'; DROP TABLE ZQEMPLOYEE", 11, "a key, a value or an operator"),
            ("age > 3 /* x */", 9, "a key path or a value"),     // '/' divides; '*' has nothing to multiply
            ("age == $", 8, "a variable name"),
            ("name == 'x\\u12'", 12, "four hex digits"),
            ("department. == 'x'", 12, "a key after '.'"),
            ("'x'.length == 1", 4, "a key path before"),
        ]
        for (format, position, expected) in cases {
            guard let error = syntaxError(format) else { continue }
            XCTAssertEqual(error.code, .syntax, format)
            XCTAssertEqual(error.position, position, "\(format): \(error.message)")
            XCTAssertTrue(error.message.contains("expected \(expected)"), "\(format): \(error.message)")
            XCTAssertEqual(error.format, format)
        }
    }

    func testMissingExtraAndWrongArgumentsThrowArgumentErrors() {
        XCTAssertEqual(syntaxError("age > %@")?.code, .argument)
        XCTAssertNoThrow(try FetchPredicate("age > %@", 1, 2))     // unused arguments are ignored, as NSPredicate ignores them
        XCTAssertEqual(syntaxError("%K == 1", [5])?.code, .argument)
        XCTAssertEqual(syntaxError("age > %d", ["forty"])?.code, .argument)
        struct Opaque {}
        XCTAssertEqual(syntaxError("age == %@", [Opaque()])?.code, .argument)
        XCTAssertTrue(syntaxError("age > %@ AND name == %@", [1])?.message.contains("no argument") ?? false)
    }

    func testAllLiteralFormsParse() throws {
        let formats = [
            "name == 'it\\'s'", "name == \"say \\\"hi\\\"\"", "name == 'tab\\tnew\\nline'", "name == '\\u00e9'",
            "age == 42", "age == -42", "age == +3", "salary == 3.25", "salary == 1e3", "salary == 2.5E-2", "age == 0x1F",
            "active == TRUE", "active == true", "active == YES", "active == FALSE", "active == NO", "nickname == NIL",
            "nickname == null", "TRUEPREDICATE", "falsepredicate", "age between {1, 2}", "name in {'a', \"b\"}",
            "#name == 'x'", "name ==[cd] 'x'", "name BEGINSWITH[n] 'x'", "a = 1 and b = 2 or not c = 3",
        ]
        for format in formats {
            XCTAssertNoThrow(try FetchPredicate(format), format)
        }
        XCTAssertEqual(try FetchPredicate("age > 3 OR age < 1 AND age == 2"), try FetchPredicate("age > 3 OR (age < 1 AND age == 2)"))
        XCTAssertEqual(try FetchPredicate("NOT age > 3 AND age < 9"), try FetchPredicate("(NOT age > 3) AND age < 9"))
        XCTAssertEqual(try FetchPredicate("a == 1 && b == 2 || !(c == 3)"), try FetchPredicate("(a == 1 AND b == 2) OR NOT c == 3"))
    }

    func testPredicateFormatParsesBackToTheSamePredicate() throws {
        let formats = [
            "age > 40 AND department.name == 'Sales'", "NOT (lastName BEGINSWITH[cd] 'é' OR age IN {1, 2})",
            "ANY reports.age > 50", "reports.@avg.age >= 3.5", "SUBQUERY(reports, $r, $r.age > 40).@count > 0",
            "name == 'quote \\' and \\\\ backslash'", "nickname == nil", "TRUEPREDICATE", "SELF == $X",
        ]
        for format in formats {
            let predicate = try FetchPredicate(format)
            XCTAssertEqual(try FetchPredicate(predicate.predicateFormat), predicate, predicate.predicateFormat)
        }
    }

    // MARK: Errors found when binding to an entity

    private func bindingError(_ format: String, _ arguments: [Any?] = [], file: StaticString = #filePath, line: UInt = #line) -> FetchPredicateError? {
        do {
            let predicate = try FetchPredicate(format, argumentArray: arguments)
            _ = try context.fetch(FetchRequest<QEmployee>(predicate: predicate))
            XCTFail("\(format) ran", file: file, line: line)
        } catch let error as FetchPredicateError {
            return error
        } catch {
            XCTFail("\(format): \(error)", file: file, line: line)
        }
        return nil
    }

    func testAnUnknownKeyNamesTheEntityAndTheKey() throws {
        try seedCompany()
        startRecording()
        let error = bindingError("nickame == 'x'")
        XCTAssertEqual(error?.code, .unknownKey)
        XCTAssertEqual(error?.entity, "QEmployee")
        XCTAssertEqual(error?.key, "nickame")
        XCTAssertTrue(error?.message.contains("QEmployee has no property named 'nickame'") ?? false, error?.message ?? "")
        let nested = bindingError("department.nam == 'x'")
        XCTAssertEqual(nested?.entity, "QDepartment")
        XCTAssertEqual(nested?.key, "department.nam")
        XCTAssertEqual(bindingError("%K == 1", ["ZAGE"])?.code, .unknownKey)
        XCTAssertEqual(bindingError("age.value == 1")?.code, .unknownKey)
        XCTAssertEqual(bindingError("age > 3 -- comment")?.code, .unknownKey, "3 - (-comment): arithmetic on an unknown key")
        XCTAssertEqual(bindingError("level == 2")?.code, .unknownKey, "level belongs to the sub-entity QManager")
        XCTAssertTrue(recorder.queries.isEmpty, "no SQL ran: \(recorder.queries)")
    }

    func testATypeMismatchNamesBothTypes() throws {
        let company = try seedCompany()
        startRecording()
        let error = bindingError("hired == 'yesterday'")
        XCTAssertEqual(error?.code, .typeMismatch)
        XCTAssertTrue(error?.message.contains("Date") ?? false, error?.message ?? "")
        XCTAssertTrue(error?.message.contains("String") ?? false, error?.message ?? "")
        let cases: [(String, [Any?])] = [
            ("age == %@", ["forty"]), ("age BEGINSWITH 'x'", []), ("lastName > 3", []), ("badge == 'abc'", []),
            ("department == %@", [company.apollo]), ("department == 'Sales'", []), ("department > %@", [company.sales]),
            ("age == lastName", []), ("reports.@sum.lastName > 1", []), ("age == {1, 2}", []),
            ("age BETWEEN {1}", []), ("self == %@", [company.sales]), ("hired > 3", []), ("lastName CONTAINS 3", []),
        ]
        for (format, arguments) in cases {
            let code = bindingError(format, arguments)?.code
            XCTAssertTrue(code == .typeMismatch || code == .unknownKey, "\(format): \(String(describing: code))")
        }
        XCTAssertTrue(recorder.queries.isEmpty, "no SQL ran: \(recorder.queries)")
    }

    func testUnsupportedConstructsAreRefusedBeforeSQL() throws {
        try seedCompany()
        startRecording()
        XCTAssertEqual(bindingError("scratch == 'x'")?.code, .unsupported, "transient attributes are not stored")
        XCTAssertEqual(bindingError("ANY age > 3")?.code, .unsupported)
        XCTAssertEqual(bindingError("ANY projects.members.age > 3")?.code, .unsupported)
        XCTAssertEqual(bindingError("projects.@median.age > 3")?.code, .unsupported)
        XCTAssertEqual(bindingError("SUBQUERY(age, $a, $a > 1).@count > 0")?.code, .unsupported)
        XCTAssertEqual(bindingError("$missing == 1")?.code, .variable)
        XCTAssertTrue(recorder.queries.isEmpty, "no SQL ran: \(recorder.queries)")
    }

    func testEvaluateReportsTheSameErrorsAsAFetch() throws {
        let company = try seedCompany()
        XCTAssertThrowsError(try FetchPredicate("nickame == 'x'").evaluate(with: company.john)) { error in
            XCTAssertEqual((error as? FetchPredicateError)?.code, .unknownKey)
        }
        XCTAssertThrowsError(try FetchPredicate("hired == 'x'").evaluate(with: company.john)) { error in
            XCTAssertEqual((error as? FetchPredicateError)?.code, .typeMismatch)
        }
        XCTAssertTrue(try FetchPredicate("department.name == 'Sales' AND age == 42").evaluate(with: company.john))
    }
}
