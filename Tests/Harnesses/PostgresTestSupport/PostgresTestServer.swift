import Foundation
import Synchronization

/// The real PostgreSQL server the PostgreSQL store's tests run against.
///
/// When `MANAGEDRECORD_POSTGRES_URL` is set (`postgres://USER@HOST:PORT/postgres` of a running
/// server, as `.ci/run` sets it with `scripts/postgres-test-server.sh`), that server is used.
/// Otherwise the first call starts one server for this test process, from Debian's packages
/// (`/usr/lib/postgresql/*/bin`) or PATH, in a temporary folder, on a free port of 127.0.0.1;
/// it is stopped and its folder removed when the process exits. Without PostgreSQL installed,
/// every call throws `PostgresTestServerError.notInstalled`, which says how to install it:
/// the tests fail, they are never skipped.
///
/// Thread-safe: calls may come from any thread; the server starts once.
public enum PostgresTestServer {
    /// The URL of a new, empty database on the test server: postgres://USER@127.0.0.1:PORT/NAME
    /// (a unique name from `prefix`). Starts the server on first use.
    ///
    /// The name is `prefix` in lower case with other characters than letters, digits and `_`
    /// replaced by `_`, then this process's ID, a counter and a random part. The database is
    /// UTF-8 and compares text in the C locale, by code point, as SQLite does.
    /// - Throws: `PostgresTestServerError` when the server cannot be started or reached.
    public static func newDatabase(_ prefix: String = "test") throws(PostgresTestServerError) -> URL {
        let server = try TestServer.shared()
        let name = uniqueName(prefix)
        try runPSQL("CREATE DATABASE \"\(name)\" TEMPLATE template0 ENCODING 'UTF8' LC_COLLATE 'C' LC_CTYPE 'C'",
                    on: server.maintenanceURL, psql: server.psql)
        if server.local == nil { TestServer.createdOnRunningServer.withLock { $0.append(name) } }
        return server.maintenanceURL.replacingDatabase(with: name)
    }

    /// Runs `sql` with psql on the database at `url` and returns psql's unaligned, tuples-only output (trimmed).
    ///
    /// Rows are separated by newlines and columns by `|`. Several statements in `sql` run in
    /// one transaction; the first error stops them.
    /// - Throws: `PostgresTestServerError.commandFailed` with PostgreSQL's message when the SQL
    ///   fails, `.timedOut` when psql takes longer than two minutes.
    @discardableResult
    public static func psql(_ sql: String, database url: URL) throws(PostgresTestServerError) -> String {
        try runPSQL(sql, on: url, psql: TestServer.shared().psql)
    }

    /// Ends every connection to the database at `url` (pg_terminate_backend), as a crashed network or a server restart would.
    ///
    /// Returns once none is left: a client whose connection was ended gets an error on its
    /// next statement and must reconnect.
    /// - Throws: `PostgresTestServerError.connectionsRemain` if connections are still open
    ///   after 15 seconds, or the errors of `psql(_:database:)`.
    public static func terminateConnections(to url: URL) throws(PostgresTestServerError) {
        let psql = try TestServer.shared().psql
        let seconds = 15
        let deadline = Date().addingTimeInterval(TimeInterval(seconds))
        // Counts every other connection it signals; repeated until there are none.
        let sql = """
            SELECT count(pg_terminate_backend(pid)) FROM pg_stat_activity
            WHERE datname = current_database() AND pid <> pg_backend_pid()
            """
        while true {
            let output = try runPSQL(sql, on: url, psql: psql)
            guard let remaining = Int(output) else {
                throw .commandFailed(command: "psql \(url.redacted) -c \(sql)", status: 0,
                                     output: "expected a count of connections, got '\(output)'")
            }
            if remaining == 0 { return }
            if Date() > deadline {
                throw .connectionsRemain(database: url.databaseName, count: remaining, seconds: seconds)
            }
            Thread.sleep(forTimeInterval: 0.02)
        }
    }

    // MARK: psql

    @discardableResult
    static func runPSQL(_ sql: String, on url: URL, psql: String,
                        timeout: Int = 120) throws(PostgresTestServerError) -> String {
        try runPSQL(commands: [sql], on: url, psql: psql, timeout: timeout)
    }

    /// Runs each of `commands` as its own `--command` (in its own transaction).
    @discardableResult
    static func runPSQL(commands: [String], on url: URL, psql: String,
                        timeout: Int) throws(PostgresTestServerError) -> String {
        let display = "psql \(url.redacted) " + commands.map { "-c \"\($0)\"" }.joined(separator: " ")
        let arguments = ["--no-psqlrc", "--quiet", "--no-align", "--tuples-only", "--set", "ON_ERROR_STOP=1",
                         "--dbname", url.absoluteString] + commands.flatMap { ["--command", $0] }
        let result = try TimedCommand.run(
            psql, arguments, display: display,
            environment: ["PGCONNECT_TIMEOUT": "10", "PGCLIENTENCODING": "UTF8"], timeout: timeout)
        guard result.status == 0 else {
            throw .commandFailed(command: display, status: result.status, output: result.diagnostics)
        }
        return result.standardOutput.trimmingCharacters(in: .whitespacesAndNewlines)
    }

    // MARK: Names

    private static let nextNumber = Atomic<Int>(0)

    /// `prefix` made a safe identifier, then the process ID, a counter and a random part:
    /// unique across this process's calls and across processes sharing a server. At most 56
    /// bytes (PostgreSQL's limit is 63).
    private static func uniqueName(_ prefix: String) -> String {
        var base = String(prefix.lowercased().unicodeScalars.prefix(32).map { scalar -> Character in
            ("a"..."z").contains(scalar) || ("0"..."9").contains(scalar) ? Character(scalar) : "_"
        })
        if base.first.map({ !$0.isLetter && $0 != "_" }) ?? true { base = "t" + base }
        let number = nextNumber.add(1, ordering: .relaxed).newValue
        let random = String(UInt32.random(in: 0...UInt32.max), radix: 36)
        return "\(base)_\(getpid())_\(number)_\(random)"
    }
}

/// The server in use: one this process started, or the one `MANAGEDRECORD_POSTGRES_URL` names.
struct TestServer: Sendable {
    /// The server's maintenance database, where databases are created.
    let maintenanceURL: URL
    let psql: String
    /// The server this process started, nil for a running server.
    let local: LocalPostgresServer?

    static let environmentVariable = "MANAGEDRECORD_POSTGRES_URL"

    /// The names of databases created on a running server, dropped when the process exits.
    static let createdOnRunningServer = Mutex<[String]>([])

    private static let current = Mutex<Result<TestServer, PostgresTestServerError>?>(nil)

    /// The server, started (or its URL checked) on the first call. A failure is kept: every
    /// later call throws the same error at once rather than trying again.
    static func shared() throws(PostgresTestServerError) -> TestServer {
        try current.withLock { cached -> Result<TestServer, PostgresTestServerError> in
            if let cached { return cached }
            let made = Result { () throws(PostgresTestServerError) -> TestServer in try connect() }
            cached = made
            if case .success = made { atexit { TestServer.cleanUpAtExit() } }
            return made
        }.get()
    }

    private static func connect() throws(PostgresTestServerError) -> TestServer {
        let psql = try PostgresPrograms.psql()
        if let given = ProcessInfo.processInfo.environment[environmentVariable]?
            .trimmingCharacters(in: .whitespacesAndNewlines), !given.isEmpty {
            return TestServer(maintenanceURL: try serverURL(given), psql: psql, local: nil)
        }
        let local = try LocalPostgresServer.start()
        return TestServer(maintenanceURL: local.url, psql: psql, local: local)
    }

    private static func serverURL(_ text: String) throws(PostgresTestServerError) -> URL {
        guard let components = URLComponents(string: text), let url = components.url else {
            throw .invalidURL(text, reason: "\(environmentVariable) does not parse as a URL")
        }
        guard let scheme = components.scheme, ["postgres", "postgresql"].contains(scheme.lowercased()) else {
            throw .invalidURL(url.redacted, reason: "its scheme is not postgres://")
        }
        guard let host = components.host, !host.isEmpty else {
            throw .invalidURL(url.redacted, reason: "it names no host")
        }
        return url
    }

    /// Stops the server this process started, or drops the databases it created on a
    /// running server; says on standard error what could not be done.
    private static func cleanUpAtExit() {
        guard case let .success(server)? = current.withLock({ $0 }) else { return }
        var problem: String?
        if let local = server.local {
            problem = local.stop()
        } else {
            let names = createdOnRunningServer.withLock { $0 }
            if !names.isEmpty {
                do {
                    _ = try PostgresTestServer.runPSQL(
                        commands: names.map { "DROP DATABASE IF EXISTS \"\($0)\" WITH (FORCE)" },
                        on: server.maintenanceURL, psql: server.psql, timeout: 120)
                } catch {
                    problem = "could not drop the test databases: \(error)"
                }
            }
        }
        if let problem {
            FileHandle.standardError.write(Data("PostgresTestServer: \(problem)\n".utf8))
        }
    }
}

extension URL {
    /// This URL with its path (the database) replaced by `/name`.
    func replacingDatabase(with name: String) -> URL {
        var components = URLComponents(url: self, resolvingAgainstBaseURL: false)!
        components.path = "/" + name
        return components.url!
    }

    /// The database the path names.
    var databaseName: String {
        String(path.drop { $0 == "/" })
    }

    /// The URL with any password replaced by `***`, for messages.
    var redacted: String {
        guard var components = URLComponents(url: self, resolvingAgainstBaseURL: false),
              components.password != nil else { return absoluteString }
        components.password = "***"
        return components.string ?? absoluteString
    }
}
