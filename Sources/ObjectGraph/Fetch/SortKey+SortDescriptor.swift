import Foundation

extension SortKey {
    /// The sort key of a Foundation `SortDescriptor` on a stored attribute of the entity
    /// (`SortDescriptor(\Employee.lastName, order: .reverse)`): its order, and for strings its
    /// comparator (none or `.lexical`: ``Comparison/binary``; where Foundation has them,
    /// `.localizedStandard`: ``Comparison/localizedStandard`` and a case-insensitive one:
    /// ``Comparison/caseInsensitive``, told by how they order "file9"/"file10" and "a"/"B").
    ///
    /// A descriptor whose key path names no stored attribute (a computed property, a key path
    /// through a relationship) gives a key the fetch refuses with a `KeyValueError` naming the
    /// key path; sort through relationships with `SortKey("department.name")`.
    public init<Root: ManagedObject>(_ descriptor: SortDescriptor<Root>) {
        let ascending = descriptor.order == .forward
        var comparison = Comparison.binary
        if var comparator = descriptor.stringComparator {
            // Told by what it does: FoundationEssentials keeps the comparator's options private.
            comparator.order = .forward
            if comparator.compare("file9", "file10") == .orderedAscending {
                comparison = .localizedStandard
            } else if comparator.compare("a", "B") == .orderedAscending {
                comparison = .caseInsensitive
            }
        }
        guard let keyPath = descriptor.keyPath else {
            self.init("(a SortDescriptor of \(Root.self) without a key path)", ascending: ascending, comparison: comparison)
            return
        }
        let valueType = type(of: keyPath as AnyKeyPath).valueType
        switch try? ModelKeyPaths.target(of: keyPath, valueType: valueType, on: Root.self) {
        case .attribute(let name)?, .toOne(let name)?:
            self.init(name, ascending: ascending, comparison: comparison)
        default:
            self.init("\(keyPath.debugDescription) (not a stored attribute of \(Root.self))", ascending: ascending, comparison: comparison)
        }
    }
}
