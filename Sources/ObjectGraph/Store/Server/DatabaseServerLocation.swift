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
public struct DatabaseServerLocation: Sendable {
    /// The server, database and login (a password in it never appears in errors).
    public let url: URL
    /// Opens a pool of connections to `url` (the URL without the store's own options).
    let connect: @Sendable (URL) throws -> any DatabaseServerDriver

    /// A server store at `url`, connected by `connect` (which throws ``StoreError``
    /// `.connectionFailed` or `.cannotOpen` when the server cannot be used).
    public init(url: URL, connect: @escaping @Sendable (URL) throws -> any DatabaseServerDriver) {
        self.url = url
        self.connect = connect
    }
}
