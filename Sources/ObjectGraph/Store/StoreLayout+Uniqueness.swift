extension StoreLayout {
    /// Core Data's unique index per uniqueness constraint
    /// (`Z_Car_UNIQUE_numberPlate ON ZCAR (ZNUMBERPLATE COLLATE BINARY ASC)`): it makes the
    /// save's constraint check an index lookup, and a store created here matches Apple's.
    func uniqueIndexStatements() -> [String] {
        model.entitiesWithUniquenessConstraints.flatMap { entity in
            let mapping = mappings[entity.index]
            return entity.fileDetails.uniquenessConstraints.compactMap { constraint -> String? in
                let columns = constraint.compactMap { entity.propertiesByName[$0].flatMap { mapping.columnBySlot[$0.slot] } }
                guard columns.count == constraint.count, !columns.isEmpty else { return nil }
                let name = "Z_\(entity.name)_UNIQUE_\(constraint.joined(separator: "_"))"
                return "CREATE UNIQUE INDEX IF NOT EXISTS \(name) ON \(mapping.table.name) (\(columns.map { "\($0) COLLATE BINARY ASC" }.joined(separator: ", ")))"
            }
        }
    }
}
