import Foundation

/// A value as a SQL store reads and binds it: one of SQLite's five storage classes, which
/// the PostgreSQL driver (``DatabaseServerDriver``) sends and receives too.
public enum SQLValue: Sendable, Hashable {
    case null
    case integer(Int64)
    case real(Double)
    case text(String)
    case blob(Data)
}
