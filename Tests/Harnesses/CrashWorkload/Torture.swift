import Foundation

/// Counts of a torture run.
struct TortureTally {
    var kills = 0
    var killsMidSave = 0
    var killsDuringBatchDelete = 0
    var killsByMode: [String: Int] = [:]
    var savesReturned = 0
    var inFlightCommitted = 0
    var verified = 0
    /// Verifications that found the persistent history consistent with the rows.
    var historyChecked = 0
}

/// The parent: starts `run` children on one store, alternating explicit contexts and the
/// class-level helpers, kills each with SIGKILL after a random delay, and verifies the store
/// after every kill. Stops at the first failure with what was found.
func torture(kills: Int, folder: URL, seed: UInt64, maxDelayMilliseconds: Int, history: Bool = false) throws -> TortureTally {
    try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
    let storeURL = folder.appendingPathComponent("Crash.sqlite")
    if history { try createHistoryStore(storeURL) }
    let journal = Journal(url: folder.appendingPathComponent("journal.txt"))
    let log = folder.appendingPathComponent("child.log")
    let me = URL(fileURLWithPath: CommandLine.arguments[0])
    var random = SplitMix(state: seed)
    var tally = TortureTally()
    for round in 0..<kills {
        let mode = round % 2 == 0 ? "explicit" : "helpers"
        _ = FileManager.default.createFile(atPath: log.path, contents: nil)
        let child = Process()
        child.executableURL = me
        child.arguments = ["run", mode, storeURL.path, journal.url.path, String(seed &+ UInt64(round))]
        child.standardOutput = try FileHandle(forWritingTo: log)
        child.standardError = child.standardOutput
        var environment = ProcessInfo.processInfo.environment
        environment["SWIFT_BACKTRACE"] = "enable=no"
        child.environment = environment
        let journalSize = fileSize(journal.url)
        try child.run()
        // Nine kills of ten land in the save loop: wait for the child's first journal line
        // (however slowly it starts on a busy machine), then a random delay. The tenth lands
        // anywhere from start-up on (opening the store, recovering the WAL).
        if round % 10 != 0 {
            let deadline = Date().addingTimeInterval(30)
            while fileSize(journal.url) == journalSize && child.isRunning && Date() < deadline { usleep(1_000) }
        }
        usleep(UInt32(1_000 * (1 + random.below(maxDelayMilliseconds))))
        guard child.isRunning else {
            child.waitUntilExit()
            throw WorkloadFailure("the \(mode) child ended by itself (status \(child.terminationStatus)) before the kill:\n\((try? String(contentsOf: log, encoding: .utf8)) ?? "")")
        }
        kill(child.processIdentifier, SIGKILL)
        child.waitUntilExit()
        tally.kills += 1
        tally.killsByMode[mode, default: 0] += 1

        let verdict = try verify(storeURL: storeURL, journal: journal)
        tally.verified += 1
        if verdict.historyChecked { tally.historyChecked += 1 }
        if let kind = verdict.killedDuring {
            tally.killsMidSave += 1
            if kind == "batch" { tally.killsDuringBatchDelete += 1 }
        }
        if verdict.inFlight { tally.inFlightCommitted += 1 }
    }
    tally.savesReturned = journal.entries().filter(\.returned).count
    return tally
}

/// The size of the file at `url`, or 0 when it does not exist.
private func fileSize(_ url: URL) -> Int {
    (try? FileManager.default.attributesOfItem(atPath: url.path)[.size] as? Int) ?? 0
}
