import Foundation
import ObjectGraph
import PostgresNIO

/// The server, login and database of a `postgres://user[:password]@host[:port]/database` URL
/// (`postgresql://` too), its TLS options, and the connection configuration made from them.
///
/// Its `description`, `debugDescription` and mirror never show the password.
struct PostgresServerAddress: Sendable, CustomStringConvertible, CustomDebugStringConvertible, CustomReflectable {
    /// The URL without its password, for ``StoreError/url``.
    let url: URL
    let host: String
    let port: Int
    let user: String
    /// The password: the URL's, `PGPASSWORD`'s or the password file's (nil: none found).
    let password: PostgresPassword?
    /// A password file that was skipped because other users may read it (libpq's 0600 rule).
    let ignoredPasswordFile: String?
    let database: String
    let tls: PostgresTLSSettings

    /// The address without the password, for messages and logs: `user@host:port/database`.
    var displayName: String { "\(user)@\(host):\(port)/\(database)" }

    var description: String { "PostgreSQL \(displayName) (sslmode=\(tls.mode.rawValue))" }
    var debugDescription: String { description }
    var customMirror: Mirror { Mirror(self, children: ["server": displayName, "sslmode": tls.mode.rawValue], displayStyle: .struct) }

    /// Parses `url`; a malformed one is a ``StoreError`` `.cannotOpen` saying what is wrong
    /// (showing the URL without its password: ``DatabaseServerLocation/redacted(_:)``).
    /// The password is the user info's or the option `password`'s (libpq's, given once).
    /// Without a password in the URL, one is looked for in `environment`'s `PGPASSWORD`, then
    /// in the password file (`PGPASSFILE`, else `~/.pgpass`).
    init(url: URL, environment: [String: String] = ProcessInfo.processInfo.environment) throws(StoreError) {
        // Never the URL itself: one the redacted text does not parse as names no server.
        self.url = URL(string: Self.redacted(url)) ?? URL(string: "postgres:")!
        func malformed(_ problem: String) -> StoreError {
            StoreError(
                .cannotOpen, url: nil,
                "The PostgreSQL URL \(Self.redacted(url)) \(problem). Write it as postgres://user[:password]@host[:port]/database[?sslmode=...&sslrootcert=...]."
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
        var options: [String: String] = [:]
        var queryPassword: String?
        for item in components.queryItems ?? [] {
            if item.name == "password" {
                guard queryPassword == nil, components.password == nil else {
                    throw malformed("gives the password twice (in the user info and as the option password, or that option twice); give it once")
                }
                queryPassword = item.value ?? ""
                continue
            }
            if item.name == "sslpassword" {
                throw malformed("has the option sslpassword: keys protected by a passphrase are not supported. Give sslkey an unencrypted key (openssl pkey -in KEY -out PLAIN.key, mode 0600)")
            }
            guard PostgresTLSSettings.optionNames.contains(item.name) else {
                throw malformed("has the option \"\(item.name)\", which this driver does not take (it takes password, sslmode, sslrootcert, sslcert and sslkey)")
            }
            guard options[item.name] == nil else { throw malformed("gives the option \(item.name) twice") }
            options[item.name] = item.value ?? ""
        }
        self.tls = try PostgresTLSSettings(options: options, malformed: malformed)
        self.host = host
        self.port = port
        self.user = user
        self.database = path
        var ignoredFile: String?
        self.password = PostgresPassword.find(
            urlPassword: components.password ?? queryPassword, host: host, port: port, database: path, user: user,
            environment: environment, ignoredFile: &ignoredFile
        )
        self.ignoredPasswordFile = ignoredFile
    }

    /// The configuration of one connection: TLS as the URL's options say (the certificate
    /// files are read now), `timeout` for connecting and, on the server, as
    /// `statement_timeout` (the server cancels a statement running longer).
    func configuration(timeout: Duration) throws(StoreError) -> PostgresConnection.Configuration {
        let tls = try self.tls.connectionTLS { message, error in
            StoreError(.cannotOpen, url: url, message, underlying: error)
        }
        var configuration = PostgresConnection.Configuration(
            host: host, port: port, username: user, password: password?.value, database: database, tls: tls
        )
        configuration.options.connectTimeout = timeout.timeAmount
        configuration.options.additionalStartupParameters = [
            ("statement_timeout", String(min(Int64(Int32.max), max(1, timeout.milliseconds)))),
            ("application_name", "ManagedRecord"),
        ]
        return configuration
    }

    /// `url` without its password (the one redaction every text of a server URL goes through).
    static func redacted(_ url: URL) -> String { DatabaseServerLocation.redacted(url) }
}
