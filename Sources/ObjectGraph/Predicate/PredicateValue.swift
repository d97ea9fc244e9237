import Foundation

/// A constant in a predicate: a literal of the format string, an argument, or a value of a
/// typed predicate. `Sendable`: managed objects are kept as their object IDs.
enum PredicateValue: Sendable, Hashable, CustomStringConvertible {
    case null
    case bool(Bool)
    case int(Int64)
    case double(Double)
    case decimal(Decimal)
    case string(String)
    case date(Date)
    case uuid(UUID)
    case data(Data)
    case url(URL)
    case object(ObjectID)
    case list([PredicateValue])

    /// Converts an argument (`%@`, a substitution variable, a typed value).
    ///
    /// - Throws: ``FetchPredicateError`` (`argument`) for a type a predicate cannot hold.
    static func from(_ any: Any?) throws -> PredicateValue {
        guard let any else { return .null }
        switch any {
        case let value as PredicateValue: return value
        case is NSNull: return .null
        case let value as Bool: return .bool(value)
        case let value as Int: return .int(Int64(value))
        case let value as Int64: return .int(value)
        case let value as Int32: return .int(Int64(value))
        case let value as Int16: return .int(Int64(value))
        case let value as Int8: return .int(Int64(value))
        case let value as UInt: return .int(Int64(clamping: value))
        case let value as UInt64: return .int(Int64(clamping: value))
        case let value as UInt32: return .int(Int64(value))
        case let value as UInt16: return .int(Int64(value))
        case let value as UInt8: return .int(Int64(value))
        case let value as Double: return .double(value)
        case let value as Float: return .double(Double(value))
        case let value as Decimal: return .decimal(value)
        case let value as String: return .string(value)
        case let value as Substring: return .string(String(value))
        case let value as Character: return .string(String(value))
        case let value as Date: return .date(value)
        case let value as UUID: return .uuid(value)
        case let value as Data: return .data(value)
        case let value as URL: return .url(value)
        case let value as ManagedObject: return .object(value.objectID)
        case let value as ObjectID: return .object(value)
        case let value as NSNumber: return .double(value.doubleValue)
        default: break
        }
        if let dictionary = any as? [AnyHashable: Any] {     // IN a dictionary: its values, as in Foundation
            return .list(try dictionary.values.map { try from($0) })
        }
        let mirror = Mirror(reflecting: any)
        if mirror.displayStyle == .optional {
            return try from(mirror.children.first?.value)
        }
        if let sequence = any as? any Sequence {
            var values: [PredicateValue] = []
            for element in sequence { values.append(try from(element)) }
            return .list(values)
        }
        throw FetchPredicateError(.argument, "a predicate cannot hold a value of type \(type(of: any)) (\(any)); use numbers, strings, dates, UUIDs, data, URLs, booleans, nil, managed objects, object IDs, or arrays and sets of them")
    }

    /// The name of the value's type, for messages.
    var typeName: String {
        switch self {
        case .null: return "nil"
        case .bool: return "Bool"
        case .int: return "Int"
        case .double: return "Double"
        case .decimal: return "Decimal"
        case .string: return "String"
        case .date: return "Date"
        case .uuid: return "UUID"
        case .data: return "Data"
        case .url: return "URL"
        case .object: return "managed object"
        case .list: return "collection"
        }
    }

    /// The value as it appears in a format string.
    var description: String {
        switch self {
        case .null: return "nil"
        case .bool(let v): return v ? "TRUE" : "FALSE"
        case .int(let v): return String(v)
        case .double(let v): return String(v)
        case .decimal(let v): return "\(v)"
        case .string(let v): return "\"" + v.replacingOccurrences(of: "\\", with: "\\\\").replacingOccurrences(of: "\"", with: "\\\"") + "\""
        case .date(let v): return "CAST(\(v.timeIntervalSinceReferenceDate), \"NSDate\")"
        case .uuid(let v): return v.uuidString
        case .data(let v): return "<\(v.count) bytes>"
        case .url(let v): return v.absoluteString
        case .object(let id): return id.description
        case .list(let values): return "{" + values.map(\.description).joined(separator: ", ") + "}"
        }
    }
}
