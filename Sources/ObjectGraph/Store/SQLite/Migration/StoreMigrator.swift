import CSQLite
import Foundation

/// Lightweight migration of a store file to a model, as Core Data infers it (see
/// ``MigrationPlan``), built so that the original store is never changed unless the whole
/// migration succeeds:
///
/// 1. The store is read through a read-only connection; the plan is inferred (a change that
///    cannot be inferred throws here, before any file is written).
/// 2. A new file in the same folder gets the model's tables; the old store is attached
///    read-only and its rows are copied with `INSERT ... SELECT` in key ranges (memory stays
///    bounded; progress is reported after each range), all in one transaction.
/// 3. Only after that transaction commits is the old store's `-wal` checkpointed into it and
///    the new file renamed over it (atomic on POSIX file systems); the old `-wal` and `-shm`
///    are removed. Any failure before the rename deletes the new file and leaves the store
///    byte for byte as it was.
///
/// Migrations of one store never overlap: each takes ``MigrationLock`` first (a process or
/// thread that finds it taken waits, then finds the store migrated and opens it). Data the
/// model has no place for is never dropped by accident: unless `allowsDroppingData` is set
/// or the model file's versions declare the change, such a migration throws
/// ``MigrationError/Code/wouldDropData`` before anything is written.
///
/// No other connection or process may use the store while it migrates.
struct StoreMigrator {
    /// Rows per `INSERT ... SELECT` range (by key).
    var chunkSize: Int64 = 10_000
    var progress: MigrationProgressHandler?
    /// Drop entities and properties the model no longer has, with their values
    /// (``PersistentContainer/Options/allowsDroppingData``).
    var allowsDroppingData = false
    /// The stages of a staged migration (``StagedMigrationManager``); nil for a lightweight
    /// migration straight to the model.
    var stagedMigration: StagedMigrationManager?
    /// Set for a forecast's rehearsal (``forecast(url:model:)``): records each step, collects
    /// values that do not convert instead of stopping, and refuses no dropped data.
    var recorder: ForecastRecorder?
    /// How long to wait for another migration of the store to finish.
    var lockTimeout: TimeInterval = 600
    /// For tests: the largest number of pages the new file may grow to (`PRAGMA
    /// max_page_count`), to simulate a full disk.
    var maximumPageCount: Int?
    /// Who may read the migration's copies while they are written (`0600` unless the
    /// container keeps the process umask). The copy that replaces the store takes the
    /// store's own permissions first, so a migration never changes who may read a store.
    var fileMode: StoreFileMode = .ownerOnly

    /// Migrates the store at `url` to `model` when its metadata says another model wrote it.
    /// Returns whether it migrated. A file that is not a store is left for the caller to
    /// report.
    func migrateIfNeeded(url: URL, model: ManagedObjectModel) throws -> Bool {
        guard let size = try? FileManager.default.attributesOfItem(atPath: url.path)[.size] as? Int, size > 0 else { return false }
        try SQLiteFileAccess.check(url, readOnly: false)
        // Reading a WAL store creates its -wal and -shm when they are missing; a failed
        // migration removes the ones it created, so the folder is as it was.
        let companions = ["-wal", "-shm"].filter { !FileManager.default.fileExists(atPath: url.path + $0) }
        do {
            // Another migration in the folder holds the lock: wait only when this store needs one.
            var lock = MigrationLock.take(for: url)
            if lock == nil {
                guard Self.mayNeedMigration(url: url, model: model) else { return false }
                lock = try MigrationLock.wait(for: url, timeout: lockTimeout)
            }
            defer { lock?.release() }
            Self.removeCopiesOfKilledMigrations(of: url)
            return try planAndMigrate(url: url, model: model)
        } catch {
            for suffix in companions { try? FileManager.default.removeItem(atPath: url.path + suffix) }
            throw error
        }
    }

    private func planAndMigrate(url: URL, model: ManagedObjectModel) throws -> Bool {
        try Self.rollBackHotJournal(url)
        let chain = MigrationChain(model: model, staged: stagedMigration)
        var done = Set<Int>()
        var migrated = false
        // Each move replaces the store once; a chain never needs more moves than this.
        for _ in 0...(2 * chain.stages.count + 1) {
            guard let hashes = try Self.storedVersionHashes(url) else { return migrated }
            if model.matchesStoreVersionHashes(hashes) { return migrated }
            // Before the first move: the stages must lead the store to the model.
            if !migrated { try chain.validate(storeVersionHashes: hashes, url: url) }
            switch chain.nextMove(from: hashes, done: done) {
            case .stage(let index):
                done.insert(index)
                let stage = chain.stages[index]
                if stage.isCustom {
                    try runCustomStage(stage, url: url)
                } else {
                    guard try migrateLightweight(url: url, steps: [stage.destinationModel], writtenWith: stage.sourceModel, declared: true,
                                                 label: stage.label) else { return migrated }
                }
            case .lightweight(let steps, let writtenWith, let declared):
                guard try migrateLightweight(url: url, steps: steps, writtenWith: writtenWith, declared: declared) else { return migrated }
            }
            migrated = true
        }
        throw MigrationError(.notInferable, url: url, "the migration stages do not lead the store to the model: after every stage that starts from the store's version, it is still not at the model's version; check each stage's source and destination models")
    }

    /// The version hashes in the store's `Z_METADATA`; nil for a file that is not a store
    /// (left for the caller to report).
    private static func storedVersionHashes(_ url: URL) throws -> [String: Data]? {
        let reader: SQLiteConnection
        do { reader = try SQLiteFileAccess.openReadOnly(url).connection } catch { return nil }
        defer { reader.close() }
        do {
            guard try reader.tableExists("Z_METADATA"), try reader.tableExists("Z_PRIMARYKEY") else { return nil }
            return try SQLiteStore.readMetadata(writer: reader, url: url).versionHashes
        } catch let error as SQLiteError {
            throw MigrationError(.writeFailed, url: url, "the store cannot be read to plan its migration", underlying: error)
        }
    }

    /// Migrates the store at `url` by lightweight inference through `steps`, replacing it
    /// once. `writtenWith` is the model version that wrote the store, if known; `declared`
    /// says the versions declare the change, so data may be dropped without
    /// ``allowsDroppingData``. Returns false when the file is not a store.
    func migrateLightweight(url: URL, steps: [ManagedObjectModel], writtenWith: ManagedObjectModel?, declared: Bool,
                            label: String = "") throws -> Bool {
        let reader: SQLiteConnection
        do { reader = try SQLiteFileAccess.openReadOnly(url).connection } catch { return false }
        defer { reader.close() }
        let plan: MigrationPlan
        var refusesDropping = false
        do {
            guard try reader.tableExists("Z_METADATA"), try reader.tableExists("Z_PRIMARYKEY") else { return false }
            let metadata = try SQLiteStore.readMetadata(writer: reader, url: url)
            try SQLiteStore.refuseAnotherModel(storedEntities: Set(metadata.versionHashes.keys), model: steps[0], url: url)
            // No version at hand wrote the store: a store of Apple's Core Data keeps its model.
            let writtenWith = writtenWith ?? (metadata.writtenModel == nil
                ? ModelCacheArchive.model(connection: reader, url: url, hashes: metadata.versionHashes)?.model : nil)
            plan = try MigrationPlan(source: SourceSchema(connection: reader, metadata: metadata, model: steps[0], writtenWith: writtenWith),
                                     model: steps[0], connection: reader, url: url)
            refusesDropping = !allowsDroppingData && !declared
            if let recorder {
                let dropped = try plan.droppedData()
                recorder.begin(label: label, isCustom: false, plan: plan, dropped: dropped, refused: refusesDropping && !dropped.isEmpty)
                refusesDropping = false
            } else if refusesDropping {
                try Self.refuseDropping(plan.droppedData(), url: url)
            }
        } catch let error as SQLiteError {
            throw MigrationError(.writeFailed, url: url, "the store cannot be read to plan its migration", underlying: error)
        }
        reader.close()
        let migrated = try writeMigratedCopy(of: url, steps: steps, firstPlan: plan, refusingDrops: refusesDropping, reportingAs: url)
        try replaceStore(url, with: migrated.file, totalRows: migrated.plan.totalRows)
        return true
    }

    /// Throws ``MigrationError/Code/wouldDropData`` when `dropped` lists anything.
    static func refuseDropping(_ dropped: [MigrationError.DroppedData], url: URL) throws {
        guard !dropped.isEmpty else { return }
        throw MigrationError(.wouldDropData, url: url, "the model has no place for data the store holds, so migrating to it would drop \(dropped.map(\.description).joined(separator: "; ")). If the model is incomplete (an entity or property left out, or renamed without a renaming identifier), open the store with the full model; if dropping the data is meant, open it with options: [.allowsDroppingData]", droppedData: dropped)
    }

    /// Whether the store at `url` may need migrating to `model`: false only when its metadata
    /// can be read and says it fits (a store that cannot be read is left to the full check).
    private static func mayNeedMigration(url: URL, model: ManagedObjectModel) -> Bool {
        guard let reader = try? SQLiteFileAccess.openReadOnly(url).connection else { return true }
        defer { reader.close() }
        guard (try? reader.tableExists("Z_METADATA")) == true,
              let metadata = try? SQLiteStore.readMetadata(writer: reader, url: url) else { return true }
        return !model.matchesStoreVersionHashes(metadata.versionHashes)
    }

    /// A `-journal` left by a crash (a rollback-journal store) holds the pages of a
    /// transaction that never committed; only a read-write connection can roll it back, and a
    /// read-only one would otherwise read (and migrate) the half-written pages. Reading
    /// through a read-write connection makes SQLite roll it back first, as any writer would.
    private static func rollBackHotJournal(_ url: URL) throws {
        guard let size = try? FileManager.default.attributesOfItem(atPath: url.path + "-journal")[.size] as? Int, size > 0 else { return }
        do {
            let connection = try SQLiteConnection(path: url.path, create: false)
            defer { connection.close() }
            _ = try connection.scalar("SELECT count(*) FROM sqlite_master")
        } catch let error as SQLiteError {
            throw MigrationError(.writeFailed, url: url, "the store has a -journal left by a crash, and rolling it back failed; open the store once with the model that wrote it, or restore it from a backup", underlying: error)
        }
    }

    /// Removes the copies (and their journals) that a migration of `url` killed before it
    /// finished left in the store's folder: the store itself was never touched by them, and
    /// each is about as large as the store. Called under ``MigrationLock``, so no other
    /// migration of the store is running.
    static func removeCopiesOfKilledMigrations(of url: URL) {
        let folder = url.deletingLastPathComponent()
        let prefix = ".\(url.lastPathComponent).migrating-"
        guard let names = try? FileManager.default.contentsOfDirectory(atPath: folder.path) else { return }
        for name in names where name.hasPrefix(prefix) {
            try? FileManager.default.removeItem(at: folder.appendingPathComponent(name))
        }
    }

    /// Writes the store at `source` migrated through `steps` into a new file in the store's
    /// folder (intermediate files of earlier steps are removed) and returns it with the last
    /// step's plan; on failure removes every file it wrote and throws. With `refusingDrops`,
    /// the first step throws ``MigrationError/Code/wouldDropData`` before its fix-ups would
    /// remove links (see ``MigrationPlan/lostLinks(scalar:)``). Errors name `url`, the store.
    func writeMigratedCopy(of source: URL, steps: [ManagedObjectModel], firstPlan: MigrationPlan, refusingDrops: Bool,
                           reportingAs url: URL) throws -> (file: URL, plan: MigrationPlan) {
        var temporaries: [URL] = []
        func removeTemporaries() {
            for temporary in temporaries { Self.removeCopy(temporary) }
        }
        var plan = firstPlan
        var current = source
        do {
            for (index, model) in steps.enumerated() {
                if index > 0 { plan = try planStep(from: current, to: model, reportingAs: url) }
                let temporary = Self.temporaryCopyURL(of: url)
                temporaries.append(temporary)
                try copy(plan: plan, model: model, from: current, into: temporary, reportingAs: url, refusingDrops: refusingDrops && index == 0)
                // The room held: this copy, and the one it was read from unless that is the store.
                recorder?.finish(written: temporary, held: Self.fileBytes(temporary) + (current == url ? 0 : Self.fileBytes(current)))
                current = temporary
            }
        } catch let error as SQLiteError {
            removeTemporaries()
            if let failure = plan.converter.failure {
                throw MigrationError(failure.code, url: url, entity: failure.entity, property: failure.property, failure.message)
            }
            throw Self.writeError(error, url: url)
        } catch {
            removeTemporaries()
            throw error
        }
        temporaries.removeLast()
        removeTemporaries()
        return (current, plan)
    }

    /// The error for a failed write of a migration copy in `url`'s folder.
    static func writeError(_ error: SQLiteError, url: URL) -> MigrationError {
        let folder = url.deletingLastPathComponent()
        let full = error.primaryCode == SQLITE_FULL
        return MigrationError(.writeFailed, url: url, full
            ? "the disk (or the file size limit) is full: the migrated copy of the store needs about as much free space as the store itself, in its folder \(folder.path); free some space and open the store again"
            : "writing the migrated copy of the store in \(folder.path) failed", underlying: error)
    }

    /// A new name for a migration's copy of the store at `url`, in its folder (see
    /// ``removeCopiesOfKilledMigrations(of:)``).
    static func temporaryCopyURL(of url: URL) -> URL {
        url.deletingLastPathComponent().appendingPathComponent(".\(url.lastPathComponent).migrating-\(UUID().uuidString)")
    }

    /// Removes a migration copy and its journals.
    static func removeCopy(_ copy: URL) {
        for suffix in ["", "-journal", "-wal", "-shm"] { try? FileManager.default.removeItem(atPath: copy.path + suffix) }
    }

    /// Puts the migrated file `migrated` in place of the store at `url`, with the store's
    /// permissions (removing `migrated` when that fails), and reports the end.
    func replaceStore(_ url: URL, with migrated: URL, totalRows: Int) throws {
        do {
            var store = stat()
            if stat(url.path, &store) == 0 { chmod(migrated.path, store.st_mode & 0o7777) }
            try StoreFileReplacement.replace(url, with: migrated)
        } catch {
            Self.removeCopy(migrated)
            throw error
        }
        progress?(MigrationProgress(completedRows: totalRows, totalRows: totalRows, entity: nil))
    }

    /// The plan for one later step, from an intermediate file of this migration (recorded
    /// for a forecast as `label`).
    func planStep(from file: URL, to model: ManagedObjectModel, reportingAs url: URL, writtenWith: ManagedObjectModel? = nil,
                  label: String = "", isCustom: Bool = false) throws -> MigrationPlan {
        let reader = try SQLiteConnection(path: file.path, readOnly: true, create: false)
        defer { reader.close() }
        let metadata = try SQLiteStore.readMetadata(writer: reader, url: url)
        let plan = try MigrationPlan(source: SourceSchema(connection: reader, metadata: metadata, model: model, writtenWith: writtenWith),
                                     model: model, connection: reader, url: url)
        try recorder?.begin(label: label, isCustom: isCustom, plan: plan, dropped: plan.droppedData(), refused: false)
        return plan
    }

    /// Writes the migrated store into `temporary`, in one transaction.
    private func copy(plan: MigrationPlan, model: ManagedObjectModel, from url: URL, into temporary: URL, reportingAs store: URL,
                      refusingDrops: Bool) throws {
        fileMode.createEmptyFile(temporary.path)
        let connection = try SQLiteConnection(path: temporary.path)
        defer { connection.close() }
        plan.converter.register(on: connection)
        if let maximumPageCount { try connection.execute("PRAGMA max_page_count = \(maximumPageCount)") }
        try connection.run("ATTACH DATABASE ? AS src", [.text(SQLiteFileAccess.readOnlyURI(url))])
        let layout = plan.layout
        var completed = 0
        let total = plan.totalRows
        try connection.writeTransaction {
            for statement in layout.createStatements() { try connection.execute(statement) }
            for copy in plan.copies where copy.rowCount > 0 {
                var low = copy.minKey - 1
                while low < copy.maxKey {
                    let high = min(copy.maxKey, low + chunkSize)
                    completed += try connection.run(copy.sql, [.integer(copy.sourceNumber), .integer(low), .integer(high)] + copy.arguments)
                    progress?(MigrationProgress(completedRows: completed, totalRows: total, entity: copy.entity))
                    low = high
                }
            }
            for statement in plan.joinCopies { try connection.execute(statement) }
            if refusingDrops { try Self.refuseDropping(plan.lostLinks(scalar: { try connection.scalar($0) }), url: store) }
            for statement in plan.fixUps { try connection.execute(statement) }
            try plan.writePrimaryKeys(in: "main", scalar: { try connection.scalar($0) }, run: { _ = try connection.run($0, $1) })
            var metadata = plan.source.metadata
            metadata.record(model)
            try connection.run("INSERT INTO main.Z_METADATA (Z_VERSION, Z_UUID, Z_PLIST) VALUES (1, ?, ?)",
                               [.text(metadata.uuid), .blob(try metadata.plist())])
            try Self.carryHistory(over: connection, plan: plan)
        }
        try connection.execute("DETACH DATABASE src")
    }
}
