import Foundation
import XCTest

/// Bad input: a message on standard error that says what to do, nothing on standard output,
/// a non-zero exit status.
final class CLIErrorTests: XCTestCase {
    var store = ""

    override func setUpWithError() throws {
        store = try CLITestStores.company(in: CLITestStores.folder()).path
    }

    func testAMalformedPredicatePointsAtTheCharacter() throws {
        let run = try CommandLineRun.tool("fetch", store, "Employee", "age > 40 AND (lastName == 'x'")
        XCTAssertEqual(run.status, 1)
        XCTAssertEqual(run.stdout, "")
        let lines = run.stderr.split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
        XCTAssertTrue(lines[0].hasPrefix("managedrecord: error: invalid predicate: "), run.stderr)
        XCTAssertEqual(lines[1], "  age > 40 AND (lastName == 'x'")
        XCTAssertEqual(lines[2], "  " + String(repeating: " ", count: 29) + "^", run.stderr)
    }

    func testAnUnknownKeyInAPredicateNamesTheKeysThatExist() throws {
        let run = try CommandLineRun.tool("count", store, "Employee", "agee > 40")
        XCTAssertEqual(run.status, 1)
        XCTAssertTrue(run.stderr.contains("agee"), run.stderr)
        XCTAssertTrue(run.stderr.contains("it has: firstName, lastName, age, salary, hired, department"), run.stderr)
    }

    func testAnUnknownSortKeyOrEntityNamesWhatExists() throws {
        let sort = try CommandLineRun.tool("fetch", store, "Employee", "--sort", "department.title")
        XCTAssertEqual(sort.status, 1)
        XCTAssertEqual(sort.stderr, "managedrecord: error: Department has no key \"title\" (in \"department.title\"); its keys: budget, employees, name\n")
        let entity = try CommandLineRun.tool("count", store, "Employe")
        XCTAssertEqual(entity.status, 1)
        XCTAssertEqual(entity.stderr, "managedrecord: error: the model has no entity \"Employe\"; its entities: Department, Employee, Manager\n")
    }

    func testAStoreWithoutAModelOfItsOwnAsksForModel() throws {
        let copy = try CLITestStores.appleStore("TavantTrade/Model.sqlite", in: CLITestStores.folder())
        let run = try CommandLineRun.tool("count", copy.path, "FeedbackCategory")
        XCTAssertEqual(run.status, 1)
        XCTAssertTrue(run.stderr.contains("does not describe its model") && run.stderr.contains("--model") && run.stderr.contains("(noModel:"), run.stderr)
    }

    func testAMissingStoreIsAnErrorAndIsNotCreated() throws {
        let missing = try CLITestStores.folder().appendingPathComponent("nothing.sqlite")
        let run = try CommandLineRun.tool("schema", missing.path)
        XCTAssertEqual(run.status, 1)
        XCTAssertTrue(run.stderr.contains("there is no store file here"), run.stderr)
        XCTAssertFalse(FileManager.default.fileExists(atPath: missing.path))
    }

    /// An empty input says so, whatever it is: `/dev/null` got "cannot read /dev/null: check
    /// the path and its permissions", an empty file `malformedJSON`.
    func testImportOfAnEmptyInputSaysItIsEmptyAndImportsNothing() throws {
        let folder = URL(fileURLWithPath: store).deletingLastPathComponent()
        let empty = folder.appendingPathComponent("empty.json"), blank = folder.appendingPathComponent("blank.json")
        try Data().write(to: empty)
        try Data(" \n\t\r\n".utf8).write(to: blank)
        for (file, input, name) in [(empty.path, nil, empty.path), (blank.path, nil, blank.path),
                                    ("/dev/null", nil, "/dev/null"), ("-", "", "standard input")] {
            let run = try CommandLineRun.tool("import", store, "Employee", file, input: input)
            XCTAssertEqual(run.status, 1, file)
            XCTAssertEqual(run.stdout, "", file)
            XCTAssertTrue(run.stderr.contains("\(name) is empty: nothing was imported"), run.stderr)
            XCTAssertEqual(try CommandLineRun.tool("count", store, "Employee").succeeded(), "5\n")
        }
        let folderRun = try CommandLineRun.tool("import", store, "Employee", folder.path)
        XCTAssertEqual(folderRun.status, 1)
        XCTAssertTrue(folderRun.stderr.contains("cannot read \(folder.path): it is a folder"), folderRun.stderr)
    }
}
