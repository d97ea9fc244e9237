import Foundation

/// A store on a database server, as ``PersistentContainer/Location/server(_:)`` opens it:
/// the server's URL and how to connect to it.
///
/// ObjectGraph writes the server store's SQL; a driver in a product of its own carries it, so
/// this is usually made by that product: `import ObjectGraphPostgres` and write
/// `.postgres(url)`:
///
/// ```swift
/// let url = URL(string: "postgres://app@db.example.com:5432/company")!
/// let container = try PersistentContainer(name: "Company", entities: entities, store: .postgres(url))
/// ```
///
/// The URL's query option `schema=<name>` names the PostgreSQL schema holding the store's
/// tables (default `coredata`); the store removes it before `connect` sees the URL.
///
/// Its `description`, `debugDescription` and mirror (`dump`) show the URL without its password.
public struct DatabaseServerLocation: Sendable, CustomStringConvertible, CustomDebugStringConvertible, CustomReflectable {
    /// The server, database and login. A password in it never appears in errors, logs, or
    /// this location's `description`; ``redactedURL`` is the URL to show.
    public let url: URL
    /// Opens a pool of connections to `url` (the URL without the store's own options).
    let connect: @Sendable (URL) throws -> any DatabaseServerDriver

    /// A server store at `url`, connected by `connect` (which throws ``StoreError``
    /// `.connectionFailed` or `.cannotOpen` when the server cannot be used).
    public init(url: URL, connect: @escaping @Sendable (URL) throws -> any DatabaseServerDriver) {
        self.url = url
        self.connect = connect
    }

    /// ``url`` without its password, for messages and logs.
    public var redactedURL: String { Self.redacted(url) }

    public var description: String { "DatabaseServerLocation(\(redactedURL))" }
    public var debugDescription: String { description }
    public var customMirror: Mirror { Mirror(self, children: ["url": redactedURL], displayStyle: .struct) }

    /// `url` as text without its password (`user@` stays). A URL that URLComponents cannot
    /// read loses everything between `://` and `@` after the user's first colon.
    public static func redacted(_ url: URL) -> String {
        if var components = URLComponents(url: url, resolvingAgainstBaseURL: false) {
            guard components.password != nil else { return url.absoluteString }
            components.password = nil
            if let text = components.string { return text }
        }
        let text = url.absoluteString
        guard let schemeEnd = text.range(of: "://") else { return text }
        let authorityEnd = text[schemeEnd.upperBound...].firstIndex { $0 == "/" || $0 == "?" || $0 == "#" } ?? text.endIndex
        guard let at = text[schemeEnd.upperBound..<authorityEnd].lastIndex(of: "@"),
              let colon = text[schemeEnd.upperBound..<at].firstIndex(of: ":") else { return text }
        return String(text[..<colon]) + String(text[at...])
    }
}
