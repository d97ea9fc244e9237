import Foundation

/// Collects the steps of a forecast's rehearsal (``StoreMigrator/forecast(url:model:)``): each
/// step's plan when it is made, then what its copy wrote.
///
/// Not thread-safe: used by the one rehearsal, on its thread.
final class ForecastRecorder {
    private(set) var steps: [MigrationForecast.Step] = []
    private var pending: (label: String, isCustom: Bool, plan: MigrationPlan, changes: MigrationPlan.Changes,
                          dropped: [MigrationError.DroppedData], refused: Bool)?

    /// A step is planned: `plan` copies it (its converter now collects the values that do
    /// not convert instead of stopping).
    func begin(label: String, isCustom: Bool, plan: MigrationPlan, dropped: [MigrationError.DroppedData], refused: Bool) {
        plan.converter.collectsFailures = true
        pending = (label.isEmpty ? (isCustom ? "custom stage" : "lightweight") : label, isCustom, plan,
                   plan.changes(dropped: dropped), dropped, refused)
    }

    /// The planned step's copy is complete in `written`, and the step held `held` bytes.
    func finish(written: URL, held: Int64) {
        guard let step = pending else { return }
        pending = nil
        let changes = step.changes
        var rows: [String: Int] = [:]
        for copy in step.plan.copies { rows[copy.entity, default: 0] += copy.rowCount }
        steps.append(MigrationForecast.Step(
            label: step.label, isCustom: step.isCustom,
            entitiesAdded: changes.entitiesAdded, entitiesRemoved: changes.entitiesRemoved, entitiesRenamed: changes.entitiesRenamed,
            propertiesAdded: changes.propertiesAdded, propertiesRemoved: changes.propertiesRemoved,
            propertiesRenamed: changes.propertiesRenamed, propertiesConverted: changes.propertiesConverted,
            rowsTouched: step.plan.totalRows, rowsByEntity: rows, failures: step.plan.converter.collected,
            droppedData: step.dropped, wouldBeRefused: step.refused,
            bytesWritten: StoreMigrator.fileBytes(written), bytesHeld: held))
    }
}

extension StoreMigrator {
    /// What migrating the store at `url` to `model` would do (see ``MigrationForecast``),
    /// rehearsed on a copy in a hidden folder beside the store, under the migration lock;
    /// the store is not changed. A store that needs no migration gives no steps.
    func forecast(url: URL, model: ManagedObjectModel) throws -> MigrationForecast {
        guard FileManager.default.fileExists(atPath: url.path) else {
            throw StoreError(.cannotOpen, url: url, "there is no store here to forecast the migration of; check the path")
        }
        try SQLiteFileAccess.check(url, readOnly: true)
        let lock = try MigrationLock.wait(for: url, timeout: lockTimeout)
        defer { lock?.release() }
        Self.removeCopiesOfKilledMigrations(of: url)
        // Named as a migration's copy: a rehearsal killed midway is removed by the next migration.
        let folder = Self.temporaryCopyURL(of: url)
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: false, attributes: [.posixPermissions: 0o700])
        defer { try? FileManager.default.removeItem(at: folder) }
        let rehearsal = folder.appendingPathComponent(url.lastPathComponent)
        // Reading a WAL store creates its -wal and -shm when they are missing: removed again,
        // so the folder is as it was.
        let companions = ["-wal", "-shm"].filter { !FileManager.default.fileExists(atPath: url.path + $0) }
        defer { for suffix in companions { try? FileManager.default.removeItem(atPath: url.path + suffix) } }
        try snapshot(url, into: rehearsal)
        var migrator = self
        let recorder = ForecastRecorder()
        migrator.recorder = recorder
        migrator.progress = nil
        var stoppedBy: String?
        do {
            _ = try migrator.migrateIfNeeded(url: rehearsal, model: model)
        } catch {
            stoppedBy = String(describing: error).replacingOccurrences(of: rehearsal.path, with: url.path)
        }
        return MigrationForecast(steps: recorder.steps, storeBytes: Self.fileBytes(url), stoppedBy: stoppedBy)
    }

    /// The size of a store file with its `-wal` (0 for a file that does not exist).
    static func fileBytes(_ url: URL) -> Int64 {
        ["", "-wal"].reduce(0) { total, suffix in
            total + ((try? FileManager.default.attributesOfItem(atPath: url.path + suffix)[.size] as? Int).map(Int64.init) ?? 0)
        }
    }
}
