import Foundation
import XCTest

/// export and import report progress on standard error when it is a terminal, and stay
/// quiet in a pipe.
final class CLIProgressTests: XCTestCase {
    func testProgressIsShownOnATerminalOnly() throws {
        let folder = try CLITestStores.folder()
        let store = try CLITestStores.company(in: folder).path
        let file = folder.appendingPathComponent("employees.json").path

        let piped = try CommandLineRun.tool("export", store, "Employee", "--relationships", "omit", "--output", file)
        XCTAssertEqual(piped.status, 0, piped.stderr)
        XCTAssertEqual(piped.stderr, "", "nothing but the result in a pipe")
        XCTAssertEqual(piped.stdout, "", "the export went to the file")

        // `script` runs the tool with a pseudo-terminal as its standard streams.
        guard FileManager.default.isExecutableFile(atPath: "/usr/bin/script") else {
            throw XCTSkip("util-linux's script(1) is needed to give the tool a terminal")
        }
        let tool = URL(fileURLWithPath: CommandLine.arguments[0]).resolvingSymlinksInPath().deletingLastPathComponent().appendingPathComponent("managedrecord").path
        let onTerminal = try CommandLineRun.run("/usr/bin/script", ["-qec", "'\(tool)' export '\(store)' Employee --relationships omit --output '\(file)'", "/dev/null"])
        XCTAssertEqual(onTerminal.status, 0, onTerminal.stdout)
        XCTAssertTrue(onTerminal.stdout.contains("exported 5 Employee objects"), onTerminal.stdout)

        let target = try CLITestStores.company(in: CLITestStores.folder()).path
        let imported = try CommandLineRun.run("/usr/bin/script", ["-qec", "'\(tool)' import '\(target)' Employee '\(file)' --batch-size 2", "/dev/null"])
        XCTAssertEqual(imported.status, 0, imported.stdout)
        XCTAssertTrue(imported.stdout.contains("imported 2 of 5 Employee records") && imported.stdout.contains("imported 4 of 5"), imported.stdout)
        let quiet = try CommandLineRun.tool("import", target, "Employee", file, "--batch-size", "2")
        XCTAssertEqual(quiet.stderr, "", "no progress in a pipe")
        XCTAssertEqual(quiet.stdout, "inserted 5, updated 0, skipped 0\n")
    }
}
