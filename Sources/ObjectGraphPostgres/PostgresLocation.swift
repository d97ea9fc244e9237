import Foundation
import ObjectGraph

extension PersistentContainer.Location {
    /// A store in a PostgreSQL database, for applications on several machines sharing one
    /// store (SQLite stays the default):
    ///
    /// ```swift
    /// import ObjectGraphPostgres
    ///
    /// let url = URL(string: "postgres://app@127.0.0.1:5432/company")!
    /// let container = try PersistentContainer(name: "Company", entities: entities, store: .postgres(url))
    /// ```
    ///
    /// `url` is `postgres://user[:password]@host[:port]/database` (the password may also be
    /// the option `password`), optionally with
    /// `?schema=<name>`: the PostgreSQL schema that holds Core Data's tables (default
    /// `coredata`), created on first use; and with the TLS options `sslmode`, `sslrootcert`,
    /// `sslcert` and `sslkey` (libpq's meaning; ``PostgresDriver/init(url:timeout:poolSize:logger:environment:)``
    /// and docs/security.md). Connections come from a ``PostgresDriver`` with its default
    /// timeout and pool size; without a password in the URL it takes `PGPASSWORD` or the
    /// password file's.
    public static func postgres(_ url: URL) -> Self {
        .server(DatabaseServerLocation(url: url) { try PostgresDriver(url: $0) })
    }
}
