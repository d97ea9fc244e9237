import Foundation

// Refusing, before anything is written, an existing store that is not this model's: a store
// of another model (which a migration would otherwise fill with this model's tables), and
// tables that Core Data did not write or that lack columns the store's own metadata promises.
extension SQLiteStore {
    /// Throws ``StoreError`` `.incompatibleModel` when the store at `url`, whose
    /// `Z_PRIMARYKEY` names `storedEntities`, was written for another model, or when one of
    /// `layout`'s tables exists without Core Data's columns, or (when the version hashes say
    /// the store fits the model as it is) without one of the model's columns.
    static func refuseForeignLayout(writer: SQLiteConnection, model: ManagedObjectModel, storedEntities: Set<String>,
                                    hashesMatch: Bool, layout: StoreLayout, url: URL?) throws {
        try refuseAnotherModel(storedEntities: storedEntities, model: model, url: url)
        for table in layout.tables {
            let existing = try writer.columns(of: table.name)
            guard !existing.isEmpty else { continue }
            let missingCore = ["Z_PK", "Z_ENT", "Z_OPT"].filter { !existing.contains($0) }
            if !missingCore.isEmpty {
                throw StoreError(.incompatibleModel, url: url, "the table \(table.name) has columns \(existing.sorted().joined(separator: ", ")) but no \(missingCore.joined(separator: ", ")): Core Data did not write it, so this model cannot use it; open the file with the program that wrote that table, or choose another store file. Nothing was changed")
            }
            let missing = table.columns.map(\.name).filter { !existing.contains($0.uppercased()) }
            if hashesMatch && !missing.isEmpty {
                throw StoreError(.incompatibleModel, url: url, "the table \(table.name) lacks \(missing.joined(separator: ", ")), which the store's metadata says it has: the file was changed by another program; restore it from a backup. Nothing was changed")
            }
        }
    }

    /// Throws ``StoreError`` `.incompatibleModel` when a store whose entities are
    /// `storedEntities` shares none of them with `model` (by name or by an entity's renaming
    /// identifier): it was written for another model, and neither opening nor migrating it
    /// (which would drop every table it has) is what anyone asked for.
    static func refuseAnotherModel(storedEntities: Set<String>, model: ManagedObjectModel, url: URL?) throws {
        let modelEntities = Set(model.entities.map(\.name))
        let knownNames = modelEntities.union(model.entities.compactMap(\.fileDetails.renamingIdentifier))
        if !storedEntities.isEmpty && storedEntities.isDisjoint(with: knownNames) {
            throw StoreError(.incompatibleModel, url: url, "the store was written for another model (its entities: \(storedEntities.sorted().joined(separator: ", "))), and this model (\(modelEntities.sorted().joined(separator: ", "))) has none of them; open it with the model it was written with, or choose another store file. Nothing was changed")
        }
    }
}
