import Foundation

/// Custom stages of a staged migration (``MigrationStage/custom(from:to:label:willMigrate:didMigrate:)``),
/// all or nothing like a lightweight migration: every write goes to copies in the store's
/// folder, and the store is replaced once, in one atomic rename, when the stage is complete.
///
/// 1. The store (at the stage's source version) is copied (`VACUUM INTO`) to a first copy;
///    `willMigrate` runs on a context on that copy, and its changes are saved there.
/// 2. The first copy is migrated to the destination version into a second copy, as a
///    lightweight migration infers it (the stage declares the change, so nothing is refused
///    as dropped data).
/// 3. `didMigrate` runs with a context on the second copy and a read-only one on the first.
/// 4. The second copy replaces the store; the first is removed.
///
/// A failure (a handler's error included) removes both copies and leaves the store as it
/// was; a crash leaves copies that the next migration removes (their names start with
/// ``StoreMigrator/temporaryCopyURL(of:)``'s prefix).
extension StoreMigrator {
    func runCustomStage(_ stage: MigrationStage, url: URL) throws {
        let before = Self.temporaryCopyURL(of: url)
        var copies = [before]
        do {
            try snapshot(url, into: before)
            try Self.leaveWriteAheadLogging(before, reportingAs: url)
            if let willMigrate = stage.willMigrate {
                try withStageContext(on: before, model: stage.sourceModel, readOnly: false) { try willMigrate($0) }
                try Self.leaveWriteAheadLogging(before, reportingAs: url)
            }
            let after: URL
            if stage.sourceModel.versionHash == stage.destinationModel.versionHash {
                after = Self.temporaryCopyURL(of: url)
                copies.append(after)
                try snapshot(before, into: after)
            } else {
                let plan: MigrationPlan
                do {
                    plan = try planStep(from: before, to: stage.destinationModel, reportingAs: url, writtenWith: stage.sourceModel,
                                        label: stage.label, isCustom: true)
                } catch let error as SQLiteError {
                    throw MigrationError(.writeFailed, url: url, "the store cannot be read to plan its migration", underlying: error)
                }
                after = try writeMigratedCopy(of: before, steps: [stage.destinationModel], firstPlan: plan, refusingDrops: false, reportingAs: url).file
                copies.append(after)
            }
            if let didMigrate = stage.didMigrate {
                try withStageContext(on: before, model: stage.sourceModel, readOnly: true) { source in
                    try withStageContext(on: after, model: stage.destinationModel, readOnly: false) { try didMigrate($0, source) }
                }
                // Its -wal would not follow the file when it is renamed.
                try Self.leaveWriteAheadLogging(after, reportingAs: url)
            }
            let rows = Self.rowCount(after)
            copies.removeLast()
            try replaceStore(url, with: after, totalRows: rows)
            Self.removeCopy(before)
            Self.removeCopy(after)   // a -shm left beside the renamed file
        } catch {
            for copy in copies { Self.removeCopy(copy) }
            throw error
        }
    }

    /// Runs `body` with a context on the store file `file` (a copy of this migration, at
    /// `model`'s version), saves what it changed, and closes the store.
    private func withStageContext(on file: URL, model: ManagedObjectModel, readOnly: Bool, _ body: (ManagedObjectContext) throws -> Void) throws {
        let store = try SQLiteStore(model: model, url: file, migrate: false, readOnly: readOnly, fileMode: fileMode)
        let coordinator = PersistentStoreCoordinator(model: model, store: store)
        defer { coordinator.close() }
        let context = ManagedObjectContext(coordinator: coordinator, concurrencyType: .confined, name: "migration stage")
        try body(context)
        if !readOnly && context.hasChanges { try context.save() }
    }

    /// Writes a consistent copy of the store file `source` into the new file `copy`.
    func snapshot(_ source: URL, into copy: URL) throws {
        fileMode.createEmptyFile(copy.path)
        do {
            let reader = try SQLiteFileAccess.openReadOnly(source).connection
            defer { reader.close() }
            try reader.run("VACUUM INTO ?", [.text(copy.path)])
        } catch let error as SQLiteError {
            throw Self.writeError(error, url: source)
        }
    }

    /// Puts a copy that a stage's store switched to write-ahead logging back into rollback
    /// mode (its `-wal` moved in and removed), so it can be read through a read-only connection.
    private static func leaveWriteAheadLogging(_ copy: URL, reportingAs url: URL) throws {
        do {
            let connection = try SQLiteConnection(path: copy.path, create: false)
            defer { connection.close() }
            try connection.execute("PRAGMA journal_mode = DELETE")
        } catch let error as SQLiteError {
            throw writeError(error, url: url)
        }
    }

    /// The rows of every entity in a store file (for the final progress report).
    private static func rowCount(_ file: URL) -> Int {
        guard let reader = try? SQLiteConnection(path: file.path, readOnly: true, create: false) else { return 0 }
        defer { reader.close() }
        var tables: [String] = []
        try? reader.query("SELECT name FROM sqlite_master WHERE type = 'table' AND name LIKE 'Z%' AND name NOT LIKE 'Z\\_%' ESCAPE '\\'") { tables.append($0.text(0)) }
        var total = 0
        for table in tables {
            if case .integer(let count)? = try? reader.scalar("SELECT count(*) FROM \(MigrationPlan.quote(table))") { total += Int(count) }
        }
        return total
    }
}
