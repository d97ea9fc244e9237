import Foundation
import XCTest

/// delete (asks unless --yes, prints how many) and check on a store written here.
final class CLIWriteTests: XCTestCase {
    var store = ""

    override func setUpWithError() throws {
        store = try CLITestStores.company(in: CLITestStores.folder()).path
    }

    func testDeleteAsksAndAnAnswerOtherThanYesDeletesNothing() throws {
        let before = CLITestStores.bytes(of: URL(fileURLWithPath: store))
        // On a terminal (a pipe is refused without --yes: CLIConventionsTests).
        let run = try CommandLineRun.onTerminal(["delete", store, "Employee", "--where", "age > 40"], input: "n\n")
        XCTAssertEqual(run.status, 1)
        XCTAssertTrue(run.stdout.contains("Delete 3 Employee objects matching age > 40"), run.stdout)
        XCTAssertTrue(run.stdout.contains("nothing deleted"), run.stdout)
        XCTAssertEqual(try CommandLineRun.tool("count", store, "Employee").succeeded(), "5\n")
        XCTAssertEqual(CLITestStores.bytes(of: URL(fileURLWithPath: store))[""], before[""])
    }

    func testDeleteWithYesOrAConfirmationDeletesAndSaysHowMany() throws {
        XCTAssertEqual(try CommandLineRun.tool("delete", store, "Employee", "--where", "age > 50", "--yes").succeeded(), "deleted 2 Employee objects\n")
        let confirmed = try CommandLineRun.onTerminal(["delete", store, "Employee", "--where", "age < 30"], input: "y\n")
        XCTAssertEqual(confirmed.status, 0, confirmed.stdout)
        XCTAssertTrue(confirmed.stdout.hasSuffix("deleted 1 Employee object\r\n"), confirmed.stdout.debugDescription)
        XCTAssertEqual(try CommandLineRun.tool("count", store, "Employee").succeeded(), "2\n")
    }

    func testDeleteNeedsWhereOrAll() throws {
        let run = try CommandLineRun.tool("delete", store, "Employee")
        XCTAssertNotEqual(run.status, 0)
        XCTAssertTrue(run.stderr.contains("--where"), run.stderr)
        XCTAssertEqual(try CommandLineRun.tool("delete", store, "Department", "--all", "--yes").succeeded(), "deleted 2 Department objects\n")
        XCTAssertEqual(try CommandLineRun.tool("count", store, "Employee").succeeded(), "0\n", "the cascade rule deleted the employees")
    }

    /// `--where "$FILTER"` with FILTER unset is an empty predicate: it used to delete every object.
    func testDeleteWithAnEmptyOrBlankWhereIsRefusedAndDeletesNothing() throws {
        for predicate in ["", "   ", "\n\t"] {
            let run = try CommandLineRun.tool("delete", store, "Employee", "--where", predicate, "--yes")
            XCTAssertNotEqual(run.status, 0, "--where \(predicate.debugDescription)")
            XCTAssertTrue(run.stderr.contains("--where is empty"), run.stderr)
            XCTAssertTrue(run.stderr.contains("--all"), run.stderr)
        }
        XCTAssertEqual(try CommandLineRun.tool("count", store, "Employee").succeeded(), "5\n", "nothing was deleted")
    }

    func testCheckFindsAStoreWrittenHereInOrderWithItsOwnModel() throws {
        XCTAssertEqual(try CommandLineRun.tool("check", store).succeeded(), """
        integrity: ok
        layout: ok
        model: the model kept in the store; the store's own model agrees with its version hashes
        version hashes: match
        migration: not needed
        ok

        """)
    }

    func testCheckReportsACorruptFileAndExitsNonZero() throws {
        var data = try Data(contentsOf: URL(fileURLWithPath: store))
        // Overwrite the cells at the end of page 4 (an index of ZEMPLOYEE) with garbage.
        let page = 4096, fourth = 3 * page
        data.replaceSubrange(fourth + page - 60 ..< fourth + page, with: Data(repeating: 0xFF, count: 60))
        try data.write(to: URL(fileURLWithPath: store))
        let run = try CommandLineRun.tool("check", store)
        XCTAssertEqual(run.status, 1, run.stdout + run.stderr)
        XCTAssertTrue(run.stdout.contains("problems found") || run.stderr.contains("malformed"), run.stdout + run.stderr)
    }
}

/// Writing commands never migrate a store or create one.
final class CLIWriteRefusalTests: XCTestCase {
    func testImportWithAnotherVersionsModelIsRefusedAndTheStoreIsUnchanged() throws {
        let older = try CLITestStores.appleStore("MigrationRevised/CoreDataMigration_Example_1.sqlite", in: CLITestStores.folder())
        let newer = CLITestStores.fixtures.appendingPathComponent("MigrationRevised/v3.xcdatamodel-contents.xml").path
        let before = CLITestStores.bytes(of: older)
        let run = try CommandLineRun.tool("delete", older.path, "Post", "--all", "--yes", "--model", newer)
        XCTAssertEqual(run.status, 1)
        XCTAssertTrue(run.stderr.contains("does not migrate it (only `managedrecord migrate` does"), run.stderr)
        XCTAssertTrue(run.stderr.contains("run `managedrecord migrate \(older.path) --model \(newer) --dry-run`"), run.stderr)
        XCTAssertEqual(CLITestStores.bytes(of: older), before)
    }

    func testImportIntoAMissingStoreIsRefusedAndCreatesNothing() throws {
        let folder = try CLITestStores.folder()
        let missing = folder.appendingPathComponent("Typo.sqlite")
        let model = CLITestStores.fixtures.appendingPathComponent("TavantTrade/Model.xcdatamodel-contents.xml").path
        let run = try CommandLineRun.tool("import", missing.path, "FeedbackCategory", "-", "--model", model, input: "[]")
        XCTAssertEqual(run.status, 1)
        XCTAssertTrue(run.stderr.contains("never creates one"), run.stderr)
        XCTAssertFalse(FileManager.default.fileExists(atPath: missing.path))
    }
}
