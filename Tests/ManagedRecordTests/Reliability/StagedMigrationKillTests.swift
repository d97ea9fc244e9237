import Foundation
import XCTest

/// A short run of CrashWorkload's staged migration torture (docs/reliability.md; the long
/// run is there): a child migrating a store through a lightweight stage and a custom stage
/// dies at each point of each stage in turn — copying rows in stage 1, inside `willMigrate`,
/// copying rows in stage 2, inside `didMigrate`, right after stage 2 — and at random
/// moments. After every kill the store is wholly at the version the point implies, and
/// opening it with the stages gives every row at version 3.
final class StagedMigrationKillTests: XCTestCase {
    private var folder = URL(fileURLWithPath: "/nonexistent")

    override func setUpWithError() throws {
        folder = FileManager.default.temporaryDirectory.appendingPathComponent("StagedMigrationKillTests-\(UUID().uuidString)")
    }

    override func tearDownWithError() throws {
        try? FileManager.default.removeItem(at: folder)
    }

    func testAKillInEachStageLeavesTheStoreWhollyAtOneVersionAndTheNextOpenFinishes() throws {
        let outcome = try BuiltExecutable("CrashWorkload").run(["staged-migrate-torture", "12", folder.path, "3", "2000", "300"])
        XCTAssertEqual(outcome.status, 0, outcome.output)
        guard let line = outcome.output.split(separator: "\n").last(where: { $0.hasPrefix("staged-migrate-torture ok:") }) else {
            return XCTFail("no summary line: \(outcome.output)")
        }
        var counts: [String: Int] = [:]
        for pair in line.split(separator: " ") {
            let parts = pair.split(separator: "=")
            if parts.count == 2, let value = Int(parts[1]) { counts[String(parts[0])] = value }
        }
        for point in ["copyingStage1", "inWillMigrate", "copyingStage2", "inDidMigrate", "afterStage2"] {
            XCTAssertEqual(counts[point], 2, "two children died at \(point): \(line)")
        }
        XCTAssertGreaterThanOrEqual(counts["atVersion1"] ?? 0, 2, String(line))
        XCTAssertGreaterThanOrEqual(counts["atVersion2"] ?? 0, 6, String(line))
        XCTAssertGreaterThanOrEqual(counts["atVersion3"] ?? 0, 2, String(line))
        XCTAssertEqual(counts["rowsChecked"], 12 * 2000, String(line))
    }
}
