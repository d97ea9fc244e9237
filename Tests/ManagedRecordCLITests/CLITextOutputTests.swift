import Foundation
import XCTest

/// `--format csv` and the table with text that broke them: `\r\n` (one `Character`), a
/// comma or a quote followed by a combining mark (one `Character`), emoji, wide characters,
/// a backslash, the empty string, and the string "NULL" beside nil.
final class CLITextOutputTests: XCTestCase {
    var store = ""

    override func setUpWithError() throws {
        store = try CLITestStores.company(in: CLITestStores.folder(), filled: false).path
        let records = #"""
        [{"firstName": "👨‍👩‍👧‍👦", "lastName": "NULL", "age": 1, "salary": 1},
         {"firstName": "a\r\nb", "lastName": "日本", "age": 2, "salary": 2},
         {"firstName": "e\u0301\\", "lastName": "", "age": 3, "salary": 3},
         {"firstName": ",\u0301x", "lastName": "\"\u0301", "age": 4, "salary": 4}]
        """#
        try CommandLineRun.tool(arguments: ["import", store, "Employee", "-"], input: records).succeeded()
    }

    func testCSVQuotesEveryFieldThatHoldsACommaQuoteOrLineBreakScalar() throws {
        let run = try CommandLineRun.tool("fetch", store, "Employee", "--sort", "age", "--format", "csv")
        XCTAssertEqual(Array(run.succeeded().unicodeScalars), Array("""
        firstName,lastName,age,salary,hired
        👨‍👩‍👧‍👦,NULL,1,1,
        "a\r\nb",日本,2,2,
        e\u{301}\\,"",3,3,
        ",\u{301}x","\"\"\u{301}",4,4,

        """.unicodeScalars), run.stdout)
    }

    func testATableEscapesControlCharactersPadsByDisplayWidthAndTellsNilFromNULL() throws {
        let run = try CommandLineRun.tool("fetch", store, "Employee", "--sort", "age")
        func row(_ cells: [(String, Int)]) -> String {
            cells.map { $0.0 + String(repeating: " ", count: $0.1) }.joined(separator: "  ")
        }
        // Widths: firstName 9, lastName 8, age 3, salary 6, hired 5 (terminal columns).
        let expected = [
            "firstName  lastName  age  salary  hired",
            "---------  --------  ---  ------  -----",
            row([("👨‍👩‍👧‍👦", 7), ("\\NULL", 3), ("1", 2), ("1", 5), ("NULL", 0)]),
            row([("a\\r\\nb", 3), ("日本", 4), ("2", 2), ("2", 5), ("NULL", 0)]),
            row([("e\u{301}\\\\", 6), ("", 8), ("3", 2), ("3", 5), ("NULL", 0)]),
            row([(",\u{301}x", 7), ("\"\u{301}", 7), ("4", 2), ("4", 5), ("NULL", 0)]),
            "(4 rows)", "",
        ].joined(separator: "\n")
        XCTAssertEqual(Array(run.succeeded().unicodeScalars), Array(expected.unicodeScalars), "\n" + run.stdout)
    }

    func testDistinctAsCSVAndTableUsesTheSameRules() throws {
        let csv = try CommandLineRun.tool("distinct", store, "Employee", "firstName", "age == 2", "--format", "csv")
        XCTAssertEqual(Array(csv.succeeded().unicodeScalars), Array("firstName\n\"a\r\nb\"\n".unicodeScalars))
        let table = try CommandLineRun.tool("distinct", store, "Employee", "lastName", "age == 1")
        XCTAssertEqual(table.succeeded(), "lastName\n--------\n\\NULL\n(1 row)\n")
    }
}
