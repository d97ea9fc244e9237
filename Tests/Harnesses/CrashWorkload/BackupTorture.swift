import Foundation
import ManagedRecord

// Backups under kills and under a writer (docs/reliability.md, "Kills during a backup";
// docs/security.md, "Online backup").
//
// backup-torture: each round starts a child that backs the store up (pausing after each
// step of pages, as a slow disk would) and SIGKILLs it at a random moment. Then the store
// must be byte for byte as it was, and the copy complete (it passes the integrity check and
// holds every row) or absent; when absent, a backup to the same name in the parent removes
// the dead child's temporary file and succeeds.
//
// backup-under-writer: a `run` child commits saves in a loop, journaling each; the parent
// takes backups from its own process meanwhile. Each copy must pass the integrity check and
// hold exactly the state of one save the writer committed (its digest is in the journal),
// no older than the last save that had returned when the backup began.

/// Counts of a backup torture run.
struct BackupTortureTally {
    var kills = 0
    /// Kills after which the copy was complete (the child had put it in place).
    var copyComplete = 0
    /// Kills after which there was no copy.
    var copyAbsent = 0
    /// Temporary files of killed children removed by the next backup.
    var temporariesRemoved = 0
    /// Children that finished before their kill came.
    var finishedFirst = 0
}

/// The child: backs the store up, pausing `pause` microseconds after each step.
func backupChild(storeURL: URL, copyURL: URL, pause: UInt32) throws {
    try PersistentContainer.backup(storeAt: storeURL, to: copyURL) { _ in usleep(pause) }
}

/// The parent of backup-torture.
func backupTorture(kills: Int, folder: URL, seed: UInt64, rows: Int, maxDelayMilliseconds: Int) throws -> BackupTortureTally {
    try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
    let storeURL = folder.appendingPathComponent("Backed.sqlite")
    for suffix in ["", "-wal", "-shm"] { try? FileManager.default.removeItem(atPath: storeURL.path + suffix) }
    do {
        let container = try PersistentContainer(name: "Notes", entities: [MigratingNoteV1.self], storeURL: storeURL)
        for number in 0..<rows {
            let note = MigratingNoteV1(context: container.viewContext)
            note.number = number
            note.body = "note \(number) " + String(repeating: "b", count: 200)
        }
        try container.viewContext.save()
        container.persistentStoreCoordinator.close()
    }
    let original = try Data(contentsOf: storeURL)
    var random = SplitMix(state: seed)
    var tally = BackupTortureTally()
    for round in 0..<kills {
        let copyURL = folder.appendingPathComponent("Copy-\(round % 2).sqlite")
        for suffix in ["", "-wal", "-shm"] { try? FileManager.default.removeItem(atPath: copyURL.path + suffix) }
        if try runAndKill(["backup", storeURL.path, copyURL.path, "20000"], afterMilliseconds: 1 + random.below(maxDelayMilliseconds),
                          role: "round \(round): the backing-up child") {
            tally.kills += 1
        } else {
            tally.finishedFirst += 1
        }

        guard try Data(contentsOf: storeURL) == original else { throw WorkloadFailure("round \(round): the store changed during the backup") }
        try checkIntegrity(storeURL)
        if FileManager.default.fileExists(atPath: copyURL.path) {
            try checkCopy(copyURL, rows: rows, round: round)
            tally.copyComplete += 1
        } else {
            tally.copyAbsent += 1
            let prefix = ".\(copyURL.lastPathComponent).backup-"
            let left = try FileManager.default.contentsOfDirectory(atPath: folder.path).filter { $0.hasPrefix(prefix) }
            try PersistentContainer.backup(storeAt: storeURL, to: copyURL)
            let still = try FileManager.default.contentsOfDirectory(atPath: folder.path).filter { $0.hasPrefix(prefix) }
            guard still.isEmpty else { throw WorkloadFailure("round \(round): the killed backup's temporary files are still there: \(still)") }
            tally.temporariesRemoved += left.count
            try checkCopy(copyURL, rows: rows, round: round)
        }
    }
    return tally
}

/// Checks that the copy at `url` passes the integrity check and holds notes 0..<rows.
private func checkCopy(_ url: URL, rows: Int, round: Int) throws {
    try checkIntegrity(url)
    let container = try PersistentContainer(name: "Notes", entities: [MigratingNoteV1.self], storeURL: url, options: [.readOnly])
    defer { container.persistentStoreCoordinator.close() }
    let notes = try container.viewContext.fetch(FetchRequest<MigratingNoteV1>(sortDescriptors: [SortKey("number")]))
    guard notes.map(\.number) == Array(0..<rows) else {
        throw WorkloadFailure("round \(round): the copy holds \(notes.count) notes, not the \(rows) of the store")
    }
}

/// Counts of a backup-under-writer run.
struct BackupUnderWriterTally {
    var backups = 0
    /// The save numbers whose states the copies hold, in order.
    var states: [Int] = []
    /// Saves the writer committed while a backup ran, over all backups.
    var savesDuringBackups = 0
}

/// The parent of backup-under-writer: `backups` backups while a `run` child commits.
func backupUnderWriter(backups: Int, folder: URL, seed: UInt64) throws -> BackupUnderWriterTally {
    try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
    let storeURL = folder.appendingPathComponent("Written.sqlite")
    let journal = Journal(url: folder.appendingPathComponent("writer-journal.txt"))
    for suffix in ["", "-wal", "-shm"] { try? FileManager.default.removeItem(atPath: storeURL.path + suffix) }
    try? FileManager.default.removeItem(at: journal.url)
    let child = Process()
    child.executableURL = URL(fileURLWithPath: CommandLine.arguments[0])
    child.arguments = ["run", "explicit", storeURL.path, journal.url.path, String(seed)]
    var environment = ProcessInfo.processInfo.environment
    environment["SWIFT_BACKTRACE"] = "enable=no"
    child.environment = environment
    child.standardOutput = FileHandle.nullDevice
    try child.run()
    defer {
        if child.isRunning { kill(child.processIdentifier, SIGKILL) }
        child.waitUntilExit()
    }
    func lastReturned() -> Int { journal.entries().last(where: \.returned)?.number ?? -1 }
    let deadline = Date().addingTimeInterval(60)
    while lastReturned() < 3 {
        guard child.isRunning, Date() < deadline else { throw WorkloadFailure("the writer did not commit 3 saves within 60 s") }
        usleep(10_000)
    }
    var tally = BackupUnderWriterTally()
    for index in 0..<backups {
        let copyURL = folder.appendingPathComponent("Snapshot-\(index).sqlite")
        for suffix in ["", "-wal", "-shm"] { try? FileManager.default.removeItem(atPath: copyURL.path + suffix) }
        let before = lastReturned()
        try PersistentContainer.backup(storeAt: storeURL, to: copyURL) { _ in usleep(2_000) }
        let entries = journal.entries()
        guard child.isRunning else { throw WorkloadFailure("the writer stopped") }
        try checkIntegrity(copyURL)
        let session = try ExplicitSession(storeURL: copyURL)
        let digest = try session.run { try session.fetchGraph().map { try Mirror(graph: $0).digest } }
        session.container.persistentStoreCoordinator.close()
        guard let digest, let entry = entries.last(where: { $0.digest == digest }) else {
            throw WorkloadFailure("backup \(index): the copy holds a state no save of the writer led to")
        }
        guard entry.number >= before else {
            throw WorkloadFailure("backup \(index): the copy holds save \(entry.number), older than save \(before), which had returned when the backup began")
        }
        tally.backups += 1
        tally.states.append(entry.number)
        tally.savesDuringBackups += max(0, (entries.last(where: \.returned)?.number ?? before) - before)
        try? FileManager.default.removeItem(at: copyURL)
    }
    return tally
}
