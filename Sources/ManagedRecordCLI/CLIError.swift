import ArgumentParser
import Foundation
import ObjectGraph

/// A failure the tool reports on standard error before exiting non-zero.
struct CLIError: Error, CustomStringConvertible {
    /// The failures the tool's own checks find (others are `.other`).
    enum Kind {
        /// The store was written with another version of the model; only `migrate` migrates.
        case needsMigration
        /// An output path is a store, or a store's `-wal`, `-shm` or `-journal`.
        case outputIsAStore
        /// The input of `import` is empty (or only white space): there is nothing to import.
        case emptyInput
        /// A command of SQLite files only (`backup`, `restore`) was given a PostgreSQL URL.
        case serverStore
        /// `delete` could not ask (standard input is not a terminal) and had no `--yes`.
        case notConfirmed
        case other
    }

    let kind: Kind
    let description: String

    init(_ kind: Kind, _ description: String) {
        self.kind = kind
        self.description = description
    }

    init(_ description: String) { self.init(.other, description) }

    /// An unknown key, with the keys that exist.
    static func unknownKey(_ key: String, entity: EntityDescription, path: String) -> CLIError {
        let keys = entity.properties.map(\.name).sorted().joined(separator: ", ")
        let within = key == path ? "" : " (in \"\(path)\")"
        return CLIError("\(entity.name) has no key \"\(key)\"\(within); its keys: \(keys)")
    }
}

/// Runs a command's body: errors are written to standard error in a form a person can act
/// on, and the process exits with status 1.
func reportingErrors(_ body: () throws -> Void) throws {
    do {
        try body()
    } catch let error as ExitCode {
        throw error
    } catch {
        Terminal.error(describe(error))
        throw ExitCode.failure
    }
}

/// What to print for `error`: a predicate error points at its character (an unknown key in
/// it is named with the keys that exist, by the predicate layer's own message).
func describe(_ error: Error) -> String {
    if let error = error as? FetchPredicateError {
        var text = error.message
        if let format = error.format, let position = error.position {
            let offset = min(max(position, 0), format.count)
            text += "\n  \(format)\n  \(String(repeating: " ", count: offset))^"
        }
        return "invalid predicate: " + text
    }
    if let error = error as? StoreError {
        let cause = error.underlying.map { ": \($0)" } ?? ""
        // A server store's URL without its password (the library gives it so; redacted again here).
        let place = error.url.map { $0.isFileURL ? $0.path : DatabaseServerLocation.redacted($0) } ?? "in memory"
        return "\(error.message) (\(error.code): \(place))\(cause)"
    }
    return String(describing: error)
}
