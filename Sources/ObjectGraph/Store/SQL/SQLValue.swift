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

extension SQLValue {
    /// The integer of an `.integer` value, else nil.
    var integerValue: Int64? {
        if case .integer(let value) = self { return value }
        return nil
    }

    /// The text of a `.text` value, else nil.
    var textValue: String? {
        if case .text(let text) = self { return text }
        return nil
    }
}

extension StoreLayout {
    /// The ID of the row with primary key `key` whose `Z_ENT` is `entityNumber`, in `store`;
    /// nil for a number no entity of the model has.
    func objectID(key: Int64, entityNumber: Int64, store: StoreIdentity) -> ObjectID? {
        entitiesByNumber[entityNumber].map { ObjectID(entity: $0, store: store, primaryKey: key) }
    }
}
