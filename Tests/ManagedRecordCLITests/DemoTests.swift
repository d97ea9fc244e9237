import Foundation
import XCTest

/// The Demo, run as `swift run Demo` runs it: every section checks what it prints and
/// stops with a non-zero status when a result is wrong.
final class DemoTests: XCTestCase {
    func testEverySectionRunsAndPassesItsChecksAndTheFolderIsRemoved() throws {
        let run = try CommandLineRun.run("Demo", [])
        XCTAssertEqual(run.status, 0, run.stdout + run.stderr)
        for name in ["model", "fetch", "aggregates", "contexts", "active-record", "async", "apple", "json", "observation", "migration",
                     "history", "backup", "staged", "postgres"] {
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

    func testTheHistorySectionHearsItsOtherProcessesCommitAlone() throws {
        let run = try runAlone("history")
        XCTAssertTrue(run.stdout.contains("(commit stream) (another process): inserted 1, updated 1, deleted 0"), run.stdout)
        XCTAssertTrue(run.stdout.contains("transaction 2: author demo-child, process "), run.stdout)
        XCTAssertTrue(run.stdout.contains("$ swift run managedrecord history "), run.stdout)
    }

    func testTheBackupSectionRestoresTheStateOfTheBackupAlone() throws {
        let run = try runAlone("backup")
        XCTAssertTrue(run.stdout.contains("StoreError .locked"), run.stdout)
        XCTAssertTrue(run.stdout.contains("$ swift run managedrecord restore "), run.stdout)
    }

    func testTheStagedSectionForecastsThenMigratesAlone() throws {
        let run = try runAlone("staged")
        XCTAssertTrue(run.stdout.contains("would not convert: Contact.visits of the row with Z_PK 3: \"lots\""), run.stdout)
        XCTAssertTrue(run.stdout.contains("Grace | Hopper | 555-0103 | visits 0"), run.stdout)
    }

    /// With a server at hand (MANAGEDRECORD_POSTGRES_URL, or Debian's programs, which the
    /// section starts and stops) the section runs its checks; without, it says why it skips.
    func testThePostgresSectionRunsOrSaysWhyItSkipsAlone() throws {
        let run = try runAlone("postgres")
        let serverAtHand = ProcessInfo.processInfo.environment["MANAGEDRECORD_POSTGRES_URL"].map { !$0.isEmpty } ?? false
            || ((try? FileManager.default.contentsOfDirectory(atPath: "/usr/lib/postgresql")) ?? [])
                .contains { FileManager.default.isExecutableFile(atPath: "/usr/lib/postgresql/\($0)/bin/initdb") }
        if serverAtHand {
            XCTAssertTrue(run.stdout.contains("B's fetched results, untouched: [\"Ann Lee\", \"Bob Moss\"]"), run.stdout)
            XCTAssertTrue(run.stdout.contains("destroyStore(): the demo's schema is dropped"), run.stdout)
        } else {
            XCTAssertTrue(run.stdout.contains("skipped: MANAGEDRECORD_POSTGRES_URL is not set"), run.stdout)
        }
        if run.stdout.contains("initdb: a throwaway cluster in ") {
            XCTAssertTrue(run.stdout.contains("pg_ctl stop: the throwaway server is stopped and its folder removed"), run.stdout)
        }
    }

    /// Runs one section alone: exit status 0, that section only, every check passed, its
    /// `managedrecord` line printed, the folder removed.
    private func runAlone(_ name: String, file: StaticString = #filePath, line: UInt = #line) throws -> CommandLineRun {
        let run = try CommandLineRun.run("Demo", [name])
        XCTAssertEqual(run.status, 0, run.stdout + run.stderr, file: file, line: line)
        XCTAssertTrue(run.stdout.contains("\n== \(name): "), run.stdout, file: file, line: line)
        XCTAssertTrue(run.stdout.contains("Done: 1 section (\(name)), every check passed."), run.stdout, file: file, line: line)
        XCTAssertFalse(run.stdout.contains("!! "), run.stdout, file: file, line: line)
        XCTAssertTrue(run.stdout.contains("   $ swift run managedrecord "), run.stdout, file: file, line: line)
        let folder = try XCTUnwrap(Self.folder(in: run.stdout), file: file, line: line)
        XCTAssertFalse(FileManager.default.fileExists(atPath: folder), "the temporary folder is removed", file: file, line: line)
        return run
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
