import Foundation

/// Sort keys resolved against the model, and an in-memory comparator with the order a
/// store gives them (SQLite's: NULL first, numbers, text, bytes).
struct SortPlan {
    var keys: [BoundSortKey] = []

    init(keys: [BoundSortKey]) {
        self.keys = keys
    }

    init(_ sortKeys: [SortKey], entity: EntityDescription) throws {
        for key in sortKeys {
            let path: BoundPath
            do {
                path = try PredicateBinder.scalarPath(key.key, on: entity).0
            } catch let error as FetchPredicateError where error.code == .unknownKey {
                throw KeyValueError.unknownKey(key.key, entity: entity)
            }
            keys.append(BoundSortKey(path: path, ascending: key.ascending, comparison: key.comparison))
        }
    }

    func areInIncreasingOrder(_ a: ManagedObject, _ b: ManagedObject) -> Bool {
        for key in keys {
            let order = Self.compare(PredicateEvaluator.value(key.path, [a]), PredicateEvaluator.value(key.path, [b]), key.comparison)
            if order == .orderedSame { continue }
            return key.ascending ? order == .orderedAscending : order == .orderedDescending
        }
        return false
    }

    /// SQLite's order with the sort key's collation: NULL first, numbers, text, bytes.
    static func compare(_ a: SlotValue, _ b: SlotValue, _ comparison: SortKey.Comparison) -> ComparisonResult {
        if let x = PredicateEvaluator.text(a), let y = PredicateEvaluator.text(b) {
            switch comparison {
            case .binary: return TextOrder.scalars(x, y)
            case .caseInsensitive: return TextOrder.caseInsensitive(x, y)
            case .localizedStandard: return TextOrder.localizedStandard(x, y)
            }
        }
        return PredicateEvaluator.order(a, b) ?? SlotValue.compare(a, b, caseInsensitive: false)
    }
}
