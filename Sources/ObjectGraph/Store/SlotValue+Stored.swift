import Foundation

extension SlotValue {
    /// The value as a Core Data store's column holds it (the same in SQLite and on a server):
    /// dates and Decimals as seconds or numbers, UUIDs as 16 bytes, URLs as text, a to-one
    /// as the destination's primary key; nothing for what no column holds.
    var storedValue: SQLValue {
        switch self {
        case .null, .unloaded, .objects: return .null
        case .int(let v): return .integer(v)
        case .double(let v): return .real(v)
        case .text(let v): return .text(v)
        case .blob(let v): return .blob(v)
        case .uuid(let v): return .blob(v.blobData)
        case .decimal(let v): return .real(v.storedDouble)
        case .url(let v): return .text(v.absoluteString)
        case .object(let id): return .integer(id.key)
        }
    }
}
