import Foundation
import XCTest

/// export and import report progress on standard error when it is a terminal, and stay
/// quiet in a pipe.
final class CLIProgressTests: XCTestCase {
    func testProgressIsShownOnATerminalOnly() throws {
        let folder = try CLITestStores.folder()
        let store = try CLITestStores.company(in: folder).path
        let file = folder.appendingPathComponent("employees.json").path

        let piped = try CommandLineRun.tool("export", store, "Employee", "--output", file)
        XCTAssertEqual(piped.status, 0, piped.stderr)
        XCTAssertEqual(piped.stderr, "", "nothing but the result in a pipe")
        XCTAssertEqual(piped.stdout, "", "the export went to the file")

        // `script` runs the tool with a pseudo-terminal as its standard streams.
        guard FileManager.default.isExecutableFile(atPath: "/usr/bin/script") else {
            throw XCTSkip("util-linux's script(1) is needed to give the tool a terminal")
        }
        let tool = URL(fileURLWithPath: CommandLine.arguments[0]).resolvingSymlinksInPath().deletingLastPathComponent().appendingPathComponent("managedrecord").path
        let onTerminal = try CommandLineRun.run("/usr/bin/script", ["-qec", "'\(tool)' export '\(store)' Employee --output '\(file)'", "/dev/null"])
        XCTAssertEqual(onTerminal.status, 0, onTerminal.stdout)
        XCTAssertTrue(onTerminal.stdout.contains("exported 5 Employee objects"), onTerminal.stdout)
    }
}
