import Foundation

/// The schema changes of one migration step, for ``MigrationForecast``: read off the plan
/// (which old entity and column each new entity and property comes from), with the model
/// that wrote the store when it is known (it names what is removed and the old types).
extension MigrationPlan {
    struct Changes {
        var entitiesAdded: [String] = []
        var entitiesRemoved: [String] = []
        var entitiesRenamed: [MigrationForecast.Rename] = []
        var propertiesAdded: [String] = []
        var propertiesRemoved: [String] = []
        var propertiesRenamed: [MigrationForecast.Rename] = []
        var propertiesConverted: [MigrationForecast.Conversion] = []
    }

    /// The changes from the store to the plan's model; `dropped` (``droppedData()``) names
    /// removed properties when the model that wrote the store is not known.
    func changes(dropped: [MigrationError.DroppedData]) -> Changes {
        var changes = Changes()
        let oldModel = source.recordedLayout?.model
        for entity in layout.model.entities {
            guard let from = sources[entity.index] else {
                changes.entitiesAdded.append(entity.name)
                continue
            }
            if from.modelName != entity.name { changes.entitiesRenamed.append(.init(from: from.modelName, to: entity.name)) }
            let oldEntity = oldModel?.entitiesByName[from.modelName]
            var matched = Set<String>()
            for property in entity.properties where property.entity === entity && !property.isTransient {
                let names = [property.fileDetails.renamingIdentifier, property.name].compactMap { $0 }
                let old = oldEntity.flatMap { old in names.lazy.compactMap { old.property(named: $0) }.first }
                let key = "\(entity.name).\(property.name)"
                let column = property is AttributeDescription || !(property as? RelationshipDescription)!.isToMany
                    ? source.column(of: names, in: from) : nil
                guard old != nil || column != nil else {
                    changes.propertiesAdded.append(key)
                    continue
                }
                if let old { matched.insert(old.name) }
                let oldName = old?.name ?? names.first { source.column(of: [$0], in: from) != nil } ?? property.name
                if oldName != property.name { changes.propertiesRenamed.append(.init(from: "\(from.modelName).\(oldName)", to: key)) }
                guard let attribute = property as? AttributeDescription else { continue }
                if let oldAttribute = old as? AttributeDescription {
                    if oldAttribute.attributeType != attribute.attributeType {
                        changes.propertiesConverted.append(.init(property: key, from: oldAttribute.attributeType.rawValue, to: attribute.attributeType.rawValue))
                    }
                } else if let column, let declared = source.columnType(column, in: source.table(of: from)),
                          MigrationValueConverter.kind(ofColumnType: declared) != MigrationValueConverter.kind(of: attribute.attributeType) {
                    changes.propertiesConverted.append(.init(property: key, from: declared, to: attribute.attributeType.rawValue))
                }
            }
            if let oldEntity {
                for property in oldEntity.properties where property.entity === oldEntity && !property.isTransient && !matched.contains(property.name) {
                    changes.propertiesRemoved.append("\(from.modelName).\(property.name)")
                }
            }
        }
        let kept = Set(sources.compactMap { $0?.number })
        changes.entitiesRemoved = source.entitiesByNumber.values.filter { !kept.contains($0.number) }.map(\.modelName).sorted()
        if oldModel == nil {
            changes.propertiesRemoved = dropped.compactMap { data in data.property.map { "\(data.entity).\($0)" } }
        }
        return changes
    }
}
