import Foundation
import ObjectGraph
import PostgresNIO

/// The server, login and database of a `postgres://user[:password]@host[:port]/database` URL
/// (`postgresql://` too), and the connection configuration made from them.
struct PostgresServerAddress: Sendable {
    /// The URL without its password, for ``StoreError/url``.
    let url: URL
    let host: String
    let port: Int
    let user: String
    let password: String?
    let database: String

    /// The address without the password, for messages and logs: `user@host:port/database`.
    var displayName: String { "\(user)@\(host):\(port)/\(database)" }

    /// Parses `url`; a malformed one is a ``StoreError`` `.cannotOpen` saying what is wrong.
    init(url: URL) throws(StoreError) {
        self.url = URL(string: Self.redacted(url)) ?? url
        func malformed(_ problem: String) -> StoreError {
            StoreError(
                .cannotOpen, url: nil,
                "The PostgreSQL URL \(Self.redacted(url)) \(problem). Write it as postgres://user[:password]@host[:port]/database."
            )
        }
        guard let components = URLComponents(url: url, resolvingAgainstBaseURL: false) else {
            throw malformed("is not a URL")
        }
        guard let scheme = components.scheme?.lowercased(), scheme == "postgres" || scheme == "postgresql" else {
            throw malformed("has the scheme \"\(components.scheme ?? "")\", not postgres:// or postgresql://")
        }
        var host = components.host ?? ""
        if host.hasPrefix("["), host.hasSuffix("]") { host = String(host.dropFirst().dropLast()) }
        guard !host.isEmpty else { throw malformed("names no host") }
        guard let user = components.user, !user.isEmpty else { throw malformed("names no user") }
        let port = components.port ?? 5432
        guard (1...65_535).contains(port) else { throw malformed("has the port \(port), not one from 1 to 65535") }
        var path = components.path
        if path.hasPrefix("/") { path.removeFirst() }
        guard !path.isEmpty else { throw malformed("names no database (the path after the host)") }
        guard !path.contains("/") else { throw malformed("has the path \"\(path)\", which is not one database name") }
        for item in components.queryItems ?? [] where !(item.name == "sslmode" && item.value == "disable") {
            throw malformed("has the option \"\(item.name)\", which this driver does not support (it connects without TLS)")
        }
        self.host = host
        self.port = port
        self.user = user
        self.password = components.password
        self.database = path
    }

    /// The configuration of one connection: TLS off, `timeout` for connecting and, on the
    /// server, as `statement_timeout` (the server cancels a statement running longer).
    func configuration(timeout: Duration) -> PostgresConnection.Configuration {
        var configuration = PostgresConnection.Configuration(
            host: host, port: port, username: user, password: password, database: database, tls: .disable
        )
        configuration.options.connectTimeout = timeout.timeAmount
        configuration.options.additionalStartupParameters = [
            ("statement_timeout", String(min(Int64(Int32.max), max(1, timeout.milliseconds)))),
            ("application_name", "ManagedRecord"),
        ]
        return configuration
    }

    /// `url` without its password.
    static func redacted(_ url: URL) -> String {
        guard var components = URLComponents(url: url, resolvingAgainstBaseURL: false), components.password != nil else {
            return url.absoluteString
        }
        components.password = nil
        return components.string ?? url.absoluteString
    }
}
