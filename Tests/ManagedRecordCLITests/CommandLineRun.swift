import Foundation
import XCTest

/// A built executable of this package (`managedrecord`, `Demo`) run as a user runs it: a
/// process with arguments and standard input, whose standard output, standard error and
/// exit status are kept apart.
struct CommandLineRun {
    let status: Int32
    let stdout: String
    let stderr: String

    /// Runs the product `name`, built beside this test bundle (or the program at the
    /// absolute path `name`), in `directory`.
    static func run(_ name: String, _ arguments: [String], input: String? = nil, in directory: URL? = nil) throws -> CommandLineRun {
        let folder = URL(fileURLWithPath: CommandLine.arguments[0]).resolvingSymlinksInPath().deletingLastPathComponent()
        let executable = name.hasPrefix("/") ? URL(fileURLWithPath: name) : folder.appendingPathComponent(name)
        guard FileManager.default.isExecutableFile(atPath: executable.path) else {
            throw CLITestFailure("\(executable.path) was not built; `swift build --build-tests` builds it")
        }
        let process = Process()
        process.executableURL = executable
        process.arguments = arguments
        if let directory { process.currentDirectoryURL = directory }
        var environment = ProcessInfo.processInfo.environment
        environment["SWIFT_BACKTRACE"] = "enable=no"
        environment.removeValue(forKey: "XDG_DATA_HOME")
        process.environment = environment
        let (out, err, inPipe) = (Pipe(), Pipe(), Pipe())
        process.standardOutput = out
        process.standardError = err
        process.standardInput = inPipe
        try process.run()
        if let input { inPipe.fileHandleForWriting.write(Data(input.utf8)) }
        try inPipe.fileHandleForWriting.close()
        // Read both pipes at once so neither fills up and blocks the process.
        let group = DispatchGroup()
        nonisolated(unsafe) var errData = Data()   // written by one block, read after group.wait()
        group.enter()
        DispatchQueue.global().async {
            errData = err.fileHandleForReading.readDataToEndOfFile()
            group.leave()
        }
        let outData = out.fileHandleForReading.readDataToEndOfFile()
        group.wait()
        process.waitUntilExit()
        return CommandLineRun(status: process.terminationStatus, stdout: String(decoding: outData, as: UTF8.self),
                              stderr: String(decoding: errData, as: UTF8.self))
    }

    /// Runs `managedrecord`.
    static func tool(_ arguments: String..., input: String? = nil) throws -> CommandLineRun {
        try run("managedrecord", arguments, input: input)
    }

    static func tool(arguments: [String], input: String? = nil) throws -> CommandLineRun {
        try run("managedrecord", arguments, input: input)
    }

    /// The tool run by util-linux's `script`, which gives it a pseudo-terminal as its
    /// standard streams (`input` is typed on it); what it wrote there comes back as
    /// `script`'s output.
    static func onTerminal(_ arguments: [String], input: String? = nil) throws -> CommandLineRun {
        guard FileManager.default.isExecutableFile(atPath: "/usr/bin/script") else {
            throw XCTSkip("util-linux's script(1) is needed to give the tool a terminal")
        }
        let tool = URL(fileURLWithPath: CommandLine.arguments[0]).resolvingSymlinksInPath().deletingLastPathComponent().appendingPathComponent("managedrecord").path
        let command = ([tool] + arguments).map { "'\($0)'" }.joined(separator: " ")
        return try run("/usr/bin/script", ["-qec", command, "/dev/null"], input: input)
    }

    /// Fails the test unless the run exited 0; returns standard output.
    @discardableResult
    func succeeded(file: StaticString = #filePath, line: UInt = #line) -> String {
        XCTAssertEqual(status, 0, "exit status \(status)\nstdout:\n\(stdout)\nstderr:\n\(stderr)", file: file, line: line)
        return stdout
    }

    /// The lines of standard output.
    var lines: [String] { stdout.split(separator: "\n", omittingEmptySubsequences: false).map(String.init).dropLast(stdout.hasSuffix("\n") ? 1 : 0) }
}

struct CLITestFailure: Error, CustomStringConvertible {
    let description: String
    init(_ description: String) { self.description = description }
}
