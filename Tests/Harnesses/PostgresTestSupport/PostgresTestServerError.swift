import Foundation

/// What went wrong while starting, using or stopping the PostgreSQL server the tests run against.
///
/// Every case's `description` says what happened and what to do about it; a test that throws
/// one prints that message.
public enum PostgresTestServerError: Error, CustomStringConvertible, Sendable {
    /// A PostgreSQL program (`program`: `initdb`, `pg_ctl` or `psql`) was found in none of
    /// `searched` (Debian's `/usr/lib/postgresql/*/bin`, then `PATH`).
    case notInstalled(program: String, searched: [String])
    /// The tests run as root, which PostgreSQL refuses to run a server as, and the user the
    /// server would run as instead (`user`) or the `runuser` program is missing.
    case cannotRunServerAsRoot(user: String, reason: String)
    /// `url` (from `MANAGEDRECORD_POSTGRES_URL` or given to a call) is not a usable
    /// `postgres://USER@HOST:PORT/DATABASE` URL.
    case invalidURL(String, reason: String)
    /// Preparing the test server failed at `step` (its folder, the folder's owner, a free port).
    case preparationFailed(step: String, reason: String)
    /// `command` (`initdb` or `pg_ctl start`) failed; `output` is what it printed and
    /// `logTail` the last lines of the server's log.
    case startFailed(command: String, output: String, logTail: String)
    /// `command` could not be launched at all.
    case launchFailed(command: String, reason: String)
    /// `command` exited with `status`; `output` is what it printed on standard error (else
    /// standard output).
    case commandFailed(command: String, status: Int32, output: String)
    /// `command` did not finish within `seconds` and was stopped; `output` is what it had
    /// printed by then.
    case timedOut(command: String, seconds: Int, output: String)
    /// `count` connections to `database` were still open `seconds` after they were ended.
    case connectionsRemain(database: String, count: Int, seconds: Int)

    public var description: String {
        switch self {
        case let .notInstalled(program, searched):
            return """
                PostgreSQL is not installed: \(program) was not found in \(searched.joined(separator: ", ")). \
                The PostgreSQL store's tests start their own server on 127.0.0.1 from Debian's packages: \
                install them with `sudo apt-get install -y postgresql` (`.ci/run` does), \
                or set MANAGEDRECORD_POSTGRES_URL=postgres://USER@HOST:PORT/postgres to use a running server.
                """
        case let .cannotRunServerAsRoot(user, reason):
            return """
                The tests run as root and PostgreSQL refuses to run its server as root; it would run as \
                the user '\(user)', but \(reason). Install Debian's `postgresql` package (it creates that \
                user), run the tests as another user, or set MANAGEDRECORD_POSTGRES_URL to a running server.
                """
        case let .invalidURL(url, reason):
            return """
                '\(url)' is not a usable PostgreSQL URL: \(reason). \
                Expected postgres://USER@HOST:PORT/DATABASE (MANAGEDRECORD_POSTGRES_URL names the \
                server's maintenance database, usually /postgres).
                """
        case let .preparationFailed(step, reason):
            return "Could not prepare the PostgreSQL test server: \(step) failed: \(reason)."
        case let .startFailed(command, output, logTail):
            return """
                The PostgreSQL test server did not start: `\(command)` failed.
                Its output:
                \(output.isEmpty ? "(none)" : output)
                The end of the server's log:
                \(logTail.isEmpty ? "(empty)" : logTail)
                """
        case let .launchFailed(command, reason):
            return "Could not launch `\(command)`: \(reason)."
        case let .commandFailed(command, status, output):
            return "`\(command)` failed (exit status \(status)): \(output.isEmpty ? "(no output)" : output)"
        case let .timedOut(command, seconds, output):
            return """
                `\(command)` did not finish within \(seconds) s and was stopped \
                (is the server overloaded or a lock held?). Its output so far: \(output.isEmpty ? "(none)" : output)
                """
        case let .connectionsRemain(database, count, seconds):
            return """
                \(count) connection(s) to the database \(database) were still open \(seconds) s after \
                pg_terminate_backend ended them (does the URL's user have the right to end other sessions?).
                """
        }
    }
}

extension PostgresTestServerError: LocalizedError {
    public var errorDescription: String? { description }
}
