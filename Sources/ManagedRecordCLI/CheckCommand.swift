import ArgumentParser
import ObjectGraph

/// `managedrecord check STORE`: integrity, layout and model agreement, migration.
struct CheckCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "check",
        abstract: "Check the file's integrity, its layout against the model, the model's agreement with the store, whether it needs migration, and who may read it.",
        discussion: "Exits 0 when everything is in order, 1 when a problem is found (each is printed).")

    @OptionGroup var store: StoreOptions

    func run() throws {
        var healthy = false
        try reportingErrors {
            let model = try store.loadModel()
            let inspection = try StoreInspection(storeURL: store.storeURL, model: model)
            healthy = inspection.isHealthy
            var lines: [String] = []
            lines.append("integrity: " + (inspection.integrityProblems.isEmpty ? "ok" : inspection.integrityProblems.joined(separator: "; ")))
            var layout = inspection.missingTables.map { "missing table \($0)" } + inspection.missingColumns.map { "missing column \($0)" }
            layout += inspection.entitiesMissingFromStore.map { "entity \($0) not in Z_PRIMARYKEY" }
            lines.append("layout: " + (layout.isEmpty ? "ok" : layout.joined(separator: "; ")))
            let source = store.model.map { "--model \($0)" } ?? "the model kept in the store"
            switch inspection.ownModelAgrees {
            case true?: lines.append("model: \(source); the store's own model agrees with its version hashes")
            case false?: lines.append("model: \(source); the store's own model does NOT agree with its version hashes")
            case nil: lines.append("model: \(source); the store keeps no model of its own (written by Apple's Core Data, or before ManagedRecord kept it)")
            }
            let differing = inspection.entitiesWithOtherVersionHashes
            lines.append("version hashes: " + (differing.isEmpty ? "match" : "differ for \(differing.joined(separator: ", "))"))
            lines.append("migration: " + (inspection.needsMigration ? "needed (opening the store writable with this model migrates it)" : "not needed"))
            lines.append(healthy ? "ok" : "problems found")
            Terminal.write(lines.joined(separator: "\n") + "\n")
            // On standard error: what check prints on standard output stays as scripts know it.
            let exposed = StoreFileExposure.files(ofStoreAt: store.storeURL)
            if !exposed.isEmpty {
                Terminal.warning("other users may read \(exposed.map(\.description).joined(separator: ", ")); chmod 600 them unless the store is shared on purpose (not counted as a problem)")
            }
        }
        if !healthy { throw ExitCode.failure }
    }
}
