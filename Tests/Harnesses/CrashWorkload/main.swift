// The crash-safety workload (docs/reliability.md). One executable, three roles:
//
//   CrashWorkload run <explicit|helpers> <store> <journal> <seed> [saves]
//       commits in a loop (forever, or `saves` times), journaling each save (fsync'd).
//   CrashWorkload verify <store> <journal>
//       checks the store after a kill: integrity, inverses, the ledger invariant, and that
//       its content is the state of the last committed save or of the one in flight.
//   CrashWorkload torture <kills> <folder> [seed] [max delay ms] [history]
//       the parent: starts children, SIGKILLs each at a random moment, verifies after each;
//       with `history`, on a store that records persistent history, which is checked too.
//   CrashWorkload migrate-torture <kills> <folder> [seed] [rows] [max delay ms]
//       the same for a lightweight migration: a child migrates a store, the parent kills
//       it and checks the store is wholly one version and migrates with every row.
//   CrashWorkload staged-migrate-torture <kills> <folder> [seed] [rows] [max delay ms] [postgres URL]
//       the same for a staged migration (a lightweight stage, then a custom one): each
//       round's child dies at one point of a stage in turn (or at a random moment); the
//       store must be wholly at the version that point implies (StagedMigrationTorture.swift).
//       With a PostgreSQL URL, each round's store is a schema of that database, migrated in
//       one transaction per stage (StagedMigrationTorture+Postgres.swift).
//   CrashWorkload backup-torture <kills> <folder> [seed] [rows] [max delay ms]
//       the same for an online backup: a child backs a store up, the parent kills it and
//       checks the store is untouched and the copy complete or absent (BackupTorture.swift).
//   CrashWorkload backup-under-writer <backups> <folder> [seed]
//       backups taken while a `run` child commits: each holds a state the writer committed.
//   CrashWorkload migrate-and-add <store> <number>
//       opens a version 1 store with version 2 (migrating it, or waiting for another
//       process's migration) and saves one more note numbered <number> (ConcurrentMigrationTests).
//
// Prints one line of counts and exits 0 when every check held; prints what broke and exits
// 1 otherwise. CrashSafetyTests and .ci/run run a short torture; docs/reliability.md has
// the long one.
import Foundation

let arguments = Array(CommandLine.arguments.dropFirst())

func usage() -> Never {
    FileHandle.standardError.write(Data("""
        usage: CrashWorkload run <explicit|helpers> <store> <journal> <seed> [saves]
               CrashWorkload verify <store> <journal>
               CrashWorkload torture <kills> <folder> [seed] [max delay ms] [history]
               CrashWorkload migrate-torture <kills> <folder> [seed] [rows] [max delay ms]
               CrashWorkload staged-migrate-torture <kills> <folder> [seed] [rows] [max delay ms] [postgres URL]
               CrashWorkload backup-torture <kills> <folder> [seed] [rows] [max delay ms]
               CrashWorkload backup-under-writer <backups> <folder> [seed]
               CrashWorkload migrate-and-add <store> <number>

        """.utf8))
    exit(2)
}

do {
    switch arguments.first {
    case "run" where arguments.count >= 5:
        let store = URL(fileURLWithPath: arguments[2])
        let session: Session = arguments[1] == "helpers" ? try HelperSession(storeURL: store) : try ExplicitSession(storeURL: store)
        try Workload(session: session, journal: Journal(url: URL(fileURLWithPath: arguments[3])),
                     seed: UInt64(arguments[4]) ?? 1).run(saves: arguments.count > 5 ? Int(arguments[5]) : nil)
        print("run ok")
    case "verify" where arguments.count == 3:
        let verdict = try verify(storeURL: URL(fileURLWithPath: arguments[1]), journal: Journal(url: URL(fileURLWithPath: arguments[2])))
        print("verify ok: state of save \(verdict.state)\(verdict.inFlight ? " (in flight, committed)" : "")")
    case "torture" where arguments.count >= 3:
        guard let kills = Int(arguments[1]) else { usage() }
        let seed = arguments.count > 3 ? UInt64(arguments[3]) ?? 1 : 1
        let delay = arguments.count > 4 ? Int(arguments[4]) ?? 300 : 300
        let history = arguments.count > 5 && arguments[5] == "history"
        let tally = try torture(kills: kills, folder: URL(fileURLWithPath: arguments[2]), seed: seed, maxDelayMilliseconds: delay, history: history)
        print("torture ok: kills=\(tally.kills) historyChecked=\(tally.historyChecked) explicit=\(tally.killsByMode["explicit"] ?? 0) helpers=\(tally.killsByMode["helpers"] ?? 0) midSave=\(tally.killsMidSave) duringBatchDelete=\(tally.killsDuringBatchDelete) inFlightCommitted=\(tally.inFlightCommitted) savesReturned=\(tally.savesReturned) storesVerified=\(tally.verified) lost=0 halfApplied=0")
    case "migrate" where arguments.count == 2:
        try migrateChild(storeURL: URL(fileURLWithPath: arguments[1]))
    case "migrate-and-add" where arguments.count == 3:
        guard let number = Int(arguments[2]) else { usage() }
        try migrateAndAdd(storeURL: URL(fileURLWithPath: arguments[1]), number: number)
        print("migrate-and-add ok")
    case "migrate-torture" where arguments.count >= 3:
        guard let kills = Int(arguments[1]) else { usage() }
        let seed = arguments.count > 3 ? UInt64(arguments[3]) ?? 1 : 1
        let rows = arguments.count > 4 ? Int(arguments[4]) ?? 20_000 : 20_000
        let delay = arguments.count > 5 ? Int(arguments[5]) ?? 400 : 400
        let tally = try migrationTorture(kills: kills, folder: URL(fileURLWithPath: arguments[2]), seed: seed, rows: rows, maxDelayMilliseconds: delay)
        print("migrate-torture ok: kills=\(tally.kills) stillVersion1=\(tally.killedBeforeReplacement) alreadyVersion2=\(tally.killedAfterReplacement) finishedBeforeKill=\(tally.finishedFirst) rowsChecked=\(tally.rowsChecked) lost=0 halfMigrated=0")
    case "staged-migrate" where arguments.count == 3:
        guard let point = StageKillPoint(rawValue: arguments[2]) else { usage() }
        try stagedMigrateChild(store: arguments[1], point: point)
    case "staged-migrate-torture" where arguments.count >= 3:
        guard let kills = Int(arguments[1]) else { usage() }
        let seed = arguments.count > 3 ? UInt64(arguments[3]) ?? 1 : 1
        let rows = arguments.count > 4 ? Int(arguments[4]) ?? 5_000 : 5_000
        let delay = arguments.count > 5 ? Int(arguments[5]) ?? 400 : 400
        let postgres = arguments.count > 6 ? URL(string: arguments[6]) : nil
        let tally = try stagedMigrationTorture(kills: kills, folder: URL(fileURLWithPath: arguments[2]), seed: seed, rows: rows, maxDelayMilliseconds: delay,
                                               postgres: postgres)
        let points = StageKillPoint.allCases.map { "\($0.rawValue)=\(tally.byPoint[$0] ?? 0)" }.joined(separator: " ")
        print("staged-migrate-torture ok: store=\(postgres == nil ? "sqlite" : "postgres") kills=\(tally.kills) \(points) atVersion1=\(tally.atVersion[0]) atVersion2=\(tally.atVersion[1]) atVersion3=\(tally.atVersion[2]) finishedBeforeKill=\(tally.finishedFirst) rowsChecked=\(tally.rowsChecked) lost=0 halfMigrated=0")
    case "backup" where arguments.count == 4:
        try backupChild(storeURL: URL(fileURLWithPath: arguments[1]), copyURL: URL(fileURLWithPath: arguments[2]), pause: UInt32(arguments[3]) ?? 0)
    case "backup-torture" where arguments.count >= 3:
        guard let kills = Int(arguments[1]) else { usage() }
        let seed = arguments.count > 3 ? UInt64(arguments[3]) ?? 1 : 1
        let rows = arguments.count > 4 ? Int(arguments[4]) ?? 20_000 : 20_000
        let delay = arguments.count > 5 ? Int(arguments[5]) ?? 300 : 300
        let tally = try backupTorture(kills: kills, folder: URL(fileURLWithPath: arguments[2]), seed: seed, rows: rows, maxDelayMilliseconds: delay)
        print("backup-torture ok: kills=\(tally.kills) copyComplete=\(tally.copyComplete) copyAbsent=\(tally.copyAbsent) temporariesRemoved=\(tally.temporariesRemoved) finishedBeforeKill=\(tally.finishedFirst) storeChanged=0 halfWritten=0")
    case "backup-under-writer" where arguments.count >= 3:
        guard let backups = Int(arguments[1]) else { usage() }
        let seed = arguments.count > 3 ? UInt64(arguments[3]) ?? 1 : 1
        let tally = try backupUnderWriter(backups: backups, folder: URL(fileURLWithPath: arguments[2]), seed: seed)
        print("backup-under-writer ok: backups=\(tally.backups) states=\(tally.states.map(String.init).joined(separator: ",")) savesDuringBackups=\(tally.savesDuringBackups) notCommitted=0 stale=0")
    default:
        usage()
    }
} catch {
    print("FAILED: \(error)")
    exit(1)
}
