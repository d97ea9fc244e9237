import Foundation
import Logging
import PostgresNIO

/// The server every way uses (`MANAGEDRECORD_POSTGRES_URL`, the server `.ci/run` starts) and
/// the schemas of this process: one for the raw and Fluent tables, one for ManagedRecord's
/// store. Both are created here and dropped at the end, so other users of the server are
/// not disturbed.
struct ServerSettings: Sendable {
    let url: URL
    let host: String
    let port: Int
    let user: String
    let password: String?
    let database: String
    /// The schema of the raw and Fluent tables (search_path of their connections).
    let schema: String
    /// The schema of ManagedRecord's store (`?schema=` in its URL).
    let storeSchema: String

    struct Missing: Error, CustomStringConvertible {
        let description: String
    }

    /// Reads `MANAGEDRECORD_POSTGRES_URL` (`postgres://user[:password]@host[:port]/database`).
    init(environment: [String: String] = ProcessInfo.processInfo.environment) throws {
        guard let text = environment["MANAGEDRECORD_POSTGRES_URL"], let url = URL(string: text),
              let components = URLComponents(url: url, resolvingAgainstBaseURL: false), let host = components.host,
              let user = components.user else {
            throw Missing(description: "set MANAGEDRECORD_POSTGRES_URL to postgres://user@host:port/database (`. /work/postgres.env` or scripts/postgres-test-server.sh start)")
        }
        self.url = url
        self.host = host
        port = components.port ?? 5432
        self.user = user
        password = components.password
        let path = components.path.trimmingCharacters(in: CharacterSet(charactersIn: "/"))
        database = path.isEmpty ? user : path
        let tag = "serverbench_\(getpid())_\(UInt32.random(in: 0...UInt32.max))"
        schema = tag
        storeSchema = tag + "_mr"
    }

    /// A postgres-nio configuration for this server; without TLS (the test server has none;
    /// ManagedRecord's own `prefer` then runs without TLS too).
    var connection: PostgresConnection.Configuration {
        .init(host: host, port: port, username: user, password: password, database: database, tls: .disable)
    }

    /// ManagedRecord's store URL: the same server, its own schema.
    var storeURL: URL {
        var components = URLComponents(url: url, resolvingAgainstBaseURL: false)!
        components.queryItems = (components.queryItems ?? []) + [URLQueryItem(name: "schema", value: storeSchema)]
        return components.url!
    }

    /// Opens a connection whose unqualified table names are in `schema`.
    func connect(id: Int, logger: Logger) async throws -> PostgresConnection {
        let connection = try await PostgresConnection.connect(configuration: connection, id: id, logger: logger)
        try await connection.query(PostgresQuery(unsafeSQL: "SET search_path TO \(schema)"), logger: logger)
        return connection
    }

    /// Creates this process's table schema; answers the server's version.
    func createSchema(logger: Logger) async throws -> String {
        let connection = try await PostgresConnection.connect(configuration: connection, id: 0, logger: logger)
        try await connection.query(PostgresQuery(unsafeSQL: "CREATE SCHEMA \(schema)"), logger: logger)
        var version = "?"
        for try await text in try await connection.query("SHOW server_version", logger: logger).decode(String.self) {
            version = text
        }
        try await connection.close()
        return version
    }

    /// Drops both schemas of this process, with whatever is left in them.
    func dropSchemas(logger: Logger) async throws {
        let connection = try await PostgresConnection.connect(configuration: connection, id: 0, logger: logger)
        for name in [schema, storeSchema] {
            try await connection.query(PostgresQuery(unsafeSQL: "DROP SCHEMA IF EXISTS \(name) CASCADE"), logger: logger)
        }
        try await connection.close()
    }
}
