import Foundation
import XCTest

/// What a command-line tool owes its users: `--version`, examples in every `--help` (that
/// run), a JSON schema for programs, no prompt without a terminal, one error style.
final class CLIConventionsTests: XCTestCase {
    static let subcommands = ["fetch", "count", "distinct", "aggregate", "schema", "check", "delete", "export", "import",
                              "backup", "restore", "migrate", "history", "watch"]

    /// Before: "Error: Unknown option '--version'", exit 64.
    func testVersionPrintsTheVersion() throws {
        XCTAssertEqual(try CommandLineRun.tool("--version").succeeded(), "0.4.0-dev\n")
    }

    /// Before: no help had an EXAMPLES section.
    func testEveryHelpHasExamples() throws {
        for command in [[]] + Self.subcommands.map({ [$0] }) {
            let help = try CommandLineRun.tool(arguments: command + ["--help"]).succeeded()
            let examples = Self.examples(in: help)
            XCTAssertFalse(examples.isEmpty, "\(command): \(help)")
            for example in examples {
                XCTAssertTrue(example.contains("managedrecord \(command.first ?? "")"), "\(command): \(example)")
            }
        }
    }

    /// The examples of the commands that read (and export's files) run as written on the
    /// store the guide uses, by a shell, with the tool on PATH.
    func testTheExamplesOfTheReadCommandsRun() throws {
        let folder = try CLITestStores.folder()
        _ = try CLITestStores.company(in: folder)
        let tools = URL(fileURLWithPath: CommandLine.arguments[0]).resolvingSymlinksInPath().deletingLastPathComponent().path
        var ran = 0
        for command in ["fetch", "count", "distinct", "aggregate", "schema", "check", "export", "import"] {
            let help = try CommandLineRun.tool(command, "--help").succeeded()
            for example in Self.examples(in: help) where !example.contains("postgres://") && !example.contains("--model") {
                let run = try CommandLineRun.run("/bin/sh", ["-c", "PATH=\"\(tools):$PATH\"; set -e; \(example)"], in: folder)
                XCTAssertEqual(run.status, 0, "\(example)\n\(run.stdout)\n\(run.stderr)")
                ran += 1
            }
        }
        XCTAssertGreaterThanOrEqual(ran, 12)
    }

    /// The lines after `EXAMPLES:` that run the tool (an environment variable may come first).
    static func examples(in help: String) -> [String] {
        guard let start = help.range(of: "EXAMPLES:") else { return [] }
        return help[start.upperBound...].split(separator: "\n").map { $0.trimmingCharacters(in: .whitespaces) }
            .prefix { !$0.isEmpty && !$0.hasSuffix(":") && $0.contains("managedrecord ") }
    }

    /// Before: "Error: Unknown option '--format'" (a usage error).
    func testSchemaAsJSONDescribesTheModel() throws {
        let store = try CLITestStores.company(in: CLITestStores.folder()).path
        let json = try CommandLineRun.tool("schema", store, "--format", "json").succeeded()
        let root = try XCTUnwrap(JSONSerialization.jsonObject(with: Data(json.utf8)) as? [String: Any])
        let entities = try XCTUnwrap(root["entities"] as? [[String: Any]])
        let byName = Dictionary(uniqueKeysWithValues: entities.map { ($0["name"] as! String, $0) })
        XCTAssertEqual(Set(byName.keys), ["Department", "Employee", "Manager"])
        let employee = try XCTUnwrap(byName["Employee"])
        XCTAssertEqual(employee["rows"] as? Int, 4)
        XCTAssertEqual(employee["subentities"] as? [String], ["Manager"])
        XCTAssertEqual(employee["abstract"] as? Bool, false)
        let attributes = try XCTUnwrap(employee["attributes"] as? [[String: Any]])
        let age = try XCTUnwrap(attributes.first { $0["name"] as? String == "age" })
        XCTAssertEqual(age["type"] as? String, "Integer 64")
        XCTAssertEqual(age["optional"] as? Bool, false)
        let hired = try XCTUnwrap(attributes.first { $0["name"] as? String == "hired" })
        XCTAssertEqual(hired["optional"] as? Bool, true)
        let department = try XCTUnwrap((employee["relationships"] as? [[String: Any]])?.first)
        XCTAssertEqual(department["destination"] as? String, "Department")
        XCTAssertEqual(department["inverse"] as? String, "employees")
        XCTAssertEqual(department["toMany"] as? Bool, false)
        XCTAssertEqual(department["deleteRule"] as? String, "nullify")
        let employees = try XCTUnwrap((byName["Department"]?["relationships"] as? [[String: Any]])?.first)
        XCTAssertEqual(employees["toMany"] as? Bool, true)
        XCTAssertEqual(employees["deleteRule"] as? String, "cascade")
        XCTAssertEqual(byName["Manager"]?["parent"] as? String, "Employee")
        XCTAssertNotNil(employee["uniquenessConstraints"] as? [[String]])
    }

    /// Before: a delete in a pipe without --yes read its answer from the pipe.
    func testDeleteWithoutATerminalOrYesIsRefusedAndDeletesNothing() throws {
        let store = try CLITestStores.company(in: CLITestStores.folder()).path
        let run = try CommandLineRun.tool("delete", store, "Employee", "--where", "age > 40", input: "y\n")
        XCTAssertEqual(run.status, 1)
        XCTAssertEqual(run.stdout, "")
        XCTAssertTrue(run.stderr.hasPrefix("managedrecord: error: standard input is not a terminal"), run.stderr)
        XCTAssertTrue(run.stderr.contains("pass --yes"), run.stderr)
        XCTAssertEqual(try CommandLineRun.tool("count", store, "Employee").succeeded(), "5\n")
    }

    /// Before: a malformed command line printed "Error: ..." (ArgumentParser's style), other
    /// errors "managedrecord: error: ...".
    func testAMalformedCommandLineHasTheToolsErrorStyleAndExits64() throws {
        let store = try CLITestStores.company(in: CLITestStores.folder()).path
        for arguments in [["fetch"], ["count", store, "Employee", "--bogus"], ["fetch", store, "Employee", "--limit", "-1"],
                          ["delete", store, "Employee"], ["nosuchcommand"]] {
            let run = try CommandLineRun.tool(arguments: arguments)
            XCTAssertEqual(run.status, 64, "\(arguments): \(run.stderr)")
            XCTAssertTrue(run.stderr.hasPrefix("managedrecord: error: "), "\(arguments): \(run.stderr)")
            XCTAssertFalse(run.stderr.contains("Error: "), "\(arguments): \(run.stderr)")
            XCTAssertEqual(run.stdout, "")
        }
    }
}
