import Foundation

/// An executable target of this package (built beside the test bundle by `swift test`), run
/// as a process of its own.
struct BuiltExecutable {
    struct Outcome {
        /// The exit status, or the signal that stopped the process.
        let status: Int32
        let stoppedBySignal: Bool
        /// Standard output and standard error, together.
        let output: String
    }

    let url: URL

    /// The product called `name` in the folder the running test bundle was built into.
    init(_ name: String) throws {
        let folder = URL(fileURLWithPath: CommandLine.arguments[0]).resolvingSymlinksInPath().deletingLastPathComponent()
        url = folder.appendingPathComponent(name)
        guard FileManager.default.isExecutableFile(atPath: url.path) else {
            throw NotBuilt(path: url.path)
        }
    }

    struct NotBuilt: Error, CustomStringConvertible {
        let path: String
        var description: String { "\(path) was not built; `swift test` (or `swift build --build-tests`) builds it with the tests" }
    }

    /// Runs the executable with `arguments` and waits for it to end. It gets a temporary
    /// folder of its own (`TMPDIR`), removed when it ends: a process stopped on purpose
    /// cannot clean up after itself.
    func run(_ arguments: [String] = []) throws -> Outcome {
        let process = Process()
        process.executableURL = url
        process.arguments = arguments
        let temporary = FileManager.default.temporaryDirectory.appendingPathComponent("\(url.lastPathComponent)-run-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: temporary, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: temporary) }
        var environment = ProcessInfo.processInfo.environment
        environment["SWIFT_BACKTRACE"] = "enable=no"     // a stop prints its message, not a slow backtrace
        environment["TMPDIR"] = temporary.path
        process.environment = environment
        let pipe = Pipe()
        process.standardOutput = pipe
        process.standardError = pipe
        try process.run()
        let data = pipe.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        return Outcome(status: process.terminationStatus,
                       stoppedBySignal: process.terminationReason == .uncaughtSignal,
                       output: String(decoding: data, as: UTF8.self))
    }
}
