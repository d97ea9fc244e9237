import Crypto
import Foundation

/// Entity version hashes computed the way Apple's Core Data computes
/// `NSEntityDescription.versionHash` (the bytes stored in `NSStoreModelVersionHashes`), so
/// a store written here opens on an Apple device without migration and a store written
/// there is recognised here as written by the same model.
///
/// Each hash is a SHA-256 over, in order:
/// - entity: its name (UTF-8), `isAbstract` (1 byte), the superentity's hash (32 bytes, when
///   it has one), the hash of every non-transient property, inherited ones included, by
///   name, then its version hash modifier and its uniqueness constraints (each constraint's
///   names joined by `.`, the constraints sorted);
/// - property: its name, a 16-bit little-endian flag word (1 optional, 2 transient,
///   4 read-only, i.e. derived), then its version hash modifier;
/// - attribute: the property hash, the attribute type's Core Data number (32-bit LE:
///   Integer 16 = 100 ... Transformable = 1800), a 1 byte for "allows external storage" and
///   another for "preserve after deletion" when set, and a derived attribute's expression;
/// - relationship: the property hash, the destination entity's name, the inverse's name
///   (when it has one other than itself), the max and min counts (32-bit LE), and a 16-bit 1
///   when ordered.
///
/// Measured against the hashes Apple stored in the fixture stores (Tests/Fixtures): every
/// entity matches (see docs/store-format.md).
enum CoreDataVersionHash {
    static func of(_ entity: EntityDescription) -> Data {
        var hasher = SHA256()
        hasher.update(data: Data(entity.name.utf8))
        hasher.update(data: [entity.isAbstract ? 1 : 0])
        if let parent = entity.superentity { hasher.update(data: parent.versionHash) }
        for property in entity.properties.sorted(by: { $0.name < $1.name }) where !property.isTransient {
            if let attribute = property as? AttributeDescription {
                hasher.update(data: of(attribute))
            } else if let relationship = property as? RelationshipDescription {
                hasher.update(data: of(relationship))
            }
        }
        let details = entity.fileDetails
        if let modifier = details.versionHashModifier { hasher.update(data: Data(modifier.utf8)) }
        for constraint in details.uniquenessConstraints.map({ $0.joined(separator: ".") }).sorted() where !constraint.isEmpty {
            hasher.update(data: Data(constraint.utf8))
        }
        return Data(hasher.finalize())
    }

    private static func propertyHash(_ property: PropertyDescription, readOnly: Bool) -> Data {
        var hasher = SHA256()
        hasher.update(data: Data(property.name.utf8))
        let flags = UInt16(property.isOptional ? 1 : 0) | (property.isTransient ? 2 : 0) | (readOnly ? 4 : 0)
        hasher.update(data: littleEndian(flags))
        if let modifier = property.fileDetails.versionHashModifier { hasher.update(data: Data(modifier.utf8)) }
        return Data(hasher.finalize())
    }

    private static func of(_ attribute: AttributeDescription) -> Data {
        let details = attribute.fileDetails
        var hasher = SHA256()
        hasher.update(data: propertyHash(attribute, readOnly: details.derivationExpression != nil))
        hasher.update(data: littleEndian(UInt32(attribute.attributeType.coreDataNumber)))
        if details.allowsExternalBinaryDataStorage { hasher.update(data: [1]) }
        if details.preservesValueInHistoryOnDeletion { hasher.update(data: [1]) }
        // Core Data hashes the expression's predicateFormat; the file's text is the same for
        // the simple expressions Xcode writes (not verified against a store: no fixture has one).
        if let expression = details.derivationExpression, !expression.isEmpty { hasher.update(data: Data(expression.utf8)) }
        return Data(hasher.finalize())
    }

    private static func of(_ relationship: RelationshipDescription) -> Data {
        var hasher = SHA256()
        hasher.update(data: propertyHash(relationship, readOnly: false))
        hasher.update(data: Data(relationship.destinationEntity.name.utf8))
        if let inverse = relationship.inverseRelationship, inverse !== relationship {
            hasher.update(data: Data(inverse.name.utf8))
        }
        let details = relationship.fileDetails
        let maxCount = details.maxCount ?? (relationship.isToMany ? 0 : 1)
        hasher.update(data: littleEndian(UInt32(truncatingIfNeeded: maxCount)))
        hasher.update(data: littleEndian(UInt32(truncatingIfNeeded: details.minCount)))
        if relationship.isOrdered { hasher.update(data: littleEndian(UInt16(1))) }
        return Data(hasher.finalize())
    }

    private static func littleEndian<T: FixedWidthInteger>(_ value: T) -> Data {
        withUnsafeBytes(of: value.littleEndian) { Data($0) }
    }
}

extension AttributeType {
    /// Core Data's `NSAttributeType` raw value.
    var coreDataNumber: Int {
        switch self {
        case .integer16: return 100
        case .integer32: return 200
        case .integer64: return 300
        case .decimal: return 400
        case .double: return 500
        case .float: return 600
        case .string: return 700
        case .boolean: return 800
        case .date: return 900
        case .binary: return 1000
        case .uuid: return 1100
        case .uri: return 1200
        case .transformable: return 1800
        }
    }
}
