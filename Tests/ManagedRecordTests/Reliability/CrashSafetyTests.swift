import Foundation
import XCTest

/// A short run of the crash-safety harness (the long run is in docs/reliability.md):
/// CrashWorkload's children commit in a loop through explicit contexts and through the
/// class-level helpers, a parent kills each with SIGKILL at a random moment, and after every
/// kill the store passes `PRAGMA integrity_check`, every inverse agrees, the ledger's total is
/// the sum of the amounts, and the content is exactly the last committed save or the one in
/// flight.
final class CrashSafetyTests: XCTestCase {
    private var folder = URL(fileURLWithPath: "/nonexistent")

    override func setUpWithError() throws {
        folder = FileManager.default.temporaryDirectory.appendingPathComponent("CrashSafetyTests-\(UUID().uuidString)")
    }

    override func tearDownWithError() throws {
        try? FileManager.default.removeItem(at: folder)
    }

    func testEveryKillLeavesTheStoreAtTheLastCommittedSaveOrTheOneInFlight() throws {
        let outcome = try BuiltExecutable("CrashWorkload").run(["torture", "40", folder.path, "16", "250"])
        XCTAssertEqual(outcome.status, 0, outcome.output)
        let counts = Self.counts(outcome.output)
        XCTAssertEqual(counts["kills"], 40, outcome.output)
        XCTAssertEqual(counts["explicit"], 20, outcome.output)
        XCTAssertEqual(counts["helpers"], 20, outcome.output)
        XCTAssertEqual(counts["storesVerified"], 40, outcome.output)
        XCTAssertGreaterThan(counts["midSave"] ?? 0, 0, "some kills landed inside a save: \(outcome.output)")
        XCTAssertGreaterThan(counts["savesReturned"] ?? 0, 40, "the children got real work done: \(outcome.output)")
    }

    func testTheVerifierNoticesAStoreThatLostACommittedSave() throws {
        // A finite run, then the store is put back to an older copy: the verifier must say LOST.
        let workload = try BuiltExecutable("CrashWorkload")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        let store = folder.appendingPathComponent("Crash.sqlite").path
        let journal = folder.appendingPathComponent("journal.txt").path
        XCTAssertEqual(try workload.run(["run", "explicit", store, journal, "3", "5"]).status, 0)
        let older = folder.appendingPathComponent("older")
        try FileManager.default.createDirectory(at: older, withIntermediateDirectories: true)
        for suffix in ["", "-wal", "-shm"] where FileManager.default.fileExists(atPath: store + suffix) {
            try FileManager.default.copyItem(atPath: store + suffix, toPath: older.path + "/Crash.sqlite" + suffix)
        }
        XCTAssertEqual(try workload.run(["verify", store, journal]).status, 0)
        XCTAssertEqual(try workload.run(["run", "helpers", store, journal, "4", "5"]).status, 0)
        for suffix in ["", "-wal", "-shm"] {
            try? FileManager.default.removeItem(atPath: store + suffix)
            if FileManager.default.fileExists(atPath: older.path + "/Crash.sqlite" + suffix) {
                try FileManager.default.copyItem(atPath: older.path + "/Crash.sqlite" + suffix, toPath: store + suffix)
            }
        }
        let outcome = try workload.run(["verify", store, journal])
        XCTAssertEqual(outcome.status, 1, outcome.output)
        XCTAssertTrue(outcome.output.contains("LOST"), outcome.output)
    }

    /// `key=value` pairs of the harness's summary line.
    private static func counts(_ output: String) -> [String: Int] {
        guard let line = output.split(separator: "\n").last(where: { $0.hasPrefix("torture ok:") }) else { return [:] }
        var counts: [String: Int] = [:]
        for pair in line.split(separator: " ") {
            let parts = pair.split(separator: "=")
            if parts.count == 2, let value = Int(parts[1]) { counts[String(parts[0])] = value }
        }
        return counts
    }
}
