/// One key of a fetch request's sort order: a property name (or a key path through to-one
/// relationships, `department.name`), a direction and how strings compare.
///
/// Named `SortKey` because Foundation already exports `SortDescriptor`.
///
/// For example:
///
/// ```swift
/// request.sortDescriptors = [SortKey("lastName"), SortKey("age", ascending: false)]
/// request.sortDescriptors = [SortKey(\Employee.$age)]
/// request.sortDescriptors = [SortKey("department.name", comparison: .localizedStandard)]
/// ```
///
/// Unsaved objects that a fetch includes are sorted in with the same order.
public struct SortKey: Sendable, Hashable, CustomStringConvertible {
    /// How strings compare.
    public enum Comparison: Sendable, Hashable {
        /// By Unicode scalar values, as SQLite's `BINARY` collation.
        case binary
        /// Ignoring case, for all of Unicode.
        case caseInsensitive
        /// As Finder sorts names: ignoring case and diacritics, digits by their number
        /// (`file9` before `file10`).
        case localizedStandard
    }

    /// The property name or dotted key path.
    public let key: String
    public let ascending: Bool
    public let comparison: Comparison

    public init(_ key: String, ascending: Bool = true, comparison: Comparison = .binary) {
        self.key = key
        self.ascending = ascending
        self.comparison = comparison
    }

    /// A sort key for the property that `keyPath` projects (`\Employee.$age`).
    public init<Root: ManagedObject, Value>(_ keyPath: KeyPath<Root, PropertyReference<Value>>, ascending: Bool = true,
                                            comparison: Comparison = .binary) {
        guard let name = ClassLayout.of(Root.self).propertyName(for: keyPath) else {
            preconditionFailure("ManagedRecord: the key path does not name a property of \(Root.self)")
        }
        self.init(name, ascending: ascending, comparison: comparison)
    }

    public var description: String { "\(key) \(ascending ? "ascending" : "descending")" }
}
