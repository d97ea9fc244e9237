import Foundation
import OrderedCollections

/// One property's value inside a managed object's slot buffer. An implementation detail that
/// `AttributeValue` conformances use; application code never needs it.
///
/// Plain numbers are stored unboxed; relationships hold object IDs, never objects, so that
/// registered objects can be released and re-faulted without reference cycles.
public enum SlotValue: Hashable, Sendable {
    case null
    case int(Int64)
    case double(Double)
    case text(String)
    case blob(Data)
    case uuid(UUID)
    case decimal(Decimal)
    case url(URL)
    /// A to-one relationship's destination.
    case object(ObjectID)
    /// A loaded to-many relationship: destination IDs in order (order matters only when ordered).
    case objects(OrderedSet<ObjectID>)
    /// A to-many relationship not loaded yet: it loads with one query on first touch.
    case unloaded

    @usableFromInline
    var isNull: Bool { if case .null = self { return true } else { return false } }

    var objectID: ObjectID? { if case .object(let id) = self { return id } else { return nil } }

    var objectIDs: OrderedSet<ObjectID>? { if case .objects(let ids) = self { return ids } else { return nil } }
}

extension SlotValue {
    /// The order sort keys use in memory, matching SQLite's: NULL first, then numbers, then
    /// text (by Unicode scalars, or ignoring case), then BLOBs by bytes.
    static func compare(_ a: SlotValue, _ b: SlotValue, caseInsensitive: Bool) -> ComparisonResult {
        func rank(_ value: SlotValue) -> Int {
            switch value {
            case .null, .unloaded, .objects: return 0
            case .int, .double, .decimal: return 1
            case .text, .url: return 2
            case .blob, .uuid: return 3
            case .object: return 1
            }
        }
        func number(_ value: SlotValue) -> Double {
            switch value {
            case .int(let v): return Double(v)
            case .double(let v): return v
            case .decimal(let v): return v.storedDouble
            case .object(let id): return Double(id.key)
            default: return 0
            }
        }
        func text(_ value: SlotValue) -> String {
            switch value {
            case .text(let v): return caseInsensitive ? v.lowercased() : v
            case .url(let v): return v.absoluteString
            default: return ""
            }
        }
        func bytes(_ value: SlotValue) -> Data {
            switch value {
            case .blob(let v): return v
            case .uuid(let v): return v.blobData
            default: return Data()
            }
        }
        let (ra, rb) = (rank(a), rank(b))
        if ra != rb { return ra < rb ? .orderedAscending : .orderedDescending }
        switch ra {
        case 1:
            if case .int(let x) = a, case .int(let y) = b { return x == y ? .orderedSame : (x < y ? .orderedAscending : .orderedDescending) }
            let (x, y) = (number(a), number(b))
            return x == y ? .orderedSame : (x < y ? .orderedAscending : .orderedDescending)
        case 2:
            let (x, y) = (text(a), text(b))
            return x == y ? .orderedSame : (x.unicodeScalars.lexicographicallyPrecedes(y.unicodeScalars) ? .orderedAscending : .orderedDescending)
        case 3:
            let (x, y) = (bytes(a), bytes(b))
            return x == y ? .orderedSame : (x.lexicographicallyPrecedes(y) ? .orderedAscending : .orderedDescending)
        default:
            return .orderedSame
        }
    }
}
