import Foundation

/// Where the service listens and which store it opens, read from the environment and the
/// command line.
///
/// | Setting | Environment | Argument | Default |
/// |---|---|---|---|
/// | PostgreSQL store | `DATABASE_URL=postgres://user@host:5432/db` (also `postgresql://`) | | — |
/// | SQLite store file | `TODO_DATABASE_PATH` | `--sqlite PATH` | `todos.sqlite` in the working folder |
/// | address | `HOST` | `--host` | `127.0.0.1` |
/// | port | `PORT` | `--port` | `8080` (0: any free port) |
///
/// The store is PostgreSQL when `DATABASE_URL` is set, else the SQLite file; an argument wins
/// over the environment (`--sqlite` over `DATABASE_URL` too). A `DATABASE_URL` of another kind (`mysql://…`) is refused rather
/// than ignored.
public struct TodoConfiguration: Sendable, Equatable {
    /// The store to open.
    public enum Store: Sendable, Equatable {
        /// A SQLite file (created with its folder if missing).
        case sqlite(URL)
        /// A PostgreSQL database (`postgres://…`, with libpq's options: see docs/stores.md).
        case postgres(URL)
    }

    /// The store to open.
    public var store: Store
    /// The address to listen on.
    public var host: String
    /// The port to listen on (0: one the system chooses).
    public var port: Int

    /// A configuration given in code (tests, or a program of your own).
    public init(store: Store, host: String = "127.0.0.1", port: Int = 8080) {
        self.store = store
        self.host = host
        self.port = port
    }

    /// Reads the configuration from `environment` and `arguments` (without the program's
    /// name).
    ///
    /// - Throws: ``ConfigurationError`` for an unknown argument, a missing value, a port that
    ///   is not a number from 0 to 65535, or a `DATABASE_URL` that is not a PostgreSQL URL.
    public init(environment: [String: String], arguments: [String]) throws {
        var sqlitePath = environment["TODO_DATABASE_PATH"].flatMap { $0.isEmpty ? nil : $0 }
        var host = environment["HOST"].flatMap { $0.isEmpty ? nil : $0 } ?? "127.0.0.1"
        var portText = environment["PORT"].flatMap { $0.isEmpty ? nil : $0 }
        var remaining = arguments[...]
        while let argument = remaining.popFirst() {
            guard ["--sqlite", "--host", "--port"].contains(argument) else {
                throw ConfigurationError("unknown argument '\(argument)'; \(Self.usage)")
            }
            guard let value = remaining.popFirst() else {
                throw ConfigurationError("\(argument) needs a value; \(Self.usage)")
            }
            switch argument {
            case "--sqlite": sqlitePath = value
            case "--host": host = value
            default: portText = value
            }
        }
        var port = 8080
        if let portText {
            guard let number = Int(portText), (0...65535).contains(number) else {
                throw ConfigurationError("port '\(portText)' is not a number from 0 to 65535")
            }
            port = number
        }
        // `--sqlite` on the command line wins over DATABASE_URL; TODO_DATABASE_PATH does not.
        if !arguments.contains("--sqlite"), let databaseURL = environment["DATABASE_URL"], !databaseURL.isEmpty {
            guard let url = URL(string: databaseURL), ["postgres", "postgresql"].contains(url.scheme?.lowercased() ?? "") else {
                throw ConfigurationError("DATABASE_URL is not a PostgreSQL URL (postgres://user@host:5432/database); unset it to use a SQLite file")
            }
            self.init(store: .postgres(url), host: host, port: port)
        } else {
            let path = sqlitePath ?? "todos.sqlite"
            self.init(store: .sqlite(URL(fileURLWithPath: path)), host: host, port: port)
        }
    }

    static let usage = "usage: todo-service [--sqlite PATH] [--host ADDRESS] [--port NUMBER], or DATABASE_URL=postgres://… for PostgreSQL"
}

/// A configuration the service cannot start with; the message says what to change.
public struct ConfigurationError: Error, CustomStringConvertible, Sendable {
    public let description: String
    init(_ description: String) { self.description = description }
}
