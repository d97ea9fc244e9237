import ArgumentParser
import Foundation
import ObjectGraph

/// `managedrecord schema STORE [--format json]`: entities, attributes with types,
/// relationships, constraints, row counts.
struct SchemaCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "schema", abstract: "Print the model: entities with their row counts, attributes with types, relationships.",
        discussion: """
        --format json prints one JSON document for programs: {"entities": [...]}, each entity with its name, \
        parent, sub-entities, abstract, rows (its own, without sub-entities), attributes (name, type, optional, \
        transient, default as the model file writes it or null, declaredBy), relationships (name, destination, \
        inverse, toMany, ordered, optional, deleteRule, minCount, maxCount, declaredBy) and uniquenessConstraints \
        (lists of key names); keys sorted (docs/cli.md, section 4).

        EXAMPLES:
          managedrecord schema Company.sqlite
          managedrecord schema Company.sqlite --format json
          managedrecord schema postgres://app@dbhost/company
        """)

    enum Format: String, ExpressibleByArgument, CaseIterable {
        case text, json
    }

    @OptionGroup var store: StoreOptions
    @Option(name: .long, help: "text (for people, the default) or json (one JSON document).")
    var format: Format = .text

    func run() throws {
        try reportingErrors {
            let opened = try store.open()
            var rows: [String: Int] = [:]
            for entity in opened.model.entities {
                var request = FetchRequest<ManagedObject>(entityName: entity.name)
                request.includesSubentities = false
                rows[entity.name] = try opened.context.count(for: request)
            }
            switch format {
            case .text: Terminal.write(Self.text(opened.model, rows: rows))
            case .json:
                var writer = JSONWriter(pretty: true, sortsKeys: true)
                try writer.write(Self.json(opened.model, rows: rows))
                Terminal.write(Data(writer.bytes + [UInt8(ascii: "\n")]))
            }
        }
    }

    /// The model as people read it.
    static func text(_ model: ManagedObjectModel, rows counts: [String: Int]) -> String {
        var text = ""
        for entity in model.entities {
            let rows = counts[entity.name] ?? 0
            var notes = ["\(rows) \(rows == 1 ? "row" : "rows")"]
            if let parent = entity.superentity { notes.append("sub-entity of \(parent.name)") }
            if entity.isAbstract { notes.append("abstract") }
            text += "\(entity.name) (\(notes.joined(separator: ", ")))\n"
            for property in entity.properties {
                let inherited = property.entity === entity ? "" : ", from \(property.entity.name)"
                if let attribute = property as? AttributeDescription {
                    var flags = [attribute.attributeType.rawValue]
                    if attribute.isOptional { flags.append("optional") }
                    if attribute.isTransient { flags.append("transient") }
                    text += "  \(attribute.name): \(flags.joined(separator: ", "))\(inherited)\n"
                } else if let relationship = property as? RelationshipDescription {
                    let kind = relationship.isOrdered ? "ordered to-many" : relationship.isToMany ? "to-many" : "to-one"
                    var flags = [kind]
                    if let inverse = relationship.inverseRelationship { flags.append("inverse \(inverse.name)") }
                    flags.append("delete rule \(relationship.deleteRule)")
                    text += "  \(relationship.name) -> \(relationship.destinationEntity.name): \(flags.joined(separator: ", "))\(inherited)\n"
                }
            }
        }
        return text
    }

    /// The model as one JSON-ready dictionary (`schema --format json`).
    static func json(_ model: ManagedObjectModel, rows counts: [String: Int]) -> [String: Any] {
        let entities = model.entities.map { entity -> [String: Any] in
            let attributes = entity.attributes.map { attribute -> [String: Any] in
                ["name": attribute.name, "type": attribute.attributeType.rawValue, "optional": attribute.isOptional,
                 "transient": attribute.isTransient, "default": attribute.fileDetails.defaultValueString ?? NSNull(),
                 "declaredBy": attribute.entity.name]
            }
            let relationships = entity.relationships.map { relationship -> [String: Any] in
                ["name": relationship.name, "destination": relationship.destinationEntity.name,
                 "inverse": relationship.inverseRelationship?.name ?? NSNull(), "toMany": relationship.isToMany,
                 "ordered": relationship.isOrdered, "optional": relationship.isOptional,
                 "deleteRule": relationship.deleteRule.rawValue, "minCount": relationship.fileDetails.minCount,
                 "maxCount": relationship.fileDetails.maxCount ?? NSNull(), "declaredBy": relationship.entity.name]
            }
            return ["name": entity.name, "parent": entity.superentity?.name ?? NSNull(),
                    "subentities": entity.subentities.map(\.name), "abstract": entity.isAbstract,
                    "rows": counts[entity.name] ?? 0, "attributes": attributes, "relationships": relationships,
                    "uniquenessConstraints": entity.fileDetails.uniquenessConstraints]
        }
        return ["entities": entities]
    }
}
