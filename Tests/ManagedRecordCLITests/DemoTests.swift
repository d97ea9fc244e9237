import Foundation
import XCTest

/// The Demo, run as `swift run Demo` runs it: every section checks what it prints and
/// stops with a non-zero status when a result is wrong.
final class DemoTests: XCTestCase {
    func testEverySectionRunsAndPassesItsChecksAndTheFolderIsRemoved() throws {
        let run = try CommandLineRun.run("Demo", [])
        XCTAssertEqual(run.status, 0, run.stdout + run.stderr)
        for name in ["model", "fetch", "aggregates", "contexts", "active-record", "async", "apple", "json"] {
            XCTAssertTrue(run.stdout.contains("\n== \(name): "), "section \(name) did not run:\n\(run.stdout)")
        }
        XCTAssertFalse(run.stdout.contains("!! expectation failed"), run.stdout)
        XCTAssertTrue(run.stdout.contains("$ swift run managedrecord fetch "), run.stdout)
        let folder = try XCTUnwrap(Self.folder(in: run.stdout))
        XCTAssertTrue(run.stdout.contains("Removed \(folder)"), run.stdout)
        XCTAssertFalse(FileManager.default.fileExists(atPath: folder), "the temporary folder is removed")
    }

    func testOneSectionRunsAloneAndKeepKeepsTheFolder() throws {
        let run = try CommandLineRun.run("Demo", ["json", "--keep"])
        XCTAssertEqual(run.status, 0, run.stdout + run.stderr)
        XCTAssertTrue(run.stdout.contains("\n== json: "), run.stdout)
        XCTAssertFalse(run.stdout.contains("\n== fetch: "), run.stdout)
        XCTAssertTrue(run.stdout.contains("Done: 1 section (json), every check passed."), run.stdout)
        let folder = try XCTUnwrap(Self.folder(in: run.stdout))
        XCTAssertTrue(FileManager.default.fileExists(atPath: folder + "/CompanyCopy.sqlite"), "--keep keeps the stores")
        try FileManager.default.removeItem(atPath: folder)
    }

    func testSectionsNamedTwiceOrOutOfOrderRunOnceInTheToursOrder() throws {
        let run = try CommandLineRun.run("Demo", ["apple", "fetch", "model", "apple"])
        XCTAssertEqual(run.status, 0, run.stdout + run.stderr)
        XCTAssertTrue(run.stdout.contains("Done: 3 sections (model, fetch, apple), every check passed."), run.stdout)
    }

    func testAnUnknownSectionListsTheSectionsAndExitsNonZero() throws {
        let run = try CommandLineRun.run("Demo", ["migrations-please"])
        XCTAssertEqual(run.status, 2)
        XCTAssertTrue(run.stderr.contains("no section \"migrations-please\"; the sections: model, fetch,"), run.stderr)
    }

    /// The folder the demo says it uses.
    private static func folder(in output: String) -> String? {
        output.split(separator: "\n").first { $0.hasPrefix("Stores go in ") }.map { String($0.dropFirst("Stores go in ".count)) }
    }
}
