/// The storage type of an attribute, as Core Data names them.
///
/// Each type maps to one SQLite column type the way Core Data's SQLite store writes it.
public enum AttributeType: String, Sendable, Hashable, CaseIterable {
    case integer16 = "Integer 16"
    case integer32 = "Integer 32"
    case integer64 = "Integer 64"
    case double = "Double"
    case float = "Float"
    /// Stored as a SQLite REAL, as Core Data does: exact to 15 significant digits (a save
    /// refuses a Decimal of more); PostgreSQL stores it as `numeric`, exactly (docs/stores.md).
    case decimal = "Decimal"
    case string = "String"
    case boolean = "Boolean"
    /// Stored as REAL seconds since 2001-01-01 00:00:00 UTC.
    case date = "Date"
    case binary = "Binary"
    /// Stored as a 16-byte BLOB.
    case uuid = "UUID"
    /// Stored as the URL's absolute string.
    case uri = "URI"
    /// A `Codable` value, stored as a BLOB holding its JSON encoding.
    case transformable = "Transformable"

    /// The column type Core Data declares for this attribute type.
    var columnType: String {
        switch self {
        case .integer16, .integer32, .integer64, .boolean: return "INTEGER"
        case .double, .float: return "FLOAT"
        case .decimal: return "DECIMAL"
        case .string, .uri: return "VARCHAR"
        case .date: return "TIMESTAMP"
        case .binary, .uuid, .transformable: return "BLOB"
        }
    }

    /// The Swift type name that a key-based setter expects, for error messages.
    var swiftTypeName: String {
        switch self {
        case .integer16: return "Int16"
        case .integer32: return "Int32"
        case .integer64: return "Int or Int64"
        case .double: return "Double"
        case .float: return "Float"
        case .decimal: return "Decimal"
        case .string: return "String"
        case .boolean: return "Bool"
        case .date: return "Date"
        case .binary: return "Data"
        case .uuid: return "UUID"
        case .uri: return "URL"
        case .transformable: return "a Codable value"
        }
    }
}
