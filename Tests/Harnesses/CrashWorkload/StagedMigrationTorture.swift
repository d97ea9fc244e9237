import Foundation
import ManagedRecord

// Kills during a staged migration: version 1 -> 2 is a lightweight stage (the notes of
// MigrationTorture.swift), version 2 -> 3 a custom stage whose `willMigrate` pins every
// seventh note at version 2 and whose `didMigrate` splits version 2's `text` ("note 17")
// into version 3's `word` and `rest`. Each round a child migrates a version 1 store and is
// killed at one point of a stage (it kills itself there), or at a random moment. Then the
// store must be wholly at one of the three versions — the one the kill point implies — and
// opening it with the stages must give every row at version 3.

final class MigratingNoteV3: ManagedObject {
    override class var entityName: String { "Note" }
    @Attribute var number: Int = 0
    @Attribute var word: String = ""
    @Attribute var rest: String = ""
    @Attribute var stars: Int = 0
    @Attribute var pinned: Bool = false
}

/// Where a child of the staged migration torture kills itself, and the version the store
/// must be at afterwards.
enum StageKillPoint: String, CaseIterable {
    /// While stage 1 (lightweight) copies rows: the store stays at version 1.
    case copyingStage1
    /// In stage 2's `willMigrate`, its changes made but not saved: version 2.
    case inWillMigrate
    /// While stage 2 copies rows to version 3: version 2.
    case copyingStage2
    /// In stage 2's `didMigrate`, the split written but not saved: version 2.
    case inDidMigrate
    /// Right after stage 2 replaced the store: version 3.
    case afterStage2
    /// At a random moment (any version).
    case random

    var expectedVersion: Int? {
        switch self {
        case .copyingStage1: return 1
        case .inWillMigrate, .copyingStage2, .inDidMigrate: return 2
        case .afterStage2: return 3
        case .random: return nil
        }
    }
}

/// The two stages, with `kill` called at each point a child may die at.
func noteStages(kill: @escaping @Sendable (StageKillPoint) -> Void = { _ in }) throws -> StagedMigrationManager {
    let (v1, v2, v3) = (try ManagedObjectModel(entities: [MigratingNoteV1.self]), try ManagedObjectModel(entities: [MigratingNoteV2.self]),
                        try ManagedObjectModel(entities: [MigratingNoteV3.self]))
    return StagedMigrationManager([
        .lightweight(from: v1, to: v2, label: "rename body, stars to a number, add pinned"),
        .custom(from: v2, to: v3, label: "split text", willMigrate: { context in
            for note in try context.fetch(FetchRequest<MigratingNoteV2>()) where note.number % 7 == 0 { note.pinned = true }
            kill(.inWillMigrate)
        }, didMigrate: { context, old in
            let sorted = [SortKey("number")]
            let new = try context.fetch(FetchRequest<MigratingNoteV3>(sortDescriptors: sorted))
            let before = try old.fetch(FetchRequest<MigratingNoteV2>(sortDescriptors: sorted))
            guard new.count == before.count else { throw WorkloadFailure("didMigrate: \(new.count) notes at version 3, \(before.count) at version 2") }
            for (note, oldNote) in zip(new, before) {
                let parts = oldNote.text.split(separator: " ", maxSplits: 1)
                note.word = parts.first.map(String.init) ?? ""
                note.rest = parts.count > 1 ? String(parts[1]) : ""
            }
            kill(.inDidMigrate)
        }),
    ])
}

/// The child: migrates the store (a file, or a PostgreSQL schema: see
/// ``TortureStore``) through the stages, killing itself at `point`.
func stagedMigrateChild(store: String, point: StageKillPoint) throws {
    let die: @Sendable (StageKillPoint) -> Void = { reached in if reached == point { raise(SIGKILL) } }
    let replacements = Locked(0)
    let container = try PersistentContainer(name: "Notes", model: ManagedObjectModel(entities: [MigratingNoteV3.self]),
                                            location: try TortureStore.location(of: store), stagedMigration: noteStages(kill: die),
                                            migrationProgress: { progress in
        let stage = replacements.withLock { count -> Int in
            if progress.entity == nil { count += 1 }
            return count
        }
        switch (progress.entity, stage) {
        case (.some, 0): die(.copyingStage1)
        case (.some, 1): die(.copyingStage2)
        case (nil, 2): die(.afterStage2)
        default: break
        }
    })
    container.persistentStoreCoordinator.close()
}

/// Counts of a staged migration torture run.
struct StagedMigrationTortureTally {
    var kills = 0
    /// Kills after which the store was at version 1, 2 and 3.
    var atVersion = [0, 0, 0]
    /// Kills at each point.
    var byPoint: [StageKillPoint: Int] = [:]
    var finishedFirst = 0
    var rowsChecked = 0
}

/// Runs this executable with `arguments`; returns whether it died of SIGKILL (its own).
private func runUntilItDies(_ arguments: [String], role: String) throws -> Bool {
    let child = try startChild(arguments)
    child.waitUntilExit()
    if child.terminationReason == .uncaughtSignal && child.terminationStatus == SIGKILL { return true }
    guard child.terminationStatus == 0 else { throw WorkloadFailure("\(role) failed with status \(child.terminationStatus)") }
    return false
}

/// The parent: `kills` rounds, the kill points in turn (every sixth round a random moment).
/// With `postgres`, each round's store is a schema of its own in that database instead of a
/// file in `folder`.
func stagedMigrationTorture(kills: Int, folder: URL, seed: UInt64, rows: Int, maxDelayMilliseconds: Int,
                            postgres: URL? = nil) throws -> StagedMigrationTortureTally {
    try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
    let versions = try [MigratingNoteV1.self, MigratingNoteV2.self, MigratingNoteV3.self].map { try ManagedObjectModel(entities: [$0]) }
    var random = SplitMix(state: seed)
    var tally = StagedMigrationTortureTally()
    for round in 0..<kills {
        let store = try TortureStore(round: round, seed: seed, folder: folder, postgres: postgres)
        let storeURL = folder.appendingPathComponent("Notes-\(round).sqlite")
        try writeVersion1Notes(location: store.location, rows: rows)
        let point = StageKillPoint.allCases[round % StageKillPoint.allCases.count]
        let role = "round \(round): the child migrating through the stages (\(point))"
        let killed = point == .random
            ? try runAndKill(["staged-migrate", store.argument, point.rawValue], afterMilliseconds: 1 + random.below(maxDelayMilliseconds), role: role)
            : try runUntilItDies(["staged-migrate", store.argument, point.rawValue], role: role)
        if killed {
            tally.kills += 1
            tally.byPoint[point, default: 0] += 1
        } else if point == .random {
            tally.finishedFirst += 1
        } else {
            throw WorkloadFailure("\(role) finished without reaching its kill point")
        }

        if postgres == nil { try checkIntegrity(storeURL) }
        let at = try versions.indices.filter { try store.isAtVersion(versions[$0]) }
        guard at.count == 1 else { throw WorkloadFailure("round \(round): the store fits versions \(at.map { $0 + 1 }) after the kill at \(point): not wholly one version") }
        if killed {
            tally.atVersion[at[0]] += 1
            if let expected = point.expectedVersion, expected != at[0] + 1 {
                throw WorkloadFailure("round \(round): killed at \(point), the store is at version \(at[0] + 1), not \(expected)")
            }
        }
        let container = try PersistentContainer(name: "Notes", model: versions[2], location: store.location, stagedMigration: noteStages())
        let notes = try container.viewContext.fetch(FetchRequest<MigratingNoteV3>(sortDescriptors: [SortKey("number")]))
        guard notes.count == rows else { throw WorkloadFailure("round \(round): \(notes.count) notes after the migration, not \(rows)") }
        for (number, note) in notes.enumerated()
        where note.number != number || note.word != "note" || note.rest != "\(number)" || note.stars != number % 5 || note.pinned != (number % 7 == 0) {
            throw WorkloadFailure("round \(round): note \(number) reads \(note.number), \"\(note.word)\" \"\(note.rest)\", \(note.stars) stars, pinned \(note.pinned) after the migration")
        }
        tally.rowsChecked += notes.count
        if postgres != nil {
            try container.persistentStoreCoordinator.destroyStore()
            continue
        }
        container.persistentStoreCoordinator.close()
        try checkIntegrity(storeURL)
        try finishRound(round, storeURL: storeURL, folder: folder)
    }
    return tally
}
