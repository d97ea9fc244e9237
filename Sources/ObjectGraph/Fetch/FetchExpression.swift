/// A function over the values of one key across the matching objects (or a group).
public enum AggregateFunction: String, Sendable, Hashable {
    case count, sum, average, min, max

    var sqlName: String {
        switch self {
        case .count: return "COUNT"
        case .sum: return "SUM"
        case .average: return "AVG"
        case .min: return "MIN"
        case .max: return "MAX"
        }
    }
}

/// One column of a dictionary fetch: a key (or a key path through to-one relationships), or
/// an aggregate of a key, under a name.
///
/// For example:
///
/// ```swift
/// request.propertiesToFetch = ["department.name", .aggregate(.average, of: "salary", as: "meanSalary")]
/// request.propertiesToGroupBy = ["department.name"]
/// ```
public struct FetchExpression: Sendable, Hashable, ExpressibleByStringLiteral, CustomStringConvertible {
    /// The key in each result dictionary.
    public let name: String
    /// The key or key path the column reads.
    public let keyPath: String
    /// The aggregate applied, or nil for the plain value.
    public let function: AggregateFunction?

    /// The value of `keyPath`, named after it.
    public init(_ keyPath: String) {
        self.name = keyPath
        self.keyPath = keyPath
        self.function = nil
    }

    public init(stringLiteral value: String) { self.init(value) }

    private init(name: String, keyPath: String, function: AggregateFunction?) {
        self.name = name
        self.keyPath = keyPath
        self.function = function
    }

    /// `function` over `keyPath`, named `name` (default: `"<function>(<keyPath>)"`).
    public static func aggregate(_ function: AggregateFunction, of keyPath: String, as name: String? = nil) -> FetchExpression {
        FetchExpression(name: name ?? "\(function.rawValue)(\(keyPath))", keyPath: keyPath, function: function)
    }

    public var description: String { function.map { "\($0.rawValue)(\(keyPath)) as \(name)" } ?? keyPath }
}
