import CSQLite
import Foundation
import ManagedRecord

/// What the verifier found after a kill.
struct Verdict {
    /// The save whose state the store holds (-1: the empty store, before the first save).
    var state: Int
    /// The save was in flight when the process was killed: it committed without returning.
    var inFlight: Bool
    /// The kind of the save in flight when the process was killed ("change", "batch",
    /// "create"), or nil when it was killed between saves.
    var killedDuring: String?
    /// The store records persistent history, and it agreed with the rows (HistoryCheck.swift).
    var historyChecked = false
}

/// Checks the store at `storeURL` against `journal`: `PRAGMA integrity_check` is ok, the
/// store opens, every inverse agrees, the ledger's total is the sum, and the content equals
/// the state after the last save that committed or after the one in flight, nothing else.
func verify(storeURL: URL, journal: Journal) throws -> Verdict {
    let entries = journal.entries()
    let lastCommitted = entries.lastIndex(where: \.committed)
    let inFlight = entries.indices.last.flatMap { $0 != lastCommitted ? $0 : nil }
    let killedDuring = inFlight.map { entries[$0].kind }
    guard FileManager.default.fileExists(atPath: storeURL.path) else {
        // Killed before the first child created the store: right only if nothing committed.
        guard lastCommitted == nil else {
            throw WorkloadFailure("LOST: there is no store file, but save \(entries[lastCommitted!].number) committed")
        }
        return Verdict(state: -1, inFlight: false, killedDuring: killedDuring)
    }
    try checkIntegrity(storeURL)

    let session = try ExplicitSession(storeURL: storeURL)
    defer { session.container.persistentStoreCoordinator.close() }
    let historyChecked = try session.run { try verifyHistory(session.container, context: session.context) }
    let digest: String? = try session.run {
        try session.fetchGraph().map { try Mirror(graph: $0).digest }
    }
    guard let digest else {
        guard lastCommitted == nil else {
            throw WorkloadFailure("LOST: the store is empty, but save \(entries[lastCommitted!].number) committed")
        }
        return Verdict(state: -1, inFlight: false, killedDuring: killedDuring, historyChecked: historyChecked)
    }
    if let lastCommitted, entries[lastCommitted].digest == digest {
        return Verdict(state: entries[lastCommitted].number, inFlight: false, killedDuring: killedDuring, historyChecked: historyChecked)
    }
    if let inFlight, entries[inFlight].digest == digest {
        journal.append("found \(entries[inFlight].number)")
        return Verdict(state: entries[inFlight].number, inFlight: true, killedDuring: killedDuring, historyChecked: historyChecked)
    }
    if let older = entries.lastIndex(where: { $0.digest == digest }) {
        throw WorkloadFailure("LOST: the store holds the state of save \(entries[older].number), older than save \(lastCommitted.map { entries[$0].number } ?? -1), which committed")
    }
    throw WorkloadFailure("HALF-APPLIED: the store holds a state no save intended (neither save \(lastCommitted.map { entries[$0].number } ?? -1) nor the one in flight)")
}

/// Runs `PRAGMA integrity_check` on a connection of its own.
func checkIntegrity(_ url: URL) throws {
    var db: OpaquePointer?
    defer { sqlite3_close_v2(db) }
    guard sqlite3_open_v2(url.path, &db, SQLITE_OPEN_READWRITE, nil) == SQLITE_OK else {
        throw WorkloadFailure("cannot open \(url.path) for the integrity check: \(String(cString: sqlite3_errmsg(db)))")
    }
    var statement: OpaquePointer?
    defer { sqlite3_finalize(statement) }
    guard sqlite3_prepare_v2(db, "PRAGMA integrity_check", -1, &statement, nil) == SQLITE_OK,
          sqlite3_step(statement) == SQLITE_ROW, let text = sqlite3_column_text(statement, 0) else {
        throw WorkloadFailure("PRAGMA integrity_check did not run: \(String(cString: sqlite3_errmsg(db)))")
    }
    let result = String(cString: text)
    guard result == "ok" else { throw WorkloadFailure("PRAGMA integrity_check: \(result)") }
}
