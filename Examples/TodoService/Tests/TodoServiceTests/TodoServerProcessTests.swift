import Foundation
import ManagedRecord
import TodoService
import XCTest

/// `todo-service`, the executable, run as a process: it serves, and SIGTERM (as a container
/// runtime or systemd sends it) makes it finish, close the store and exit 0 with every
/// acknowledged write stored; a bad configuration exits 64 with a message.
final class TodoServerProcessTests: XCTestCase {
    func testSIGTERMShutsDownGracefullyAndExitsZero() async throws {
        let store = try TestStore.sqlite()
        defer { XCTAssertNoThrow(try store.remove()) }
        guard case .sqlite(let file) = store.store else { return XCTFail("not a SQLite store") }
        let server = try ServerProcess(arguments: ["--sqlite", file.path, "--port", "0"])
        let base = try XCTUnwrap(server.waitForAddress(), "the server never said where it listens:\n\(server.output())")
        let api = API(base: base, client: API.makeClient())
        var created: [String] = []
        for number in 0..<5 {
            let reply = try await api.create(#"{"title": "process \#(number)"}"#)
            XCTAssertEqual(reply.status, 201)
            created.append("process \(number)")
        }
        try await api.client.shutdown()

        kill(server.process.processIdentifier, SIGTERM)
        server.process.waitUntilExit()
        let output = server.output()
        XCTAssertEqual(server.process.terminationReason, .exit, output)
        XCTAssertEqual(server.process.terminationStatus, 0, output)
        XCTAssertTrue(output.contains("store: closed"), output)

        let stored = try TodoApp.openContainer(store.store).performBackgroundTask { context in
            try context.fetch(FetchRequest<Todo>()).map(\.title)
        }
        XCTAssertEqual(Set(stored), Set(created))
    }

    func testBadConfigurationExits64WithAMessage() throws {
        let server = try ServerProcess(arguments: ["--port", "http"])
        server.process.waitUntilExit()
        XCTAssertEqual(server.process.terminationStatus, 64)
        XCTAssertTrue(server.output().contains("port 'http' is not a number from 0 to 65535"), server.output())
    }
}

/// The built `todo-service` (beside the test bundle), its standard output and error in one
/// pipe, read line by line.
private final class ServerProcess: @unchecked Sendable {
    let process = Process()
    private let pipe = Pipe()
    private var read = Data()

    init(arguments: [String]) throws {
        let folder = URL(fileURLWithPath: CommandLine.arguments[0]).resolvingSymlinksInPath().deletingLastPathComponent()
        let executable = folder.appendingPathComponent("todo-service")
        guard FileManager.default.isExecutableFile(atPath: executable.path) else {
            throw NotBuilt(path: executable.path)
        }
        process.executableURL = executable
        process.arguments = arguments
        var environment = ProcessInfo.processInfo.environment
        environment.removeValue(forKey: "DATABASE_URL")
        environment["LOG_LEVEL"] = "info"
        process.environment = environment
        process.standardOutput = pipe
        process.standardError = pipe
        try process.run()
    }

    /// Reads until the line that says where the server listens, and returns its base URL
    /// (nil if the process ends first).
    func waitForAddress() -> String? {
        while true {
            if let text = String(data: read, encoding: .utf8),
               let range = text.range(of: #"http://127\.0\.0\.1:[0-9]+"#, options: .regularExpression) {
                return String(text[range])
            }
            let chunk = pipe.fileHandleForReading.availableData
            if chunk.isEmpty { return nil }
            read.append(chunk)
        }
    }

    /// Everything the process wrote (after it has exited: to its end).
    func output() -> String {
        if !process.isRunning { read.append(pipe.fileHandleForReading.readDataToEndOfFile()) }
        return String(decoding: read, as: UTF8.self)
    }
}

private struct NotBuilt: Error, CustomStringConvertible {
    let path: String
    var description: String { "\(path) was not built; `swift build --build-tests` builds it" }
}
