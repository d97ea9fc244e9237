import Foundation
import XCTest

/// Short runs of CrashWorkload's backup modes (docs/reliability.md, "Kills during a
/// backup"; the long runs are there): a child backing a store up is killed at random
/// moments, and backups are taken from this side while a writer process commits.
final class BackupKillTests: XCTestCase {
    private var folder = URL(fileURLWithPath: "/nonexistent")

    override func setUpWithError() throws {
        folder = FileManager.default.temporaryDirectory.appendingPathComponent("BackupKillTests-\(UUID().uuidString)")
    }

    override func tearDownWithError() throws {
        try? FileManager.default.removeItem(at: folder)
    }

    /// After every kill the store is byte for byte as it was and the copy complete or absent.
    func testAKilledBackupLeavesTheCopyCompleteOrAbsentAndTheStoreUntouched() throws {
        let outcome = try BuiltExecutable("CrashWorkload").run(["backup-torture", "16", folder.path, "5", "20000", "250"])
        XCTAssertEqual(outcome.status, 0, outcome.output)
        let counts = Self.counts(outcome.output, "backup-torture ok:")
        XCTAssertEqual((counts["kills"] ?? 0) + (counts["finishedBeforeKill"] ?? 0), 16, outcome.output)
        XCTAssertEqual((counts["copyComplete"] ?? 0) + (counts["copyAbsent"] ?? 0), 16, outcome.output)
        XCTAssertGreaterThan(counts["kills"] ?? 0, 0, "some children were killed mid-backup: \(outcome.output)")
    }

    /// Backups from this side of a writer process each hold a state the writer committed.
    func testBackupsUnderAWriterProcessHoldCommittedStates() throws {
        let outcome = try BuiltExecutable("CrashWorkload").run(["backup-under-writer", "6", folder.path, "9"])
        XCTAssertEqual(outcome.status, 0, outcome.output)
        let counts = Self.counts(outcome.output, "backup-under-writer ok:")
        XCTAssertEqual(counts["backups"], 6, outcome.output)
        XCTAssertGreaterThan(counts["savesDuringBackups"] ?? 0, 0, "the writer committed while backups ran: \(outcome.output)")
    }

    /// `key=value` pairs (integers) of the summary line that starts with `prefix`.
    private static func counts(_ output: String, _ prefix: String) -> [String: Int] {
        guard let line = output.split(separator: "\n").last(where: { $0.hasPrefix(prefix) }) else { return [:] }
        var counts: [String: Int] = [:]
        for pair in line.split(separator: " ") {
            let parts = pair.split(separator: "=")
            if parts.count == 2, let value = Int(parts[1]) { counts[String(parts[0])] = value }
        }
        return counts
    }
}
