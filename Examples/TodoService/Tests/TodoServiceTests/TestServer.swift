import AsyncHTTPClient
import Foundation
import Logging
import NIOCore
import NIOHTTP1
import ServiceLifecycle
import TodoService
import XCTest

/// A store for one test: a SQLite file in a new temporary folder, or a new schema on the
/// PostgreSQL server of `MANAGEDRECORD_POSTGRES_URL` (`.ci/run` sets it; without it the
/// PostgreSQL tests are skipped, and say why).
struct TestStore {
    let store: TodoConfiguration.Store
    private let folder: URL?

    static func sqlite() throws -> TestStore {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("TodoServiceTests-\(UUID().uuidString)", isDirectory: true)
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        return TestStore(store: .sqlite(folder.appendingPathComponent("todos.sqlite")), folder: folder)
    }

    static func postgres() throws -> TestStore {
        guard let server = ProcessInfo.processInfo.environment["MANAGEDRECORD_POSTGRES_URL"], !server.isEmpty else {
            throw XCTSkip("MANAGEDRECORD_POSTGRES_URL is not set, so the PostgreSQL variant does not run (.ci/run sets it; "
                + "scripts/postgres-test-server.sh start FILE starts a server and writes it to FILE)")
        }
        let schema = "todo_\(getpid())_\(UInt32.random(in: 0...UInt32.max))"
        let separator = server.contains("?") ? "&" : "?"
        let url = try XCTUnwrap(URL(string: server + separator + "schema=" + schema))
        return TestStore(store: .postgres(url), folder: nil)
    }

    /// Removes the store: the folder, or the schema.
    func remove() throws {
        if let folder {
            try FileManager.default.removeItem(at: folder)
        } else {
            try TodoApp.openContainer(store).persistentStoreCoordinator.destroyStore()
        }
    }
}

/// The service on 127.0.0.1, on a port the system chose, run by its ServiceGroup as
/// `todo-service` runs it (without the signal handlers).
struct TestServer {
    let app: TodoApp
    let group: ServiceGroup
    let running: Task<Void, any Error>
    let api: API

    static func start(_ store: TodoConfiguration.Store) async throws -> TestServer {
        var logger = Logger(label: "TodoServiceTests")
        logger.logLevel = .warning
        let (ports, portSink) = AsyncStream.makeStream(of: Int.self)
        let app = try TodoApp(configuration: TodoConfiguration(store: store, host: "127.0.0.1", port: 0), logger: logger) { port in
            portSink.yield(port)
        }
        let group = app.serviceGroup(gracefulShutdownSignals: [])
        let running = Task {
            defer { portSink.finish() }                 // a server that never starts ends the wait below
            try await group.run()
        }
        var iterator = ports.makeAsyncIterator()
        guard let port = await iterator.next() else {
            try await running.value                     // throws why it did not start
            throw ServerDidNotStart()
        }
        return TestServer(app: app, group: group, running: running, api: API(base: "http://127.0.0.1:\(port)", client: API.makeClient()))
    }

    /// Starts a server on `store`, runs `body`, and shuts the server down gracefully, also
    /// when `body` throws.
    static func with(_ store: TodoConfiguration.Store, _ body: (TestServer) async throws -> Void) async throws {
        let server = try await start(store)
        do {
            try await body(server)
        } catch {
            try? await server.shutDown()
            try? await server.api.client.shutdown()
            throw error
        }
        try await server.shutDown()
        try await server.api.client.shutdown()
    }

    /// Graceful shutdown, as SIGTERM does: returns when the group has ended.
    func shutDown() async throws {
        await group.triggerGracefulShutdown()
        try await running.value
    }
}

/// A real HTTP client (AsyncHTTPClient) for the API.
struct API {
    struct Reply {
        let status: Int
        let headers: HTTPHeaders
        let body: Data

        func decode<T: Decodable>(_ type: T.Type, file: StaticString = #filePath, line: UInt = #line) throws -> T {
            do {
                return try JSONDecoder().decode(type, from: body)
            } catch {
                XCTFail("\(status) \(String(decoding: body, as: UTF8.self)) is not a \(T.self): \(error)", file: file, line: line)
                throw error
            }
        }

        /// The error's message, from `{"error": {"message": …}}`.
        var errorMessage: String? {
            (try? JSONDecoder().decode(ErrorBody.self, from: body))?.error.message
        }

        /// The fields the validation problems name.
        var problemFields: [String] {
            (try? JSONDecoder().decode(ErrorBody.self, from: body))?.error.problems?.compactMap(\.field) ?? []
        }

        private struct ErrorBody: Decodable {
            struct Detail: Decodable {
                var message: String
                var problems: [APIError.Problem]?
            }
            var error: Detail
        }
    }

    let base: String
    let client: HTTPClient

    /// A client whose requests fail at once when nothing listens (after a shutdown), rather
    /// than retrying the connection until the connect timeout. Shut it down after use.
    static func makeClient() -> HTTPClient {
        var configuration = HTTPClient.Configuration()
        configuration.connectionPool.retryConnectionEstablishment = false
        return HTTPClient(eventLoopGroup: HTTPClient.defaultEventLoopGroup, configuration: configuration)
    }

    func send(_ method: HTTPMethod, _ path: String, json: String? = nil) async throws -> Reply {
        var request = HTTPClientRequest(url: base + path)
        request.method = method
        if let json {
            request.headers.add(name: "Content-Type", value: "application/json")
            request.body = .bytes(ByteBuffer(string: json))
        }
        // A generous bound, so that a hung server fails the test instead of hanging it; no
        // assertion depends on how long anything takes.
        let response = try await client.execute(request, timeout: .seconds(120))
        let body = try await response.body.collect(upTo: 16 << 20)
        return Reply(status: Int(response.status.code), headers: response.headers, body: Data(body.readableBytesView))
    }

    func create(_ json: String) async throws -> Reply { try await send(.POST, "/todos", json: json) }
}

/// The service group ended without an error before the server listened.
struct ServerDidNotStart: Error, CustomStringConvertible {
    var description: String { "the service group ended before the server listened" }
}
