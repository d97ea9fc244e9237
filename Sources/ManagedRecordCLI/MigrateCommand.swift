import ArgumentParser
import Foundation
import ObjectGraph
import ObjectGraphPostgres

/// `managedrecord migrate STORE --model NEW [--dry-run]`: forecasts, or runs, the lightweight
/// migration of a store to a model (docs/migration.md, "Forecast").
struct MigrateCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "migrate",
        abstract: "Migrate a store to a model, or with --dry-run print what the migration would do and change nothing.",
        discussion: """
        The forecast lists, per step, the entities and properties added, removed, renamed and converted, the rows \
        copied, every stored value that would not convert (with its Z_PK), the data dropped, and the free space \
        the migration needs in the store's folder. It rehearses the migration on a copy beside the store, which \
        it removes; the store is not changed. Exits 1 when the migration would not succeed. \
        Without --dry-run the store is migrated (all or nothing), with progress on a terminal.

        EXAMPLES:
          managedrecord migrate Contacts.sqlite --model V2.xcdatamodeld --dry-run
          managedrecord migrate Contacts.sqlite --model V2.xcdatamodeld
          managedrecord migrate postgres://app@dbhost/contacts --model V2.xcdatamodeld
        """)

    @OptionGroup var storeOptions: StoreOptions

    @Flag(name: .long, help: "Print the forecast and change nothing.")
    var dryRun = false

    @Flag(name: .long, help: "Let the migration drop entities and properties the model has no place for (with their values).")
    var allowDroppingData = false

    func run() throws {
        try reportingErrors {
            guard let path = storeOptions.model else {
                throw CLIError("migrate needs the model to migrate to: --model NEW.xcdatamodeld (or an .xcdatamodel or contents file)")
            }
            let server = try storeOptions.server()
            if let server, dryRun {
                throw CLIError("migrate --dry-run is SQLite-only: the forecast rehearses the migration on a copy of the store file, and a PostgreSQL store has none. Nothing was changed. On PostgreSQL the migration itself runs in one transaction per stage and changes nothing when it fails: run `managedrecord migrate \(server.display) --model \(path)` (back the database up first with pg_dump)")
            }
            let model = try ManagedObjectModel(contentsOf: URL(fileURLWithPath: path))
            let location: PersistentContainer.Location
            let name: String
            if let server {
                guard !ServerStore.fits(model, try server.metadata()) else {
                    Terminal.write("\(server.display) already fits the model: nothing to migrate\n")
                    return
                }
                location = .postgres(server.url)
                name = server.database
            } else {
                try storeOptions.requireStoreFile()
                let url = storeOptions.storeURL
                if dryRun {
                    let forecast = try PersistentStoreCoordinator.migrationForecast(model: model, storeURL: url, allowsDroppingData: allowDroppingData)
                    Terminal.write(MigrationForecastText(forecast).text)
                    if !forecast.wouldSucceed { throw ExitCode.failure }
                    return
                }
                guard try PersistentStoreCoordinator.requiresMigration(model: model, storeURL: url) else {
                    Terminal.write("\(storeOptions.store) already fits the model: nothing to migrate\n")
                    return
                }
                location = .file(url)
                name = url.deletingPathExtension().lastPathComponent
            }
            let steps = Locked(0)
            let container = try PersistentContainer(
                name: name, model: model, location: location,
                options: allowDroppingData ? [.allowsDroppingData] : [], migrationProgress: { progress in
                    guard let entity = progress.entity else {
                        steps.withLock { $0 += 1 }
                        return
                    }
                    Terminal.progress("migrating: \(progress.completedRows) of \(progress.totalRows) rows (\(Int(progress.fractionCompleted * 100))%), \(entity)")
                })
            container.persistentStoreCoordinator.close()
            Terminal.clearProgress()
            Terminal.write("migrated \(storeOptions.display) in \(steps.withLock { $0 }) step(s)\n")
        }
    }
}

/// The forecast as the `migrate --dry-run` command prints it.
struct MigrationForecastText {
    let forecast: MigrationForecast

    init(_ forecast: MigrationForecast) {
        self.forecast = forecast
    }

    var text: String {
        guard forecast.needsMigration else { return "the store already fits the model: nothing to migrate\n" }
        var lines: [String] = []
        for (index, step) in forecast.steps.enumerated() {
            lines.append("step \(index + 1): \(step.label)\(step.isCustom ? " (custom)" : "")")
            func list(_ title: String, _ items: [String]) {
                if !items.isEmpty { lines.append("  \(title): \(items.joined(separator: ", "))") }
            }
            list("entities added", step.entitiesAdded)
            list("entities removed", step.entitiesRemoved)
            list("entities renamed", step.entitiesRenamed.map(\.description))
            list("properties added", step.propertiesAdded)
            list("properties removed", step.propertiesRemoved)
            list("properties renamed", step.propertiesRenamed.map(\.description))
            list("properties converted", step.propertiesConverted.map(\.description))
            let byEntity = step.rowsByEntity.sorted { $0.key < $1.key }.map { "\($0.key) \($0.value)" }.joined(separator: ", ")
            lines.append("  rows touched: \(step.rowsTouched)\(byEntity.isEmpty ? "" : " (\(byEntity))")")
            if !step.droppedData.isEmpty {
                lines.append("  data dropped: \(step.droppedData.map(\.description).joined(separator: "; "))\(step.wouldBeRefused ? " — REFUSED: the model has no place for it; open with --allow-dropping-data if that is meant" : "")")
            }
            if !step.failures.isEmpty {
                lines.append("  values that would not convert: \(step.failures.count)")
                for failure in step.failures.prefix(20) { lines.append("    \(failure)") }
                if step.failures.count > 20 { lines.append("    ... and \(step.failures.count - 20) more") }
            }
        }
        if let stopped = forecast.stoppedBy { lines.append("stops: \(stopped)") }
        lines.append("space needed: \(Self.bytes(forecast.bytesNeeded)) free in the store's folder (the store is \(Self.bytes(forecast.storeBytes)))")
        lines.append(forecast.wouldSucceed ? "the migration would succeed" : "the migration would FAIL: fix the values or the model above first")
        return lines.joined(separator: "\n") + "\n"
    }

    private static func bytes(_ count: Int64) -> String {
        ByteCountFormatter.string(fromByteCount: count, countStyle: .file) + " (\(count) bytes)"
    }
}
