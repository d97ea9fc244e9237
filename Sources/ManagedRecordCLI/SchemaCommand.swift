import ArgumentParser
import ObjectGraph

/// `managedrecord schema STORE`: entities, attributes with types, relationships, row counts.
struct SchemaCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "schema", abstract: "Print the model: entities with their row counts, attributes with types, relationships.")

    @OptionGroup var store: StoreOptions

    func run() throws {
        try reportingErrors {
            let opened = try store.open()
            var text = ""
            for entity in opened.model.entities {
                var request = FetchRequest<ManagedObject>(entityName: entity.name)
                request.includesSubentities = false
                let rows = try opened.context.count(for: request)
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
            Terminal.write(text)
        }
    }
}
