import Foundation
import XCTest

/// The crash-safety harness on a store that records persistent history: after every SIGKILL
/// (in a save, a batch delete, or anywhere else) the store is the last committed save or the
/// one in flight, as without history, and its history agrees with it: every transaction has
/// its changes, every change its transaction, and replaying the history's inserts and
/// deletes gives exactly the objects the store holds (no save without its history, no
/// history without its save).
final class HistoryCrashSafetyTests: XCTestCase {
    private var folder = URL(fileURLWithPath: "/nonexistent")

    override func setUpWithError() throws {
        folder = FileManager.default.temporaryDirectory.appendingPathComponent("HistoryCrashSafetyTests-\(UUID().uuidString)")
    }

    override func tearDownWithError() throws {
        try? FileManager.default.removeItem(at: folder)
    }

    func testEveryKillLeavesTheHistoryInStepWithTheRows() throws {
        let outcome = try BuiltExecutable("CrashWorkload").run(["torture", "16", folder.path, "26", "250", "history"])
        XCTAssertEqual(outcome.status, 0, outcome.output)
        let line = outcome.output.split(separator: "\n").last { $0.hasPrefix("torture ok:") }.map(String.init) ?? ""
        XCTAssertTrue(line.contains("kills=16 historyChecked=16 "), outcome.output)
        XCTAssertTrue(line.contains("storesVerified=16"), outcome.output)
        XCTAssertFalse(line.contains("midSave=0 "), "some kills landed inside a save: \(outcome.output)")
    }

    func testTheVerifierNoticesAChangeWithoutItsSave() throws {
        let sqlite = URL(fileURLWithPath: "/usr/bin/sqlite3")
        try XCTSkipUnless(FileManager.default.isExecutableFile(atPath: sqlite.path), "the sqlite3 shell edits the store behind the library's back")
        let workload = try BuiltExecutable("CrashWorkload")
        // A short torture creates the store with history; then a finite run, verified.
        XCTAssertEqual(try workload.run(["torture", "1", folder.path, "5", "100", "history"]).status, 0)
        let store = folder.appendingPathComponent("Crash.sqlite").path
        let journal = folder.appendingPathComponent("journal.txt").path
        XCTAssertEqual(try workload.run(["run", "explicit", store, journal, "8", "5"]).status, 0)
        XCTAssertEqual(try workload.run(["verify", store, journal]).status, 0)
        // An insert recorded for an object the store does not hold.
        let edit = Process()
        edit.executableURL = sqlite
        edit.arguments = [store, "INSERT INTO ACHANGE (Z_ENT, ZCHANGETYPE, ZENTITY, ZENTITYPK, ZTRANSACTIONID) SELECT 16001, 0, ZENTITY, 999999, MAX(ZTRANSACTIONID) FROM ACHANGE"]
        try edit.run()
        edit.waitUntilExit()
        XCTAssertEqual(edit.terminationStatus, 0)
        let outcome = try workload.run(["verify", store, journal])
        XCTAssertEqual(outcome.status, 1, outcome.output)
        XCTAssertTrue(outcome.output.contains("HISTORY: the history's objects are not the store's"), outcome.output)
    }
}
