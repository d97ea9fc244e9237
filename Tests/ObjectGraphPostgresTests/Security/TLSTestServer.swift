import Foundation
import Logging
import ObjectGraph
import ObjectGraphPostgres
import PostgresTestSupport
import Synchronization
import XCTest

/// The TLS side of the test server `scripts/postgres-test-server.sh` starts: its host and
/// port, and the certificates it made for the run (the script's header lists them).
///
/// `.ci/run` starts it for the whole run and names it in `MANAGEDRECORD_POSTGRES_URL` and
/// `MANAGEDRECORD_POSTGRES_TLS_FOLDER`. Under a plain `swift test` (neither set, or a server
/// named without its TLS folder) the first TLS test starts one with the same script for this
/// process, stopped when the process exits, so the TLS tests run there too.
struct TLSTestServer: Sendable {
    let port: Int
    let folder: URL
    /// Whether this process started the server (it is then not PostgresTestServer's).
    var isOwn = false

    /// The server named by the environment, else the one this process started (starting it
    /// on the first call).
    static func current() throws -> TLSTestServer {
        let environment = ProcessInfo.processInfo.environment
        if let folder = environment["MANAGEDRECORD_POSTGRES_TLS_FOLDER"], !folder.isEmpty,
           let text = environment["MANAGEDRECORD_POSTGRES_URL"], let url = URLComponents(string: text) {
            return TLSTestServer(port: url.port ?? 5432, folder: URL(fileURLWithPath: folder))
        }
        return try ownServer.withLock { cached -> Result<TLSTestServer, Error> in
            if let cached { return cached }
            let started = Result { () throws -> TLSTestServer in
                let server = try ExtraTestServer.start()
                atexit { TLSTestServer.stopOwnServer() }
                remember(server)
                guard let tlsFolder = server.tlsFolder else {
                    throw XCTSkip("scripts/postgres-test-server.sh started a server without TLS")
                }
                return TLSTestServer(port: server.url.port ?? 5432, folder: URL(fileURLWithPath: tlsFolder), isOwn: true)
            }
            cached = started
            return started
        }.get()
    }

    /// The result of starting this process's own TLS server (nil before the first try).
    private static let ownServer = Mutex<Result<TLSTestServer, Error>?>(nil)
    /// The server this process started, for `stopOwnServer` at exit.
    private static let startedServer = Mutex<ExtraTestServer?>(nil)

    private static func remember(_ server: ExtraTestServer) {
        startedServer.withLock { $0 = server }
    }

    private static func stopOwnServer() {
        startedServer.withLock { $0 }?.stop()
    }

    /// The URL of a new, empty database on this server, as the superuser (a server of this
    /// process's own is removed whole when the process exits).
    func newDatabase(_ prefix: String) throws -> URL {
        guard isOwn else { return try PostgresTestServer.newDatabase(prefix) }
        let name = "\(prefix)_\(getpid())_\(UInt32.random(in: 0...UInt32.max))"
        try PostgresTestServer.psql("CREATE DATABASE \"\(name)\" TEMPLATE template0 ENCODING 'UTF8' LC_COLLATE 'C' LC_CTYPE 'C'",
                                    database: url())
        var components = URLComponents(url: url(), resolvingAgainstBaseURL: false)!
        components.path = "/" + name
        return components.url!
    }

    /// The path of one of the run's files (`ca.crt`, `client.key`, …).
    func file(_ name: String) -> String { folder.appendingPathComponent(name).path }

    /// The password of the role `tlspassword`.
    func password() throws -> String {
        try String(contentsOfFile: file("password"), encoding: .utf8).trimmingCharacters(in: .whitespacesAndNewlines)
    }

    /// `postgres://USER[:PASSWORD]@HOST:PORT/postgres?OPTIONS`, the options' values
    /// percent-encoded as a query needs.
    func url(user: String = "managedrecord", password: String? = nil, host: String = "127.0.0.1", _ options: [String: String] = [:]) -> URL {
        var components = URLComponents()
        components.scheme = "postgres"
        components.user = user
        components.password = password
        components.host = host
        components.port = port
        components.path = "/postgres"
        if !options.isEmpty {
            components.queryItems = options.sorted { $0.key < $1.key }.map { URLQueryItem(name: $0.key, value: $0.value) }
        }
        return components.url!
    }

    /// Connects with `url` and answers whether the connection is encrypted, and as whom.
    static func sessionFacts(_ url: URL, environment: [String: String] = [:]) throws -> (tls: Bool, user: String) {
        let driver = try PostgresDriver(url: url, timeout: .seconds(10), poolSize: 1, environment: environment)
        defer { driver.close() }
        let rows = try driver.withSession { session in
            try session.rows("SELECT ssl, current_user::text FROM pg_stat_ssl WHERE pid = pg_backend_pid()")
        }
        guard rows.count == 1, rows[0].count == 2, case .integer(let ssl) = rows[0][0], case .text(let user) = rows[0][1] else {
            XCTFail("pg_stat_ssl answered \(rows)")
            return (false, "")
        }
        return (ssl == 1, user)
    }
}

/// The ``StoreError`` `body` throws (a test failure when it throws none or another error).
func expectStoreError(file: StaticString = #filePath, line: UInt = #line, _ body: () throws -> Void) -> StoreError? {
    do {
        try body()
        XCTFail("expected a StoreError", file: file, line: line)
    } catch let error as StoreError {
        return error
    } catch {
        XCTFail("expected a StoreError, got \(error)", file: file, line: line)
    }
    return nil
}

/// A logger at trace level that keeps every line it logs, with its metadata, as text.
final class RecordingLogger: Sendable {
    private let recorded = Mutex<[String]>([])

    /// A logger writing here.
    var logger: Logger {
        var logger = Logger(label: "test.recording") { _ in Handler(owner: self) }
        logger.logLevel = .trace
        return logger
    }

    /// Every line logged so far.
    var lines: [String] { recorded.withLock { $0 } }

    private struct Handler: LogHandler {
        let owner: RecordingLogger
        var metadata: Logger.Metadata = [:]
        var logLevel: Logger.Level = .trace

        subscript(metadataKey key: String) -> Logger.Metadata.Value? {
            get { metadata[key] }
            set { metadata[key] = newValue }
        }

        func log(event: LogEvent) {
            let all = metadata.merging(event.metadata ?? [:]) { $1 }
            let error = event.error.map { " error: \($0)" } ?? ""
            owner.recorded.withLock { $0.append("\(event.level) \(event.message) \(all)\(error)") }
        }
    }
}
