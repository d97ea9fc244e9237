import Foundation

/// `ACHANGE.ZCOLUMNS`: which properties an update wrote, as a bitmap. Bit *n*, counted from
/// the most significant bit of the first byte, stands for the *n*th of the changed row's own
/// entity's stored (non-transient) properties, attributes and relationships together, sorted
/// by name; the bitmap has as many bytes as those properties need. This is how third-party
/// readers of Apple stores describe Core Data's bytes (docs/history.md); it is not Apple's
/// documentation.
enum HistoryColumns {
    /// The properties the bits stand for, in bit order.
    static func properties(of entity: EntityDescription) -> [PropertyDescription] {
        entity.properties.filter { !$0.isTransient }.sorted { $0.name < $1.name }
    }

    /// The bitmap of the properties named `names` (unknown names are left out).
    static func encode(_ names: Set<String>, of entity: EntityDescription) -> Data {
        let ordered = properties(of: entity)
        var bytes = [UInt8](repeating: 0, count: (ordered.count + 7) / 8)
        for (bit, property) in ordered.enumerated() where names.contains(property.name) {
            bytes[bit / 8] |= 0x80 >> UInt8(bit % 8)
        }
        return Data(bytes)
    }

    /// The bitmap of the slots in `changes`.
    static func encode(_ changes: ChangedSlots, of entity: EntityDescription) -> Data {
        var names = Set<String>()
        changes.forEach { names.insert(entity.properties[$0].name) }
        return encode(names, of: entity)
    }

    /// The property names the bitmap sets, or nil when a set bit stands for no property of
    /// `entity` (the store was written with another model): unknown rather than a part.
    static func decode(_ data: Data, of entity: EntityDescription) -> Set<String>? {
        let ordered = properties(of: entity)
        var names = Set<String>()
        for (index, byte) in data.enumerated() where byte != 0 {
            for bit in 0..<8 where byte & (0x80 >> UInt8(bit)) != 0 {
                let position = index * 8 + bit
                guard position < ordered.count else { return nil }
                names.insert(ordered[position].name)
            }
        }
        return names
    }
}
