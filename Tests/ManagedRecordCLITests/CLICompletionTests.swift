import Foundation
import XCTest

/// The completion scripts (`--generate-completion-script`) complete entity names and keys
/// from the store on the command line: the script calls the tool back with
/// `---completion <command> -- <argument> <word index> <cursor index> <words...>`.
final class CLICompletionTests: XCTestCase {
    var store = ""

    override func setUpWithError() throws {
        store = try CLITestStores.company(in: CLITestStores.folder()).path
    }

    /// What the tool offers for the last of `words` (as the shell passes them: the tool's name first).
    private func complete(_ command: String, _ argument: String, _ words: [String]) throws -> [String] {
        let typed = ["managedrecord", command] + words
        let run = try CommandLineRun.tool(arguments: ["---completion", command, "--", argument, String(typed.count - 1),
                                                      String(words.last?.count ?? 0)] + typed)
        return run.succeeded().split(separator: "\n").map(String.init)
    }

    func testTheScriptsCallTheToolBackForEntitiesAndSortKeys() throws {
        for shell in ["bash", "zsh", "fish"] {
            let script = try CommandLineRun.tool("--generate-completion-script", shell).succeeded()
            XCTAssertTrue(script.contains("---completion fetch -- positional@1"), "\(shell) completes fetch's entity")
            XCTAssertTrue(script.contains("---completion fetch -- --sort"), "\(shell) completes fetch's --sort")
        }
    }

    /// The bash script, loaded in bash as a user installs it, completes `Em` and `--sort la`
    /// through the built tool found on PATH.
    func testBashCompletesEntityNamesAndSortKeysThroughTheScript() throws {
        guard FileManager.default.isExecutableFile(atPath: "/bin/bash") else { throw XCTSkip("bash is not installed") }
        let folder = try CLITestStores.folder()
        let script = folder.appendingPathComponent("managedrecord.bash")
        try CommandLineRun.tool("--generate-completion-script", "bash").succeeded().write(to: script, atomically: true, encoding: .utf8)
        let tools = URL(fileURLWithPath: CommandLine.arguments[0]).resolvingSymlinksInPath().deletingLastPathComponent().path
        func complete(_ words: [String]) throws -> String {
            let line = words.joined(separator: " ")
            let body = """
            export PATH='\(tools)':"$PATH"; source '\(script.path)'
            COMP_WORDS=(\(words.map { "'\($0)'" }.joined(separator: " "))); COMP_CWORD=\(words.count - 1)
            COMP_LINE='\(line)'; COMP_POINT=${#COMP_LINE}
            _managedrecord managedrecord '\(words.last!)' '\(words[words.count - 2])'; echo "${COMPREPLY[*]}"
            """
            return try CommandLineRun.run("/bin/bash", ["-c", body]).succeeded()
        }
        XCTAssertEqual(try complete(["managedrecord", "fetch", store, "Em"]), "Employee\n")
        XCTAssertEqual(try complete(["managedrecord", "count", store, ""]), "Department Employee Manager\n")
        XCTAssertEqual(try complete(["managedrecord", "fetch", store, "Employee", "--sort", "la"]), "lastName\n")
    }

    func testEntityNamesComeFromTheStoresModel() throws {
        XCTAssertEqual(try complete("fetch", "positional@1", [store, ""]), ["Department", "Employee", "Manager"])
        XCTAssertEqual(try complete("count", "positional@1", [store, "M"]), ["Manager"])
        XCTAssertEqual(try complete("export", "positional@1", ["--relationships", "omit", store, "E"]), ["Employee"])
        XCTAssertEqual(try complete("import", "positional@1", [store, "D"]), ["Department"])
        XCTAssertEqual(try complete("delete", "positional@1", [store, ""]).count, 3)
        XCTAssertEqual(try complete("fetch", "positional@1", ["/no/such/store.sqlite", ""]), [], "no store, nothing offered")
    }

    func testSortKeysAndKeysAreTheEntitysAttributes() throws {
        XCTAssertEqual(try complete("fetch", "--sort", [store, "Employee", "--sort", "last"]), ["lastName"])
        XCTAssertEqual(try complete("fetch", "--sort", [store, "Employee", "--sort", "lastName,-a"]), ["lastName,-age"])
        XCTAssertEqual(try complete("fetch", "--sort", [store, "Employee", "--sort", ""]), ["firstName", "lastName", "age", "salary", "hired"])
        XCTAssertEqual(try complete("distinct", "positional@2", [store, "Department", ""]), ["name", "budget"])
        XCTAssertEqual(try complete("aggregate", "positional@3", [store, "Employee", "sum", "sa"]), ["salary"])
    }
}
