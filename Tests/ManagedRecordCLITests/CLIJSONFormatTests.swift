import Foundation
import XCTest

/// `--format json` prints one JSON document (an array), as `sqlite3 -json`, `gh` and
/// `kubectl -o json` do, which strict parsers read; `--format jsonl` prints JSON Lines.
final class CLIJSONFormatTests: XCTestCase {
    var store = ""

    override func setUpWithError() throws {
        store = try CLITestStores.company(in: CLITestStores.folder()).path
    }

    func testFetchDistinctAndExportAsJSONAreOneDocumentThatStrictParsersRead() throws {
        let runs: [[String]] = [
            ["fetch", store, "Employee", "--format", "json"],
            ["fetch", store, "Employee", "age > 100", "--format", "json"],
            ["distinct", store, "Employee", "lastName", "--format", "json"],
            ["export", store, "Employee"],
            ["export", store, "Department", "--format", "json"],
            ["aggregate", store, "Employee", "max", "age"],
        ]
        for arguments in runs {
            let output = try CommandLineRun.tool(arguments: arguments).succeeded()
            let parsed = try JSONSerialization.jsonObject(with: Data(output.utf8), options: [.fragmentsAllowed])
            if arguments[0] != "aggregate" { XCTAssertTrue(parsed is [Any], "\(arguments): \(output)") }
            try Self.assertPythonReads(output, arguments)
        }
        let objects = try XCTUnwrap(JSONSerialization.jsonObject(with: Data(CommandLineRun.tool("fetch", store, "Employee", "--format", "json").succeeded().utf8)) as? [[String: Any]])
        XCTAssertEqual(objects.count, 5)
        XCTAssertEqual(try CommandLineRun.tool("fetch", store, "Employee", "age > 100", "--format", "json").succeeded(), "[]\n")
        XCTAssertEqual(try CommandLineRun.tool("distinct", store, "Employee", "department.name", "--format", "json").succeeded(),
                       "[\n\"Engineering\",\n\"Sales\"\n]\n")
    }

    func testJSONLinesIsOneObjectPerLineAndImportReadsIt() throws {
        let lines = try CommandLineRun.tool("fetch", store, "Employee", "--sort", "lastName", "--format", "jsonl").lines
        XCTAssertEqual(lines.count, 5)
        for line in lines { XCTAssertNotNil(try JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any], line) }
        XCTAssertEqual(try CommandLineRun.tool("distinct", store, "Employee", "department.name", "--format", "jsonl").succeeded(),
                       "\"Engineering\"\n\"Sales\"\n")
        XCTAssertEqual(try CommandLineRun.tool("fetch", store, "Employee", "age > 100", "--format", "jsonl").succeeded(), "")

        let exported = try CommandLineRun.tool("export", store, "Employee", "--format", "jsonl").succeeded()
        XCTAssertEqual(exported.split(separator: "\n").count, 5)
        XCTAssertEqual(exported, try CommandLineRun.tool("fetch", store, "Employee", "--format", "jsonl").succeeded(),
                       "fetch and export write the same objects")
        let empty = try CLITestStores.company(in: CLITestStores.folder(), filled: false).path
        XCTAssertEqual(try CommandLineRun.tool(arguments: ["import", empty, "Employee", "-"], input: exported).succeeded(),
                       "inserted 7, updated 0, skipped 0\n", "5 employees and their 2 departments, nested")
        XCTAssertEqual(try CommandLineRun.tool("count", empty, "Department").succeeded(), "2\n")

        // A bad line is named, and nothing is imported.
        let bad = try CommandLineRun.tool(arguments: ["import", empty, "Department", "-"], input: "{\"name\": \"A\"}\n{\"name\": \"B\"}\n{\"name\": \n")
        XCTAssertEqual(bad.status, 1)
        XCTAssertTrue(bad.stderr.contains("standard input, line 3: not a JSON object"), bad.stderr)
        XCTAssertEqual(try CommandLineRun.tool("count", empty, "Department").succeeded(), "2\n")
    }

    func testExportRefusesATableFormat() throws {
        let run = try CommandLineRun.tool("export", store, "Employee", "--format", "csv")
        XCTAssertNotEqual(run.status, 0)
        XCTAssertTrue(run.stderr.contains("json or jsonl"), run.stderr)
    }

    /// `python3 -m json.tool` reads `text` as one document, when python3 is installed.
    static func assertPythonReads(_ text: String, _ what: [String], file: StaticString = #filePath, line: UInt = #line) throws {
        guard let python = ["/usr/bin/python3", "/usr/local/bin/python3", "/root/.pyenv/shims/python3"]
            .first(where: FileManager.default.isExecutableFile(atPath:)) else { return }
        let run = try CommandLineRun.run(python, ["-m", "json.tool"], input: text)
        XCTAssertEqual(run.status, 0, "python3 -m json.tool rejects the output of \(what): \(run.stderr)\n\(text)", file: file, line: line)
    }
}
