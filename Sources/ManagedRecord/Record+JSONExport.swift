import Foundation
import ObjectGraph

/// JSON export as class-level helpers, on the calling thread's context.
extension Record where Self: ManagedObject {
    /// The objects matching `format` as a JSON array (see ``ManagedObject/jsonObject(options:)``).
    ///
    /// ```swift
    /// let json: Data = try Employee.exportJSON(where: "age > %@", 40)
    /// ```
    public static func exportJSON(where format: String, _ arguments: Any?..., sortedBy sortKeys: [SortKey] = [],
                                  options: JSONExportOptions = JSONExportOptions()) throws -> Data {
        try exportJSON(where: FetchPredicate(format, argumentArray: arguments), sortedBy: sortKeys, options: options)
    }

    /// The objects matching `predicate` (every object when nil) as a JSON array.
    public static func exportJSON(where predicate: FetchPredicate? = nil, sortedBy sortKeys: [SortKey] = [],
                                  options: JSONExportOptions = JSONExportOptions()) throws -> Data {
        try contextForCurrentThread.exportJSON(fetchRequest(where: predicate, sortedBy: sortKeys), options: options)
    }

    /// The objects matching `predicate`, decoded as `type` from their JSON (a `Codable` form).
    ///
    /// ```swift
    /// struct Row: Decodable { let firstName: String; let age: Int }
    /// let rows = try Employee.export(as: Row.self, where: \Employee.$age > 40)
    /// ```
    public static func export<Row: Decodable>(as type: Row.Type, where predicate: FetchPredicate? = nil, sortedBy sortKeys: [SortKey] = [],
                                             options: JSONExportOptions = JSONExportOptions()) throws -> [Row] {
        try contextForCurrentThread.export(fetchRequest(where: predicate, sortedBy: sortKeys), as: type, options: options)
    }
}
