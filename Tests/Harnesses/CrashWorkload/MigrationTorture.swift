import Foundation
import ManagedRecord

// Kills during a lightweight migration. Each round writes a store with version 1 of a small
// model, starts a child that opens it with version 2 (a rename, a text-to-number conversion
// and a new attribute: a real copy, not an ALTER TABLE), and SIGKILLs the child at a random
// moment. Then the store must be wholly version 1 or wholly version 2 — never between — and
// opening it with version 2 must give every row with its converted values; no migration
// copy may be left in the folder once the store opens again.

final class MigratingNoteV1: ManagedObject {
    override class var entityName: String { "Note" }
    @Attribute var number: Int = 0
    @Attribute var body: String = ""
    @Attribute var stars: String = ""
}

final class MigratingNoteV2: ManagedObject {
    override class var entityName: String { "Note" }
    @Attribute var number: Int = 0
    @Attribute(originalName: "body") var text: String = ""
    @Attribute var stars: Int = 0
    @Attribute var pinned: Bool = false
}

/// Counts of a migration torture run.
struct MigrationTortureTally {
    var kills = 0
    /// Kills after which the store was still version 1 (the copy was not in place yet).
    var killedBeforeReplacement = 0
    /// Kills after which the store was already version 2.
    var killedAfterReplacement = 0
    /// Children that finished migrating before their kill came.
    var finishedFirst = 0
    var rowsChecked = 0
}

/// The child: opens the store with version 2, which migrates it.
func migrateChild(storeURL: URL) throws {
    let container = try PersistentContainer(name: "Notes", entities: [MigratingNoteV2.self], storeURL: storeURL)
    container.persistentStoreCoordinator.close()
}

/// One of several processes opening a version 1 store with version 2 at once: each migrates
/// it or waits for the one that does, then saves a note of its own.
func migrateAndAdd(storeURL: URL, number: Int) throws {
    let container = try PersistentContainer(name: "Notes", entities: [MigratingNoteV2.self], storeURL: storeURL)
    let note = MigratingNoteV2(context: container.viewContext)
    note.number = number
    note.text = "added \(number)"
    try container.viewContext.save()
    container.persistentStoreCoordinator.close()
}

/// The parent: `kills` rounds of write, migrate in a child, kill, verify.
func migrationTorture(kills: Int, folder: URL, seed: UInt64, rows: Int, maxDelayMilliseconds: Int) throws -> MigrationTortureTally {
    try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
    let version2 = try ManagedObjectModel(entities: [MigratingNoteV2.self])
    var random = SplitMix(state: seed)
    var tally = MigrationTortureTally()
    for round in 0..<kills {
        let storeURL = folder.appendingPathComponent("Notes-\(round).sqlite")
        try writeVersion1Notes(storeURL: storeURL, rows: rows)
        if try runAndKill(["migrate", storeURL.path], afterMilliseconds: 1 + random.below(maxDelayMilliseconds),
                          role: "round \(round): the migrating child") {
            tally.kills += 1
        } else {
            tally.finishedFirst += 1
        }

        try checkIntegrity(storeURL)
        if try PersistentStoreCoordinator.requiresMigration(model: version2, storeURL: storeURL) {
            tally.killedBeforeReplacement += 1
        } else {
            tally.killedAfterReplacement += 1
        }
        let container = try PersistentContainer(name: "Notes", model: version2, storeURL: storeURL)
        let notes = try container.viewContext.fetch(FetchRequest<MigratingNoteV2>(sortDescriptors: [SortKey("number")]))
        guard notes.count == rows else { throw WorkloadFailure("round \(round): \(notes.count) notes after the migration, not \(rows)") }
        for (number, note) in notes.enumerated() where note.number != number || note.text != "note \(number)" || note.stars != number % 5 || note.pinned {
            throw WorkloadFailure("round \(round): note \(number) reads \(note.number), \"\(note.text)\", \(note.stars) stars after the migration")
        }
        tally.rowsChecked += notes.count
        container.persistentStoreCoordinator.close()
        try checkIntegrity(storeURL)
        try finishRound(round, storeURL: storeURL, folder: folder)
    }
    return tally
}

/// A version 1 store of `rows` notes ("note 0", ...; stars "0" to "4").
func writeVersion1Notes(storeURL: URL, rows: Int) throws {
    try writeVersion1Notes(location: .file(storeURL), rows: rows)
}

/// Writes `rows` notes of version 1 into a new store at `location`.
func writeVersion1Notes(location: PersistentContainer.Location, rows: Int) throws {
    let container = try PersistentContainer(name: "Notes", entities: [MigratingNoteV1.self], store: location)
    for number in 0..<rows {
        let note = MigratingNoteV1(context: container.viewContext)
        note.number = number
        note.body = "note \(number)"
        note.stars = String(number % 5)
    }
    try container.viewContext.save()
    container.persistentStoreCoordinator.close()
}

/// Checks that no migration copy is left in `folder`, then removes the round's store.
func finishRound(_ round: Int, storeURL: URL, folder: URL) throws {
    let leftovers = try FileManager.default.contentsOfDirectory(atPath: folder.path).filter { $0.contains(".migrating-") }
    guard leftovers.isEmpty else { throw WorkloadFailure("round \(round): a killed migration's copy is left in the folder: \(leftovers)") }
    for suffix in ["", "-wal", "-shm", "-journal"] { try? FileManager.default.removeItem(atPath: storeURL.path + suffix) }
}
