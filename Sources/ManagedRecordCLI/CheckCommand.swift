import ArgumentParser
import ObjectGraph

/// `managedrecord check STORE`: integrity, layout and model agreement, migration.
struct CheckCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "check",
        abstract: "Check the file's integrity, its layout against the model, the model's agreement with the store, whether it needs migration, and who may read it.",
        discussion: """
        Exits 0 when everything is in order, 1 when a problem is found (each is printed).

        On a PostgreSQL store the model, version hashes, migration and layout (the store opens with the model: its \
        tables and columns fit it) are checked; the integrity of the database and who may read it are the server's \
        (amcheck, pg_dump, GRANTs), and are printed as not checked.

        EXAMPLES:
          managedrecord check Company.sqlite
          managedrecord check Contacts.sqlite --model Contacts.xcdatamodeld
          managedrecord check postgres://app@dbhost/company
        """)

    @OptionGroup var store: StoreOptions

    func run() throws {
        var healthy = false
        try reportingErrors {
            let lines: [String]
            if let server = try store.server() {
                (lines, healthy) = try serverCheck(server)
            } else {
                (lines, healthy) = try fileCheck()
            }
            Terminal.write(lines.joined(separator: "\n") + "\n")
            guard !store.namesAServer else { return }
            // On standard error: what check prints on standard output stays as scripts know it.
            let exposed = StoreFileExposure.files(ofStoreAt: store.storeURL)
            if !exposed.isEmpty {
                Terminal.warning("other users may read \(exposed.map(\.description).joined(separator: ", ")); chmod 600 them unless the store is shared on purpose (not counted as a problem)")
            }
        }
        if !healthy { throw ExitCode.failure }
    }

    private var modelSource: String { store.model.map { "--model \($0)" } ?? "the model kept in the store" }

    private func fileCheck() throws -> ([String], Bool) {
        let model = try store.loadModel()
        let inspection = try StoreInspection(storeURL: store.storeURL, model: model)
        var lines: [String] = []
        lines.append("integrity: " + (inspection.integrityProblems.isEmpty ? "ok" : inspection.integrityProblems.joined(separator: "; ")))
        var layout = inspection.missingTables.map { "missing table \($0)" } + inspection.missingColumns.map { "missing column \($0)" }
        layout += inspection.entitiesMissingFromStore.map { "entity \($0) not in Z_PRIMARYKEY" }
        lines.append("layout: " + (layout.isEmpty ? "ok" : layout.joined(separator: "; ")))
        lines.append(ownModelLine(inspection.ownModelAgrees))
        let differing = inspection.entitiesWithOtherVersionHashes
        lines.append("version hashes: " + (differing.isEmpty ? "match" : "differ for \(differing.joined(separator: ", "))"))
        lines.append("migration: " + (inspection.needsMigration ? "needed (opening the store writable with this model migrates it)" : "not needed"))
        lines.append(inspection.isHealthy ? "ok" : "problems found")
        return (lines, inspection.isHealthy)
    }

    /// What applies to a server store: its model, version hashes, migration, and whether it
    /// opens with the model (its tables and columns fit).
    private func serverCheck(_ server: ServerStore) throws -> ([String], Bool) {
        let metadata = try server.metadata()
        let model = try store.givenModel() ?? server.model(metadata)
        let fits = ServerStore.fits(model, metadata)
        var problems = false
        var lines = ["integrity: not checked (a PostgreSQL database's integrity is the server's: amcheck, pg_dump)"]
        if fits {
            do {
                let container = try PersistentContainer(name: server.database, model: model, location: .postgres(server.url), options: [.readOnly])
                container.persistentStoreCoordinator.close()
                lines.append("layout: ok")
            } catch let error as StoreError {
                problems = true
                lines.append("layout: \(error.message)")
            }
        } else {
            lines.append("layout: not checked (the store needs migrating to this model first)")
        }
        var ownAgrees: Bool?
        if let own = try? server.model(metadata), metadata.modelContentsXML != nil {
            ownAgrees = metadata.versionHashes.isEmpty || own.entityVersionHashesByName == metadata.versionHashes
        }
        if ownAgrees == false { problems = true }
        lines.append(ownModelLine(ownAgrees))
        let names = Set(metadata.versionHashes.keys).union(model.entityVersionHashesByName.keys)
        let differing = names.filter { metadata.versionHashes[$0] != model.entityVersionHashesByName[$0] }.sorted()
        lines.append("version hashes: " + (metadata.versionHashes.isEmpty ? "none recorded" : differing.isEmpty ? "match" : "differ for \(differing.joined(separator: ", "))"))
        lines.append("migration: " + (fits ? "not needed" : "needed (`managedrecord migrate \(store.display) --model ...` migrates it)"))
        lines.append("file permissions: not checked (access to a PostgreSQL database is the server's: its roles and GRANTs)")
        let healthy = !problems && fits
        lines.append(healthy ? "ok" : "problems found")
        return (lines, healthy)
    }

    private func ownModelLine(_ agrees: Bool?) -> String {
        switch agrees {
        case true?: return "model: \(modelSource); the store's own model agrees with its version hashes"
        case false?: return "model: \(modelSource); the store's own model does NOT agree with its version hashes"
        case nil: return "model: \(modelSource); the store keeps no model of its own (written by Apple's Core Data, or before ManagedRecord kept it)"
        }
    }
}
