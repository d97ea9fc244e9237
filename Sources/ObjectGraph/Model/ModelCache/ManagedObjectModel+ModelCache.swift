import Foundation

/// The compiled model Apple's Core Data keeps in a store's `Z_MODELCACHE` table (raw DEFLATE
/// of a keyed archive of the `NSManagedObjectModel`), read back as model-file XML: the
/// source model of a migration when no version at hand wrote the store, and what
/// ``ManagedObjectModel/init(storeURL:)`` (and `managedrecord schema`) shows for such a store.
enum ModelCacheArchive {
    struct Failure: Error, CustomStringConvertible {
        let description: String
    }

    /// What a store's `Z_MODELCACHE` holds.
    enum Reading {
        /// No cache: no `Z_MODELCACHE` table, no row in it, or a NULL `Z_CONTENT`.
        case absent
        /// A cache that could not be read, and why (decompression, the archive, the model in it).
        case unreadable(String)
        /// A readable cache of another model than the one whose version hashes the store records.
        case otherVersion
        /// The model that wrote the store, and its model-file XML.
        case model(ManagedObjectModel, xml: String)
    }

    /// The model-file XML of the compiled model in `Z_CONTENT` (compressed).
    static func modelXML(compressed: Data) throws -> String {
        let archive: [UInt8]
        do { archive = try RawInflate.inflate([UInt8](compressed)) } catch { throw Failure(description: "decompressing it (raw DEFLATE) failed: \(error)") }
        let plist: BinaryPropertyList
        do { plist = try BinaryPropertyList(archive) } catch { throw Failure(description: "what it decompresses to is not a binary property list (a keyed archive): \(error)") }
        do { return try KeyedModel(plist).xml() } catch { throw Failure(description: "its keyed archive does not hold a model that can be read here: \(error)") }
    }

    /// What the `Z_MODELCACHE` of the store at `url` holds, checked against the store's
    /// version `hashes`.
    static func read(storeAt url: URL, hashes: [String: Data]) -> Reading {
        let connection: SQLiteConnection
        do { connection = try SQLiteFileAccess.openReadOnly(url).connection } catch { return .unreadable("the store cannot be read: \(error)") }
        defer { connection.close() }
        return read(connection: connection, url: url, hashes: hashes)
    }

    /// What the `Z_MODELCACHE` of the store `connection` reads holds, checked against the
    /// store's version `hashes`.
    static func read(connection: SQLiteConnection, url: URL, hashes: [String: Data]) -> Reading {
        let content: SQLValue
        do {
            guard try connection.tableExists("Z_MODELCACHE"),
                  let value = try connection.scalar("SELECT Z_CONTENT FROM Z_MODELCACHE LIMIT 1"), value != .null else { return .absent }
            content = value
        } catch {
            return .unreadable("the table cannot be read: \(error)")
        }
        guard case .blob(let compressed) = content else { return .unreadable("its Z_CONTENT is not data") }
        let xml: String
        let model: ManagedObjectModel
        do { xml = try modelXML(compressed: compressed) } catch { return .unreadable("\(error)") }
        do { model = try ManagedObjectModel.reading(contentsXML: xml, file: url) } catch { return .unreadable("the model it holds cannot be rebuilt: \(error)") }
        guard model.matchesStoreVersionHashes(hashes) else { return .otherVersion }
        return .model(model, xml: xml)
    }

    /// The model cached in the store `connection` reads (and its XML), when its version
    /// hashes are `hashes`.
    static func model(connection: SQLiteConnection, url: URL, hashes: [String: Data]) -> (model: ManagedObjectModel, xml: String)? {
        guard case .model(let model, let xml) = read(connection: connection, url: url, hashes: hashes) else { return nil }
        return (model, xml)
    }

    /// Walks the archive's objects: `$objects`, `$top.root`, UIDs between them.
    private struct KeyedModel {
        let plist: BinaryPropertyList
        let objects: [Int]

        init(_ plist: BinaryPropertyList) throws {
            self.plist = plist
            let top = plist.dictionary(plist.top)
            guard case .array(let objects)? = top["$objects"] else { throw Failure(description: "the archive has no $objects") }
            self.objects = objects
        }

        /// The archived object a UID names, as a dictionary.
        func object(_ value: BinaryPropertyList.Value?) -> [String: BinaryPropertyList.Value]? {
            guard case .uid(let uid)? = value, uid > 0, uid < objects.count else { return nil }
            let dictionary = plist.dictionary(objects[uid])
            return dictionary.isEmpty ? nil : dictionary
        }

        func string(_ value: BinaryPropertyList.Value?) -> String? {
            guard case .uid(let uid)? = value, uid > 0, uid < objects.count else { return nil }
            switch plist.objects[objects[uid]] {
            case .string(let string): return string
            case .dictionary: if case .string(let string)? = plist.dictionary(objects[uid])["NS.string"] { return string }
            default: break
            }
            return nil
        }

        func integer(_ value: BinaryPropertyList.Value?) -> Int? {
            if case .integer(let number)? = value { return Int(number) }
            if case .bool(let flag)? = value { return flag ? 1 : 0 }
            return nil
        }

        func flag(_ value: BinaryPropertyList.Value?) -> Bool { (integer(value) ?? 0) != 0 }

        /// The members of an archived array, set or known-keys dictionary (its values).
        func members(_ value: BinaryPropertyList.Value?) -> [BinaryPropertyList.Value] {
            guard let container = object(value) else { return [] }
            if let values = container["values"], let inner = object(values) { return members(inner: inner) }
            return members(inner: container)
        }

        private func members(inner: [String: BinaryPropertyList.Value]) -> [BinaryPropertyList.Value] {
            guard case .array(let references)? = inner["NS.objects"] else { return [] }
            return references.map { plist.objects[$0] }
        }

        func xml() throws -> String {
            guard let root = object(rootUID()) else { throw Failure(description: "the archive has no root object") }
            var lines = [#"<?xml version="1.0" encoding="UTF-8" standalone="yes"?>"#,
                         #"<model type="com.apple.IDECoreDataModeler.DataModel" documentVersion="1.0" systemVersion="1" minimumToolsVersion="Automatic" sourceLanguage="Swift" userDefinedModelVersionIdentifier="">"#]
            let entities = members(root["NSEntities"])
            guard !entities.isEmpty else { throw Failure(description: "the archived model has no entities") }
            for entity in entities {
                guard let description = object(entity) else { continue }
                lines.append(contentsOf: try entityXML(description))
            }
            lines.append("</model>")
            return lines.joined(separator: "\n")
        }

        private func rootUID() -> BinaryPropertyList.Value? {
            guard case .dictionary(let keys, let values) = plist.objects[plist.top] else { return nil }
            for (key, value) in zip(keys, values) {
                guard case .string("$top") = plist.objects[key] else { continue }
                return plist.dictionary(value)["root"]
            }
            return nil
        }

        /// The `<entity>` element of the archived entity `entity`, with the properties it
        /// declares.
        private func entityXML(_ entity: [String: BinaryPropertyList.Value]) throws -> [String] {
            guard let name = string(entity["NSEntityName"]) else { throw Failure(description: "an archived entity has no name") }
            var attributes = [("name", name), ("representedClassName", string(entity["NSClassNameForEntity"]) ?? name)]
            if let parent = object(entity["NSSuperentity"]).flatMap({ string($0["NSEntityName"]) }) { attributes.append(("parentEntity", parent)) }
            if flag(entity["NSIsAbstract"]) { attributes.append(("isAbstract", "YES")) }
            if let identifier = string(entity["NSRenamingIdentifier"]), identifier != name { attributes.append(("elementID", identifier)) }
            if let modifier = string(entity["NSVersionHashModifier"]) { attributes.append(("versionHashModifier", modifier)) }
            var lines = ["<entity \(Self.attributes(attributes))>"]
            // The archive lists inherited properties again (as the parent lists them, with them).
            let inherited = Set(object(entity["NSSuperentity"]).map { parent in
                members(parent["NSProperties"]).compactMap { object($0).flatMap { string($0["NSPropertyName"]) } }
            } ?? [])
            var properties = members(entity["NSProperties"]).compactMap { object($0) }.filter { property in
                string(property["NSPropertyName"]).map { !inherited.contains($0) } ?? false
            }
            properties.sort { (string($0["NSPropertyName"]) ?? "") < (string($1["NSPropertyName"]) ?? "") }
            for property in properties {
                guard let propertyName = string(property["NSPropertyName"]) else { continue }
                var attributes = [("name", propertyName)]
                if flag(property["NSIsOptional"]) { attributes.append(("optional", "YES")) }
                if flag(property["NSIsTransient"]) { attributes.append(("transient", "YES")) }
                if let identifier = string(property["NSRenamingIdentifier"]), identifier != propertyName { attributes.append(("elementID", identifier)) }
                if let modifier = string(property["NSVersionHashModifier"]) { attributes.append(("versionHashModifier", modifier)) }
                if let number = integer(property["NSAttributeType"]) {
                    guard let type = AttributeType.allCases.first(where: { $0.coreDataNumber == number }) else {
                        throw Failure(description: "\(name).\(propertyName) has an attribute type (\(number)) that cannot be read here")
                    }
                    attributes.append(("attributeType", type.rawValue))
                    if let transformer = string(property["NSValueTransformerName"]) { attributes.append(("valueTransformerName", transformer)) }
                    // Bit 4 of the flags: "Preserve After Deletion" (persistent history).
                    if (integer(property["NSFlagsKey"]) ?? 0) & 16 != 0 { attributes.append(("preserveAfterDeletion", "YES")) }
                    lines.append("    <attribute \(Self.attributes(attributes))/>")
                } else {
                    let destination = object(property["NSDestinationEntity"]).flatMap { string($0["NSEntityName"]) } ?? string(property["_NSDestinationEntityName"])
                    guard let destination else { throw Failure(description: "\(name).\(propertyName) has no destination entity") }
                    let maxCount = integer(property["NSMaxCount"]) ?? 1
                    let minCount = integer(property["NSMinCount"]) ?? 0
                    if maxCount != 1 {
                        attributes.append(("toMany", "YES"))
                        if maxCount > 1 { attributes.append(("maxCount", String(maxCount))) }
                    }
                    if minCount > 0 { attributes.append(("minCount", String(minCount))) }
                    if flag(property["NSIsOrdered"]) { attributes.append(("ordered", "YES")) }
                    let rules = ["No Action", "Nullify", "Cascade", "Deny"]
                    attributes.append(("deletionRule", rules[min(max(integer(property["NSDeleteRule"]) ?? 1, 0), 3)]))
                    attributes.append(("destinationEntity", destination))
                    let inverse = object(property["NSInverseRelationship"]).flatMap { string($0["NSPropertyName"]) } ?? string(property["_NSInverseRelationshipName"])
                    if let inverse { attributes.append(("inverseName", inverse)); attributes.append(("inverseEntity", destination)) }
                    lines.append("    <relationship \(Self.attributes(attributes))/>")
                }
            }
            let tuples = members(entity["NSUniqueTuples"]).map { tuple -> [String] in
                members(tuple).compactMap { member in
                    if case .uid = member, let property = object(member), let name = string(property["NSPropertyName"]) { return name }
                    return string(member)
                }
            }.filter { !$0.isEmpty }
            if !tuples.isEmpty {
                lines.append("    <uniquenessConstraints>")
                for tuple in tuples {
                    lines.append("        <uniquenessConstraint>")
                    for member in tuple { lines.append("            <constraint\(ModelFileText.attribute("value", member))/>") }
                    lines.append("        </uniquenessConstraint>")
                }
                lines.append("    </uniquenessConstraints>")
            }
            lines.append("</entity>")
            return lines
        }

        private static func attributes(_ pairs: [(String, String)]) -> String {
            String(pairs.map { ModelFileText.attribute($0.0, $0.1) }.joined().dropFirst())
        }
    }
}
