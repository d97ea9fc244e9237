import CSQLite
import Foundation
import Logging
import Synchronization

/// A Core Data-layout SQLite store: the writer connection, a pool of reader connections, the
/// layout that maps the model onto tables, and the store's metadata.
///
/// Thread-safe: every write funnels through the single writer in `BEGIN IMMEDIATE`
/// transactions behind `writeLock`, while reads take reader connections of their own (WAL
/// mode), so a long read never blocks a save. An in-memory store reads on the writer, under
/// the lock.
final class SQLiteStore: PersistentStore {
    /// The file, or nil for an in-memory store.
    let url: URL?
    let model: ManagedObjectModel
    private(set) var layout: StoreLayout
    let identity: StoreIdentity
    let writer: SQLiteConnection
    /// What reader connections open: the file's path, or a `file:` URI when read-only.
    private let readerPath: String
    private(set) var metadata: StoreMetadata
    private let readerLock = NSLock()
    private let writeLock = NSLock()
    /// Checkpoints the file store's log after commits, in the background, and keeps it bounded
    /// (nil in memory); `afterCommit` is called under `writeLock`.
    private let walCheckpoint: WALCheckpoint?
    /// Backups of this store running in this process (``backup(to:progress:)``): while any
    /// holds its snapshot, commits skip the synchronous checkpoint, which could only wait for it.
    let runningBackups = Locked(0)
    private var idleReaders: [SQLiteConnection] = []
    /// The store's persistent history: recorded with every save when the store has Core
    /// Data's history tables (History/).
    let history = SQLiteHistory()
    /// Set by tests to record every statement executed on any of this store's connections.
    var trace: (@Sendable (String) -> Void)? {
        get { traceLock.withLock { storedTrace } }
        set {
            traceLock.withLock { storedTrace = newValue }
            writeLock.withLock { writer.trace = newValue }
            walCheckpoint?.trace = newValue
        }
    }
    private let traceLock = NSLock()
    private var storedTrace: (@Sendable (String) -> Void)?

    var isInMemory: Bool { url == nil }
    /// Opened with `SQLITE_OPEN_READONLY`: writes throw `StoreError.readOnly`.
    let isReadOnly: Bool
    /// Decimals in REAL columns, as Core Data stores them.
    var decimalStorage: DecimalStorage { .real }
    /// Who may read the files created for the store (its backups too).
    let fileMode: StoreFileMode
    /// Whether ``close()`` ran. Atomic so that the watcher of other connections' commits may
    /// ask without the write lock (a save may hold it); set under the write lock.
    var isClosed: Bool { closed.load(ordering: .acquiring) }
    private let closed = Atomic<Bool>(false)

    /// Prepared statements alive on the writer and each idle reader (for tests).
    func preparedStatementCounts() -> [Int] {
        [writer.preparedStatementCount] + readerLock.withLock { idleReaders.map(\.preparedStatementCount) }
    }

    /// Closes the writer and every reader; later uses throw. A reader in use is closed
    /// when it comes back.
    func close() {
        writeLock.lock()
        defer { writeLock.unlock() }
        closed.store(true, ordering: .releasing)
        walCheckpoint?.close()
        writer.close()
        readerLock.withLock {
            for reader in idleReaders { reader.close() }
            idleReaders.removeAll()
        }
    }

    /// Closes the store, then removes its file and the file's `-wal` and `-shm` (nothing in
    /// memory). SQLite must not have a file open while it is unlinked, hence the order.
    func destroy() throws {
        close()
        guard let url else { return }
        for suffix in ["", "-wal", "-shm"] {
            let file = URL(fileURLWithPath: url.path + suffix)
            if FileManager.default.fileExists(atPath: file.path) { try FileManager.default.removeItem(at: file) }
        }
    }

    /// Opens the store at `url` (creating it and its folder when missing), or an in-memory
    /// store when `url` is nil. When `migrate` is true and another model version wrote the
    /// store, `migrator` migrates it first (see ``StoreMigrator``). With `readOnly`, opens an
    /// existing store that fits the model as it is, and writes nothing.
    ///
    /// `fileMode` says who may read the files and folders created for the store (see
    /// ``StoreFileMode``). Opening an existing owner-only store that other users may read
    /// logs a warning once per path (``StoreFileExposure``).
    init(model: ManagedObjectModel, url: URL?, migrate: Bool = true, readOnly: Bool = false,
         migrator: StoreMigrator = StoreMigrator(), fileMode: StoreFileMode = .ownerOnly) throws {
        self.url = url
        isReadOnly = readOnly
        self.model = model
        self.fileMode = fileMode
        if let url, migrate, !readOnly {
            var migrator = migrator
            migrator.fileMode = fileMode
            _ = try migrator.migrateIfNeeded(url: url, model: model)
        }
        let created: Bool
        (writer, readerPath, created) = try SQLiteFileAccess.openWriter(url: url, readOnly: readOnly, fileMode: fileMode)
        // Marks the file open for restores, whatever its journal mode (until the writer closes).
        if let url { StoreInUseLock.hold(on: writer, url: url) }
        if let url, !created, fileMode == .ownerOnly {
            StoreFileExposure.warnOnce(ofStoreAt: url, logger: Logger(label: "ObjectGraph.coordinator"))
        }
        do {
            _ = try writer.scalar("SELECT count(*) FROM sqlite_master")
            // Refuse a foreign database before anything (even the journal mode) is written.
            let tableCount = try writer.scalar("SELECT count(*) FROM sqlite_master WHERE type = 'table'")
            if try !writer.tableExists("Z_METADATA"), tableCount != .integer(0) {
                throw StoreError(.notACoreDataStore, url: url, "the database has tables but no Z_METADATA: it was not written by Core Data or ManagedRecord, so it is left untouched")
            }
            try writer.execute("PRAGMA synchronous = NORMAL")
            // A new (empty) file is put in WAL mode before its tables are created: in
            // rollback-journal mode the creating connection's commit waits for every other
            // connection's shared lock to go, and containers opening the same new file at once
            // (each reading it, each trying to switch it) could keep it waiting past the busy
            // timeout (ConcurrentCreationTests).
            if tableCount == .integer(0), url != nil, !readOnly {
                try Self.switchToWAL(writer)
            }
        } catch let error as SQLiteError {
            throw SQLiteFileAccess.diagnose(error, url: url, readOnly: readOnly, fallback: StoreError(
                .cannotOpen, url: url, "cannot read or write the database", underlying: error))
        }

        let opened = try Self.openOrCreate(writer: writer, model: model, url: url, migrate: migrate, readOnly: readOnly)
        layout = opened.layout
        metadata = opened.metadata
        identity = StoreIdentity.of(uuid: opened.metadata.uuid, model: model)
        walCheckpoint = url.map { WALCheckpoint(storePath: $0.path, logger: Logger(label: "ObjectGraph.coordinator")) }
        // Only once the store is known to fit the model: a refused file keeps its header.
        if url != nil && !readOnly {
            do {
                try Self.switchToWAL(writer)
                try walCheckpoint?.attach(to: writer)
            } catch let error as SQLiteError {
                throw SQLiteFileAccess.diagnose(error, url: url, readOnly: readOnly, fallback: StoreError(
                    .cannotOpen, url: url, "cannot switch the store to write-ahead logging", underlying: error))
            }
        }
    }

    /// Puts the store in WAL mode unless it is already. Connections switching one new file
    /// at once each hold a shared lock while waiting for the others' to go, so none can win
    /// within a busy timeout: each tries with a short timeout, gives up its lock, and tries
    /// again after a random pause until one has switched the file (within the usual 10 s).
    private static func switchToWAL(_ writer: SQLiteConnection) throws {
        let deadline = Date().addingTimeInterval(Double(SQLiteConnection.busyTimeout) / 1000)
        defer { sqlite3_busy_timeout(writer.handle, SQLiteConnection.busyTimeout) }
        while true {
            if case .text(let mode)? = try writer.scalar("PRAGMA journal_mode"), mode.lowercased() == "wal" { return }
            sqlite3_busy_timeout(writer.handle, 50)
            do {
                try writer.execute("PRAGMA journal_mode = WAL")
                return
            } catch let error as SQLiteError where error.primaryCode == SQLITE_BUSY && Date() < deadline {
                usleep(UInt32.random(in: 1_000...20_000))
            }
        }
    }

    // MARK: Connections

    /// Runs `body` on a reader connection (on the writer, under the write lock, in memory).
    /// A ``SQLiteError`` comes out as the ``StoreError`` that says what it means.
    func read<T>(_ body: (SQLiteConnection) throws -> T) throws -> T {
        if isClosed { throw closedError }
        do {
            if isInMemory { return try writeLock.withLock { try body(writer) } }
            return try withReaderConnection(body)
        } catch let error as SQLiteError {
            throw StoreError(error, url: url)
        }
    }

    /// Runs `body` in a write transaction on the single writer connection; afterwards starts
    /// the write-ahead log's checkpoint in the background, or keeps the log bounded
    /// (``WALCheckpoint``). A ``SQLiteError`` comes out as the
    /// ``StoreError`` that says what it means; the transaction was rolled back.
    func write<T>(_ body: (SQLiteConnection) throws -> T) throws -> T {
        if isReadOnly {
            throw StoreError(.readOnly, url: url, "the store was opened read-only (options: [.readOnly]), so nothing was written and the changes stay pending; open it without .readOnly to save")
        }
        return try writeLock.withLock {
            if isClosed { throw closedError }
            do {
                let result = try writer.writeTransaction { try body(writer) }
                walCheckpoint?.afterCommit(writer, backupRunning: runningBackups.withLock { $0 } > 0)
                return result
            } catch let error as SQLiteError {
                throw StoreError(error, url: url)
            }
        }
    }

    /// Runs `body` on the writer when no write holds it, outside any transaction; nil (and
    /// `body` not run) when a write is under way or the store is closed. For looks that
    /// must never wait for a save (``SQLiteHistory``'s watcher).
    func withIdleWriter<T>(_ body: (SQLiteConnection) throws -> T) throws -> T? {
        guard writeLock.try() else { return nil }
        defer { writeLock.unlock() }
        if isClosed { return nil }
        do {
            return try body(writer)
        } catch let error as SQLiteError {
            throw StoreError(error, url: url)
        }
    }

    private var closedError: StoreError {
        StoreError(.closed, url: url, "the store was closed (or deleted); open it again")
    }

    /// Runs `body` with a reader connection of its own (the writer, for an in-memory store,
    /// which the caller must hold the write lock for).
    func withReaderConnection<T>(_ body: (SQLiteConnection) throws -> T) throws -> T {
        guard let url else { return try body(writer) }
        let reader: SQLiteConnection
        if let idle = readerLock.withLock({ idleReaders.popLast() }) {
            reader = idle
        } else {
            do {
                reader = try SQLiteConnection(path: readerPath, readOnly: isReadOnly, create: false)
            } catch let error as SQLiteError {
                throw StoreError(.cannotOpen, url: url, "cannot open a reader connection", underlying: error)
            }
        }
        reader.trace = trace
        defer {
            readerLock.withLock {
                if isClosed { reader.close() } else { idleReaders.append(reader) }
            }
        }
        return try body(reader)
    }

    // MARK: Opening

    private static func openOrCreate(writer: SQLiteConnection, model: ManagedObjectModel, url: URL?, migrate: Bool,
                                     readOnly: Bool) throws -> (layout: StoreLayout, metadata: StoreMetadata) {
        do {
            if try writer.tableExists("Z_METADATA") {
                return try openExisting(writer: writer, model: model, url: url, migrate: migrate, readOnly: readOnly)
            }
            if readOnly {
                throw StoreError(.readOnly, url: url, "the database is empty, and a store opened with options: [.readOnly] cannot create Core Data's tables in it; open it without .readOnly once")
            }
            if let created = try create(writer: writer, model: model) { return created }
            // Another process created the store between the check above and the write lock.
            return try openExisting(writer: writer, model: model, url: url, migrate: migrate, readOnly: readOnly)
        } catch let error as SQLiteError {
            throw SQLiteFileAccess.diagnose(error, url: url, readOnly: readOnly, fallback: StoreError(
                .cannotOpen, url: url, "cannot set up the store", underlying: error))
        }
    }

    /// Creates Core Data's tables in the empty database, or returns nil when another process
    /// created them first (the check is made again under the write lock, so two processes
    /// opening one new file at once both open the store one of them created).
    private static func create(writer: SQLiteConnection, model: ManagedObjectModel) throws -> (layout: StoreLayout, metadata: StoreMetadata)? {
        let layout = StoreLayout(model: model, numbers: StoreLayout.defaultNumbers(for: model))
        let metadata = StoreMetadata(uuid: UUID().uuidString, model: model)
        return try writer.writeTransaction { () -> (layout: StoreLayout, metadata: StoreMetadata)? in
            if try writer.tableExists("Z_METADATA") { return nil }
            for statement in layout.createStatements() { try writer.execute(statement) }
            for row in layout.primaryKeyRows() {
                try writer.run("INSERT INTO Z_PRIMARYKEY (Z_ENT, Z_NAME, Z_SUPER, Z_MAX) VALUES (?, ?, ?, 0)",
                               [.integer(row.number), .text(row.name), .integer(row.parent)])
            }
            try writer.run("INSERT INTO Z_METADATA (Z_VERSION, Z_UUID, Z_PLIST) VALUES (1, ?, ?)",
                           [.text(metadata.uuid), .blob(try metadata.plist())])
            return (layout, metadata)
        }
    }

    static func readMetadata(writer: SQLiteConnection, url: URL?) throws -> StoreMetadata {
        var result: StoreMetadata?
        var failure: Error?
        try writer.query("SELECT Z_UUID, Z_PLIST FROM Z_METADATA ORDER BY Z_VERSION LIMIT 1") { row in
            do { result = try StoreMetadata(uuid: row.text(0), plist: row.data(1)) } catch { failure = error }
        }
        guard let result else {
            throw StoreError(.corruptMetadata, url: url, "Z_METADATA has no readable row\(failure.map { ": \($0)" } ?? "")")
        }
        return result
    }

    private static func openExisting(writer: SQLiteConnection, model: ManagedObjectModel, url: URL?, migrate: Bool,
                                     readOnly: Bool) throws -> (layout: StoreLayout, metadata: StoreMetadata) {
        var metadata = try readMetadata(writer: writer, url: url)
        let stored = try storedEntities(writer)
        let hashesMatch = model.matchesStoreVersionHashes(metadata.versionHashes)
        // Rows by name, renaming identifier or (a store of this model) the model's numbering,
        // as Core Data finds them after an entity was renamed.
        let numbering = StoredNumbering(model: model, rows: stored, writtenWithModel: hashesMatch)
        let numbers = numbering.numbersWithNewEntities
        let newEntities = numbering.missing
        var problems: [String] = []
        for entity in model.entities where numbering.parents[entity.name] != nil {
            let expectedParent = entity.superentity.flatMap { numbers[$0.name] } ?? 0
            if numbering.parents[entity.name] != expectedParent {
                problems.append("\(entity.name) has another parent entity in the store")
            }
        }
        let layout = StoreLayout(model: model, numbers: numbers)
        try refuseForeignLayout(writer: writer, model: model, storedEntities: Set(stored.map(\.name)), hashesMatch: hashesMatch,
                                layout: layout, url: url)
        if hashesMatch, let error = numbering.orphaningError(url: url) { throw error }
        if hashesMatch && newEntities.isEmpty && problems.isEmpty {
            return (layout, metadata)
        }

        // Additions a lightweight migration can make: new tables, columns and join tables.
        var additions: [String] = []
        var defaults: [(sql: String, value: SlotValue)] = []
        for table in layout.tables {
            let existing = try writer.columns(of: table.name)
            if existing.isEmpty {
                let columns = ["Z_PK INTEGER PRIMARY KEY", "Z_ENT INTEGER", "Z_OPT INTEGER"] + table.columns.map { "\($0.name) \($0.type)" }
                additions.append("CREATE TABLE \(table.name) ( \(columns.joined(separator: ", ")) )")
            } else {
                for column in table.columns where !existing.contains(column.name) {
                    additions.append("ALTER TABLE \(table.name) ADD COLUMN \(column.name) \(column.type)")
                    defaults += Self.defaultFill(column: column.name, table: table, layout: layout)
                }
            }
            if existing.isEmpty || !additions.isEmpty { additions += layout.indexStatements(for: table) }
        }
        for (join, ownerColumn, memberColumn, orderColumns) in layout.joinTables where try !writer.tableExists(join.name) {
            additions += layout.joinTableStatements(join, ownerColumn: ownerColumn, memberColumn: memberColumn, orderColumns: orderColumns)
        }
        guard problems.isEmpty else {
            throw StoreError(.incompatibleModel, url: url, "the store does not fit the model: \(problems.joined(separator: "; "))")
        }
        let hashesDiffer = metadata.versionHashes != model.entityVersionHashesByName
        let needsWrite = !additions.isEmpty || !newEntities.isEmpty
        if !needsWrite {
            // Same tables and columns although the hashes differ (a change that leaves the
            // schema alone, such as an optional flag): use it as it is.
            return (layout, metadata)
        }
        if readOnly {
            throw StoreError(.readOnly, url: url, "the store needs migrating to this model (\(additions.count + newEntities.count) schema changes), which a store opened with options: [.readOnly] never does; open it once without .readOnly to migrate it, or read it with the model it was written with")
        }
        guard migrate else {
            throw StoreError(.incompatibleModel, url: url, "the model has entities or properties the store lacks (\(additions.count) schema changes); open with migration enabled")
        }
        try writer.writeTransaction {
            for statement in additions { try writer.execute(statement) }
            for fill in defaults {
                let statement = try writer.cachedStatement(fill.sql)
                defer { statement.reset() }
                try SQLiteRowCodec.bind(fill.value, to: statement, at: 0, keys: [:])
                while try statement.step() {}
            }
            for entity in newEntities {
                try writer.run("INSERT INTO Z_PRIMARYKEY (Z_ENT, Z_NAME, Z_SUPER, Z_MAX) VALUES (?, ?, ?, 0)",
                               [.integer(numbers[entity.name]!), .text(entity.name),
                                .integer(entity.superentity.flatMap { numbers[$0.name] } ?? 0)])
            }
            if hashesDiffer {
                metadata.record(model)
                try writer.run("UPDATE Z_METADATA SET Z_PLIST = ?", [.blob(try metadata.plist())])
            }
        }
        return (layout, metadata)
    }

    /// The rows of the store's `Z_PRIMARYKEY`.
    static func storedEntities(_ connection: SQLiteConnection) throws -> [StoredEntity] {
        var rows: [StoredEntity] = []
        try connection.query("SELECT Z_ENT, Z_NAME, Z_SUPER FROM Z_PRIMARYKEY") { row in
            rows.append(StoredEntity(number: row.int64(0), name: row.text(1), parent: row.int64(2)))
        }
        return rows
    }

    /// Existing rows get a new non-optional attribute's default value, as Core Data's
    /// lightweight migration gives them.
    private static func defaultFill(column: String, table: TableMapping, layout: StoreLayout) -> [(sql: String, value: SlotValue)] {
        var fills: [(String, SlotValue)] = []
        var seen = Set<ObjectIdentifier>()
        for entity in table.root.selfAndDescendants {
            let mapping = layout.mappings[entity.index]
            for case let attribute? in entity.attributeAtSlot
            where mapping.columnBySlot[attribute.slot] == column && !attribute.isOptional && seen.insert(ObjectIdentifier(attribute)).inserted {
                guard let make = attribute.defaultValue else { continue }
                let numbers = attribute.entity.selfAndDescendants.map { String(layout.numbers[$0.name]!) }.joined(separator: ", ")
                fills.append(("UPDATE \(table.name) SET \(column) = ? WHERE Z_ENT IN (\(numbers))", make()))
            }
        }
        return fills
    }

    /// Whether opening the store at `url` with `model` would change its schema.
    static func requiresMigration(model: ManagedObjectModel, url: URL) throws -> Bool {
        guard FileManager.default.fileExists(atPath: url.path) else { return false }
        try SQLiteFileAccess.check(url, readOnly: true)
        let connection = try SQLiteFileAccess.openForInspection(url)   // leaves no -wal or -shm behind
        defer { connection.close() }
        guard try connection.tableExists("Z_METADATA") else { return false }
        let metadata = try readMetadata(writer: connection, url: url)
        return !model.matchesStoreVersionHashes(metadata.versionHashes)
    }
}
