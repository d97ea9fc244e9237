/// A key-based access (`value(forKey:)`, `setValue(_:forKey:)`, a sort key) that names a
/// property the entity does not have, or gives a value of the wrong type.
public struct KeyValueError: Error, CustomStringConvertible, Sendable {
    /// What kind of problem it is.
    public struct Code: Hashable, Sendable, CustomStringConvertible {
        let name: String
        /// The entity has no property of that name.
        public static let unknownKey = Code(name: "unknownKey")
        /// The value is not of the property's type.
        public static let typeMismatch = Code(name: "typeMismatch")
        public var description: String { name }
    }

    /// What kind of problem it is.
    public let code: Code
    /// The entity that was asked.
    public let entity: String
    /// The key that was asked for.
    public let key: String
    /// What is wrong, naming the entity, the key and the types.
    public let message: String

    package static func unknownKey(_ key: String, entity: EntityDescription) -> KeyValueError {
        let known = entity.properties.map(\.name).joined(separator: ", ")
        return KeyValueError(code: .unknownKey, entity: entity.name, key: key,
                             message: "\(entity.name) has no property named '\(key)' (it has: \(known))")
    }

    static func typeMismatch(_ key: String, entity: EntityDescription, expected: String, got value: Any?) -> KeyValueError {
        let given = value.map { "\(type(of: $0))" } ?? "nil"
        return KeyValueError(code: .typeMismatch, entity: entity.name, key: key,
                             message: "\(entity.name).\(key) takes \(expected), not \(given)")
    }

    public var description: String { "Key-value error (\(code)): \(message)" }
}
