import Foundation
import XCTest

/// Every confinement stop, each in a process of its own (`ConfinementProbe`): the process
/// must stop — never carry on into a data race or a silent loss — and say why.
final class ConfinementStopTests: XCTestCase {
    private func assertStops(_ scenario: String, saying message: String, file: StaticString = #filePath, line: UInt = #line) throws {
        let outcome = try BuiltExecutable("ConfinementProbe").run([scenario])
        XCTAssertTrue(outcome.stoppedBySignal, "\(scenario) did not stop (status \(outcome.status)):\n\(outcome.output)", file: file, line: line)
        XCTAssertTrue(outcome.output.contains("Fatal error: ManagedRecord: "), "\(scenario): no ManagedRecord message:\n\(outcome.output)", file: file, line: line)
        XCTAssertTrue(outcome.output.contains(message), "\(scenario) said:\n\(outcome.output)", file: file, line: line)
        XCTAssertFalse(outcome.output.contains("probe ok"), "\(scenario) ran past the misuse", file: file, line: line)
    }

    /// A stopped probe cannot remove its store's folder; the run's own `TMPDIR` goes with
    /// it. (Each `swift test` used to leave ten `ConfinementProbe-…` folders in /tmp.)
    func testAStoppedProbeLeavesNoFolderBehind() throws {
        let temporary = FileManager.default.temporaryDirectory
        func probeFolders() throws -> Set<String> {
            Set(try FileManager.default.contentsOfDirectory(atPath: temporary.path).filter { $0.hasPrefix("ConfinementProbe") })
        }
        let before = try probeFolders()
        try assertStops("wrong-thread", saying: "is confined to the thread that created it")
        XCTAssertEqual(try probeFolders().subtracting(before), [], "the stopped probe left its folder in \(temporary.path)")
    }

    func testTheProbeRunsCorrectUseToTheEnd() throws {
        let outcome = try BuiltExecutable("ConfinementProbe").run(["ok"])
        XCTAssertEqual(outcome.status, 0, outcome.output)
        XCTAssertTrue(outcome.output.contains("probe ok"), outcome.output)
    }

    func testAConfinedContextUsedFromAnotherThreadStops() throws {
        try assertStops("wrong-thread", saying: "is confined to the thread that created it")
    }

    func testTheViewContextUsedFromADetachedTaskStops() throws {
        try assertStops("main-queue-elsewhere", saying: "belongs to the main queue")
    }

    func testAPrivateQueueContextUsedOutsidePerformStops() throws {
        try assertStops("private-outside-perform", saying: "is a private-queue context; use it only inside perform")
    }

    func testAContextUsedWhileAnotherThreadRunsAPerformBlockStops() throws {
        try assertStops("during-perform", saying: "while another thread runs a perform block on it")
    }

    func testATaskBoundContextUsedFromAnotherTaskStops() throws {
        try assertStops("wrong-task", saying: "is bound to one task and was used from another")
    }

    func testATaskBoundContextUsedFromAChildTaskStops() throws {
        try assertStops("child-task", saying: "a child task (async let, a task group, Task { }) is a task of its own")
    }

    func testTheContextOfManagedRecordPerformUsedFromAChildTaskStops() throws {
        try assertStops("record-child-task", saying: "context 'Probe.task' is bound to one task and was used from another")
    }

    func testPerformFromAnotherTaskOnATaskBoundContextStops() throws {
        try assertStops("perform-on-bound", saying: "is bound to one task and was used from another")
    }

    func testChangingAnObjectReturnedByPerformStopsInsteadOfLosingTheChange() throws {
        try assertStops("detached-write", saying: "cannot change name of Item")
    }

    func testReadingAFaultWhoseContextWasResetStops() throws {
        try assertStops("detached-fault", saying: "belongs to no context any more")
    }
}
