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
/// Its `description`, `debugDescription` and mirror (`dump`) show the URL without its password
/// (``redacted(_:)``).
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

    /// ``url`` without its password (in the user info or a `password` option), for messages and logs.
    public var redactedURL: String { Self.redacted(url) }

    public var description: String { "DatabaseServerLocation(\(redactedURL))" }
    public var debugDescription: String { description }
    public var customMirror: Mirror { Mirror(self, children: ["url": redactedURL], displayStyle: .struct) }

    /// `url` as text without its secrets: the password of its user info is dropped (`user@`
    /// stays), and the value of every query option naming a password — `password` and
    /// `sslpassword`, in any case, its name percent-encoded or not — reads `***`, as does a
    /// fragment (what follows an unencoded `#`). The one
    /// function every message, log line, description and error URL of a server store uses.
    public static func redacted(_ url: URL) -> String { redacted(url.absoluteString) }

    /// The query options whose values are secrets (compared in lower case, percent-decoded).
    static let secretOptions: Set<String> = ["password", "sslpassword"]

    /// `text`, a URL, without its secrets (as `redacted(_:)` of a URL); read as text, so a URL
    /// that URLComponents cannot read is redacted too.
    static func redacted(_ text: String) -> String {
        var text = Substring(text)
        var fragment = Substring("")
        if let hash = text.firstIndex(of: "#") {
            fragment = text[hash...]
            text = text[..<hash]
        }
        var query: Substring?
        if let question = text.firstIndex(of: "?") {
            query = text[text.index(after: question)...]
            text = text[..<question]
        }
        var result = String(text)
        if let schemeEnd = text.range(of: "://") {
            let authorityEnd = text[schemeEnd.upperBound...].firstIndex(of: "/") ?? text.endIndex
            if let at = text[schemeEnd.upperBound..<authorityEnd].lastIndex(of: "@"),
               let colon = text[schemeEnd.upperBound..<at].firstIndex(of: ":") {
                result = String(text[..<colon]) + String(text[at...])
            }
        }
        if let query {
            let items = query.split(separator: "&", omittingEmptySubsequences: false).map { item -> String in
                guard let equals = item.firstIndex(of: "=") else { return String(item) }
                let name = item[..<equals]
                let decoded = (String(name).removingPercentEncoding ?? String(name)).lowercased()
                return secretOptions.contains(decoded) ? "\(name)=***" : String(item)
            }
            result += "?" + items.joined(separator: "&")
        }
        // A PostgreSQL URL has no fragment: one is what followed a `#` left unencoded, in a
        // password as likely as anywhere (libpq reads it as part of the option's value).
        return result + (fragment.isEmpty ? "" : "#***")
    }
}
