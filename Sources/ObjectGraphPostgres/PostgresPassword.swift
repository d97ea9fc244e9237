import Foundation

/// A login password and where it came from. It never prints: `description`,
/// `debugDescription` and mirrors (`dump`) show only its source, so a value holding one can be
/// logged or put in an error without the password.
struct PostgresPassword: Sendable, Equatable, CustomStringConvertible, CustomDebugStringConvertible, CustomReflectable {
    /// Where a password was found.
    enum Source: Sendable, Equatable, CustomStringConvertible {
        /// The URL's `user:password@`.
        case url
        /// The environment variable `PGPASSWORD`.
        case environment
        /// A line of a password file (`PGPASSFILE`, or `~/.pgpass`).
        case file(String)

        var description: String {
            switch self {
            case .url: "the URL"
            case .environment: "PGPASSWORD"
            case .file(let path): "the password file \(path)"
            }
        }
    }

    /// The password itself, for the login only.
    let value: String
    let source: Source

    var description: String { "<password from \(source), hidden>" }
    var debugDescription: String { description }
    var customMirror: Mirror { Mirror(self, children: ["source": source.description], displayStyle: .struct) }

    /// The password for `user` on `host:port/database`: the URL's (`urlPassword`), else
    /// `PGPASSWORD`, else the first matching line of the password file, as libpq looks for it.
    /// `ignoredFile` is set to the password file when one exists but was skipped because
    /// others may read it (libpq's 0600 rule).
    static func find(
        urlPassword: String?, host: String, port: Int, database: String, user: String,
        environment: [String: String], ignoredFile: inout String?
    ) -> PostgresPassword? {
        if let urlPassword { return PostgresPassword(value: urlPassword, source: .url) }
        if let value = environment["PGPASSWORD"], !value.isEmpty {
            return PostgresPassword(value: value, source: .environment)
        }
        guard let path = passwordFilePath(environment) else { return nil }
        var status = stat()
        guard stat(path, &status) == 0, status.st_mode & S_IFMT == S_IFREG else { return nil }
        if status.st_mode & 0o077 != 0 {
            ignoredFile = path
            return nil
        }
        guard let text = try? String(contentsOfFile: path, encoding: .utf8) else { return nil }
        let wanted = [host, String(port), database, user]
        for line in text.split(whereSeparator: \.isNewline) where !line.hasPrefix("#") {
            let fields = passwordFileFields(line)
            guard fields.count >= 5 else { continue }
            if zip(fields.prefix(4), wanted).allSatisfy({ $0 == "*" || $0 == $1 }) {
                // A password holding `:` keeps it (only the first four fields are split off).
                return PostgresPassword(value: fields[4...].joined(separator: ":"), source: .file(path))
            }
        }
        return nil
    }

    /// `PGPASSFILE`, else `~/.pgpass` ($HOME, else the user's home folder).
    private static func passwordFilePath(_ environment: [String: String]) -> String? {
        if let path = environment["PGPASSFILE"], !path.isEmpty { return path }
        let home = environment["HOME"].flatMap { $0.isEmpty ? nil : $0 } ?? {
            guard let entry = getpwuid(geteuid()), let directory = entry.pointee.pw_dir else { return nil }
            return String(cString: directory)
        }()
        return home.map { ($0 as NSString).appendingPathComponent(".pgpass") }
    }

    /// The fields of `hostname:port:database:username:password`, where `\:` is a colon and
    /// `\\` a backslash.
    private static func passwordFileFields(_ line: Substring) -> [String] {
        var fields: [String] = [], field = "", escaped = false
        for character in line {
            if escaped {
                field.append(character)
                escaped = false
            } else if character == "\\" {
                escaped = true
            } else if character == ":" {
                fields.append(field)
                field = ""
            } else {
                field.append(character)
            }
        }
        fields.append(field)
        return fields
    }
}
