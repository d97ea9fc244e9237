import Foundation

// A managed object as a JSON-ready dictionary.
extension ManagedObject {
    /// The object's stored attributes (and, as `options` say, relationships) as a dictionary
    /// `JSONSerialization` accepts: UUIDs, URLs and dates as strings (or dates as numbers),
    /// decimals as numbers (or strings), data as base64, a `Codable` attribute as the JSON it
    /// is stored as, nil as `NSNull`.
    ///
    /// ```swift
    /// let json = try JSONSerialization.data(withJSONObject: john.jsonObject())
    /// ```
    ///
    /// Fires the object's fault and, for relationships written as keys or nested objects,
    /// the destinations' faults.
    public func jsonObject(options: JSONExportOptions = JSONExportOptions()) -> [String: Any] {
        JSONExporter(options: options).jsonObject(self, base: entity, depth: options.relationships.depth)
    }
}
