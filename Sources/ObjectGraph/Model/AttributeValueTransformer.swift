import Foundation

/// Turns the value of a transformable attribute into the `Data` stored for it, and back: what
/// Foundation's `ValueTransformer` does for Core Data on Apple platforms (swift-corelibs
/// Foundation has no `ValueTransformer`).
///
/// A model read from an Xcode model file names a transformer per transformable attribute
/// (`valueTransformerName`; Core Data's default, `NSKeyedUnarchiveFromData`, when it names
/// none). Register one under that name and key-based access reads and writes the transformed
/// value (every non-nil value written goes through ``transformedValue(_:)``, `Data`
/// included); with none registered, the attribute reads and writes its stored `Data` as it is.
/// Predicates, sorting and JSON export see the stored bytes.
///
/// ```swift
/// struct CommaSeparatedTags: AttributeValueTransformer {
///     func transformedValue(_ value: Any) -> Data? {
///         (value as? [String]).map { Data($0.joined(separator: ",").utf8) }
///     }
///     func reverseTransformedValue(_ data: Data) -> Any? {
///         String(data: data, encoding: .utf8).map { $0.split(separator: ",").map(String.init) }
///     }
/// }
/// AttributeValueTransformers.register(CommaSeparatedTags(), forName: "TagsTransformer")
/// let tags = note.value(forKey: "tags") as? [String]
/// ```
public protocol AttributeValueTransformer: Sendable {
    /// The data to store for `value`, or nil when `value` is not something this transformer
    /// takes (``ManagedObject/setValue(_:forKey:)`` then throws a type mismatch).
    func transformedValue(_ value: Any) -> Data?
    /// The value that `data` (as ``transformedValue(_:)`` made it) stands for, or nil when
    /// the data cannot be read back.
    func reverseTransformedValue(_ data: Data) -> Any?
}

/// The transformers that transformable attributes of model-file models use, by name.
public enum AttributeValueTransformers {
    /// The name Core Data uses when a transformable attribute names no transformer.
    public static let defaultName = "NSKeyedUnarchiveFromData"

    private static let registered = Locked<[String: any AttributeValueTransformer]>([:])

    /// Registers `transformer` under `name` (replacing one registered before). Attributes
    /// naming it use it from their next read or write, in every model already loaded.
    public static func register(_ transformer: any AttributeValueTransformer, forName name: String) {
        registered.withLock { $0[name] = transformer }
    }

    /// Removes the transformer registered under `name`; its attributes read and write `Data`.
    public static func unregister(name: String) {
        registered.withLock { $0[name] = nil }
    }

    /// The transformer registered under `name`, if any.
    public static func transformer(forName name: String) -> (any AttributeValueTransformer)? {
        registered.withLock { $0[name] }
    }
}

extension ValueConversion {
    /// A model-file transformable attribute: its `Data` as it is, or the value the
    /// transformer registered under `transformerName` makes of it.
    static func transformable(named transformerName: String?, entity: String, attribute: String) -> ValueConversion {
        let name = transformerName ?? AttributeValueTransformers.defaultName
        let data = ValueConversion.dynamic(.transformable)
        return ValueConversion(
            toAny: { stored in
                guard let transformer = AttributeValueTransformers.transformer(forName: name),
                      let bytes = data.toAny(stored) as? Data else { return data.toAny(stored) }
                guard let value = transformer.reverseTransformedValue(bytes) else {
                    preconditionFailure("ManagedRecord: the value transformer \"\(name)\" cannot read the stored value of \(entity).\(attribute) (\(bytes.count) bytes); fix the transformer, or unregister it to read the Data as it is")
                }
                return value
            },
            fromAny: { value in
                guard let transformer = AttributeValueTransformers.transformer(forName: name), let value else { return data.fromAny(value) }
                return transformer.transformedValue(value).flatMap { data.fromAny($0) }
            },
            swiftTypeName: "a value the transformer \"\(name)\" takes, or Data")
    }
}
