import Foundation

extension ManagedObjectModel {
    /// The model as an Xcode model `contents` file: the XML that
    /// ``init(contentsOf:classes:)`` reads back into a model with the same entities,
    /// properties, version hashes and layout (classes aside: each entity is read back as a
    /// plain ``ManagedObject``).
    ///
    /// Stores written here keep this text in their metadata (see ``init(storeURL:)``), as
    /// Core Data keeps a compiled model in `Z_MODELCACHE`. Default values are written for
    /// attributes whose default is a constant number, string or Boolean; defaults computed
    /// per object (`UUID()`, `Date()`) are not: they are code, not data.
    ///
    /// Touches no store; O(properties).
    public var contentsXML: String {
        var lines = [#"<?xml version="1.0" encoding="UTF-8" standalone="yes"?>"#]
        let identifier = versionIdentifiers.first(where: { !$0.isEmpty })
        lines.append("<model type=\"com.apple.IDECoreDataModeler.DataModel\" documentVersion=\"1.0\"\(Self.xmlAttribute("userDefinedModelVersionIdentifier", identifier))>")
        for entity in entities { lines += Self.xmlLines(of: entity) }
        lines.append("</model>")
        return lines.joined(separator: "\n") + "\n"
    }

    /// The model that the model-file XML `xml` (``contentsXML``, or a store's model cache)
    /// describes, its entities without classes; errors name `file`.
    static func reading(contentsXML xml: String, file: URL) throws -> ManagedObjectModel {
        let parsed = try specifications(contentsXML: xml, file: file)
        return try ManagedObjectModel(specifications: parsed.entities, versionIdentifiers: parsed.identifier.map { [$0] } ?? [])
    }

    /// The entity specifications (and version identifier) of the model-file XML `xml` a
    /// store keeps: its names are the ones the model builder accepted, not only the plain
    /// identifiers a model file may use.
    static func specifications(contentsXML xml: String, file: URL) throws -> (entities: [EntitySpecification], identifier: String?) {
        try ModelFileReader(file: file, requiresPlainIdentifiers: false).specifications(of: ModelFileElement.parse(Data(xml.utf8), file: file))
    }

    private static func xmlLines(of entity: EntityDescription) -> [String] {
        let details = entity.fileDetails
        let className = details.className ?? (entity.managedClass == ManagedObject.self ? nil : String(describing: entity.managedClass))
        var lines = ["    <entity" + xmlAttribute("name", entity.name) + xmlAttribute("representedClassName", className)
                     + xmlAttribute("parentEntity", entity.superentity?.name) + xmlFlag("isAbstract", entity.isAbstract)
                     + xmlAttribute("elementID", details.renamingIdentifier)
                     + xmlAttribute("versionHashModifier", details.versionHashModifier) + ">"]
        for property in entity.properties where property.entity === entity {
            if let attribute = property as? AttributeDescription {
                lines += xmlLines(of: attribute)
            } else if let relationship = property as? RelationshipDescription {
                lines += xmlLines(of: relationship)
            }
        }
        // Constraints an entity inherits are written by its parent (the reader inherits them).
        let inherited = entity.superentity?.fileDetails.uniquenessConstraints ?? []
        let own = details.uniquenessConstraints.filter { !inherited.contains($0) }
        if !own.isEmpty {
            lines.append("        <uniquenessConstraints>")
            for constraint in own {
                lines.append("            <uniquenessConstraint>")
                for name in constraint { lines.append("                <constraint" + xmlAttribute("value", name) + "/>") }
                lines.append("            </uniquenessConstraint>")
            }
            lines.append("        </uniquenessConstraints>")
        }
        for index in details.fetchIndexes {
            lines.append("        <fetchIndex" + xmlAttribute("name", index.name) + ">")
            for element in index.elements {
                lines.append("            <fetchIndexElement" + xmlAttribute("property", element.property) + " type=\"Binary\""
                             + xmlAttribute("order", element.ascending ? "ascending" : "descending") + "/>")
            }
            lines.append("        </fetchIndex>")
        }
        lines += xmlUserInfo(details.userInfo, indent: "        ")
        lines.append("    </entity>")
        return lines
    }

    private static func xmlLines(of attribute: AttributeDescription) -> [String] {
        let details = attribute.fileDetails
        var text = "        <attribute" + xmlAttribute("name", attribute.name) + xmlFlag("optional", attribute.isOptional)
            + xmlFlag("transient", attribute.isTransient) + xmlAttribute("attributeType", attribute.attributeType.rawValue)
        text += xmlAttribute("defaultValueString", details.defaultValueString ?? constantDefault(of: attribute))
        text += xmlAttribute("valueTransformerName", details.valueTransformerName) + xmlAttribute("customClassName", details.customClassName)
        text += xmlFlag("allowsExternalBinaryDataStorage", details.allowsExternalBinaryDataStorage)
        text += xmlFlag("preserveAfterDeletion", details.preservesValueInHistoryOnDeletion)
        if let expression = details.derivationExpression { text += " derived=\"YES\"" + xmlAttribute("derivationExpression", expression) }
        text += xmlValidationRules(attribute)
        text += xmlCommon(details)
        let info = xmlUserInfo(details.userInfo, indent: "            ")
        return info.isEmpty ? [text + "/>"] : [text + ">"] + info + ["        </attribute>"]
    }

    private static func xmlLines(of relationship: RelationshipDescription) -> [String] {
        let details = relationship.fileDetails
        let rule: String
        switch relationship.deleteRule {
        case .nullify: rule = "Nullify"
        case .cascade: rule = "Cascade"
        case .deny: rule = "Deny"
        case .noAction: rule = "No Action"
        }
        var text = "        <relationship" + xmlAttribute("name", relationship.name) + xmlFlag("optional", relationship.isOptional)
            + xmlFlag("toMany", relationship.isToMany) + xmlFlag("ordered", relationship.isOrdered)
        text += xmlAttribute("minCount", details.minCount == 0 ? nil : String(details.minCount))
        text += xmlAttribute("maxCount", details.maxCount.map(String.init) ?? (relationship.isToMany ? nil : "1"))
        text += xmlAttribute("deletionRule", rule) + xmlAttribute("destinationEntity", relationship.destinationEntity.name)
        text += xmlAttribute("inverseName", relationship.inverseRelationship?.name)
        text += xmlAttribute("inverseEntity", relationship.inverseRelationship?.entity.name) + xmlCommon(details)
        let info = xmlUserInfo(details.userInfo, indent: "            ")
        return info.isEmpty ? [text + "/>"] : [text + ">"] + info + ["        </relationship>"]
    }

    /// A constant default (a number, string or Boolean) as Xcode spells it; nil for a
    /// default computed per object or of another type.
    private static func constantDefault(of attribute: AttributeDescription) -> String? {
        guard let make = attribute.defaultValue else { return nil }
        let (first, second) = (make(), make())
        guard first == second else { return nil }   // computed per object (UUID(), Date())
        switch (attribute.attributeType, first) {
        case (.integer16, .int(let v)), (.integer32, .int(let v)), (.integer64, .int(let v)): return String(v)
        case (.boolean, .int(let v)): return v == 0 ? "NO" : "YES"
        case (.double, .double(let v)), (.float, .double(let v)): return "\(v)"
        case (.string, .text(let v)): return v
        default: return nil
        }
    }

    /// The attribute's validation rules as Xcode writes them (a date's bounds as seconds since
    /// 2001 in `min/maxDateTimeInterval`, any other in `min/maxValueString`).
    private static func xmlValidationRules(_ attribute: AttributeDescription) -> String {
        let rules = attribute.validationRules
        let (min, max) = attribute.attributeType == .date ? ("minDateTimeInterval", "maxDateTimeInterval") : ("minValueString", "maxValueString")
        return xmlAttribute(min, rules.minimum?.fileText) + xmlAttribute(max, rules.maximum?.fileText)
            + xmlAttribute("regularExpressionString", rules.pattern)
    }

    private static func xmlCommon(_ details: PropertyFileDetails) -> String {
        xmlAttribute("elementID", details.renamingIdentifier) + xmlAttribute("versionHashModifier", details.versionHashModifier)
            + xmlFlag("indexed", details.isIndexed)
    }

    private static func xmlUserInfo(_ info: [String: String], indent: String) -> [String] {
        guard !info.isEmpty else { return [] }
        return ["\(indent)<userInfo>"] + info.keys.sorted().map { "\(indent)    <entry" + xmlAttribute("key", $0) + xmlAttribute("value", info[$0]) + "/>" }
            + ["\(indent)</userInfo>"]
    }

    private static func xmlFlag(_ name: String, _ value: Bool) -> String {
        value ? " \(name)=\"YES\"" : ""
    }

    private static func xmlAttribute(_ name: String, _ value: String?) -> String {
        ModelFileText.attribute(name, value)
    }
}
