import Foundation
import XCTest

/// `export --output` never writes over a store: `export STORE Entity --output STORE` used to
/// exit 0 and leave a 1 KB JSON file (mode 0644) where the store was.
final class CLIExportOutputTests: XCTestCase {
    func testAnOutputThatIsTheStoreItsCompanionsOrAnotherStoreIsRefusedAndNothingIsWritten() throws {
        let folder = try CLITestStores.folder()
        let store = try CLITestStores.company(in: folder)
        let other = try CLITestStores.gadgets(in: folder)
        let link = folder.appendingPathComponent("link.sqlite")
        try FileManager.default.createSymbolicLink(at: link, withDestinationURL: store)
        let before = CLITestStores.bytes(of: store), otherBefore = CLITestStores.bytes(of: other)
        let outputs = [store.path, store.path + "-wal", store.path + "-shm", store.path + "-journal",
                       folder.path + "/./" + store.lastPathComponent, "\(folder.path)/../\(folder.lastPathComponent)/Company.sqlite",
                       link.path, other.path, other.path + "-wal", other.path + "-journal"]
        for output in outputs {
            let run = try CommandLineRun.tool("export", store.path, "Employee", "--output", output)
            XCTAssertEqual(run.status, 1, "\(output): \(run.stdout)")
            XCTAssertTrue(run.stderr.contains("Nothing was written: give --output another file"), "\(output): \(run.stderr)")
            XCTAssertEqual(CLITestStores.bytes(of: store), before, output)
            XCTAssertEqual(CLITestStores.bytes(of: other), otherBefore, output)
        }
        for companion in ["-wal", "-shm", "-journal"] {
            let path = store.path + companion
            XCTAssertFalse(FileManager.default.fileExists(atPath: path) && (try? Data(contentsOf: URL(fileURLWithPath: path)))?.starts(with: Data("[".utf8)) == true,
                           "nothing was written to \(path)")
        }
        XCTAssertEqual(try CommandLineRun.tool("count", store.path, "Employee").succeeded(), "5\n", "the store still opens")
    }

    func testAnExportFileIsOwnerOnlyUnlessAskedToKeepTheUmask() throws {
        let folder = try CLITestStores.folder()
        let store = try CLITestStores.company(in: folder).path
        let output = folder.appendingPathComponent("employees.json").path
        try CommandLineRun.tool("export", store, "Employee", "--output", output).succeeded()
        XCTAssertEqual(try permissions(output), 0o600)
        XCTAssertEqual(try JSONSerialization.jsonObject(with: Data(contentsOf: URL(fileURLWithPath: output))) as? [Any] != nil, true)
        // Written again, the file is replaced (and keeps its mode).
        try FileManager.default.setAttributes([.posixPermissions: 0o640], ofItemAtPath: output)
        try CommandLineRun.tool("export", store, "Department", "--output", output).succeeded()
        XCTAssertEqual(try permissions(output), 0o640)
        XCTAssertEqual((try JSONSerialization.jsonObject(with: Data(contentsOf: URL(fileURLWithPath: output))) as? [Any])?.count, 2)

        let shared = folder.appendingPathComponent("shared.json").path
        try CommandLineRun.tool("export", store, "Employee", "--output", shared, "--keep-umask").succeeded()
        let mask = umask(0)
        umask(mask)
        XCTAssertEqual(try permissions(shared), 0o666 & ~Int(mask))
    }

    private func permissions(_ path: String) throws -> Int {
        try XCTUnwrap(FileManager.default.attributesOfItem(atPath: path)[.posixPermissions] as? Int) & 0o777
    }
}

/// No command but `migrate` migrates a store: `history STORE --enable --model NEWER` used to
/// migrate the store without a word (an app with the older model could no longer open it).
/// Every command opens its store through one path, which refuses; one test per family.
final class CLINoMigrationTests: XCTestCase {
    private var store: URL!
    private var newer: String { CLITestStores.fixtures.appendingPathComponent("MigrationRevised/v2.xcdatamodel-contents.xml").path }

    override func setUpWithError() throws {
        store = try CLITestStores.appleStore("MigrationRevised/CoreDataMigration_Example_1.sqlite", in: CLITestStores.folder())
    }

    private func assertRefused(_ arguments: [String], input: String? = nil, file: StaticString = #filePath, line: UInt = #line) throws {
        let before = CLITestStores.bytes(of: store)
        let folder = store.deletingLastPathComponent().path
        let names = try FileManager.default.contentsOfDirectory(atPath: folder).sorted()
        let run = try CommandLineRun.tool(arguments: arguments + ["--model", newer], input: input)
        XCTAssertEqual(run.status, 1, "\(arguments): \(run.stdout)", file: file, line: line)
        XCTAssertTrue(run.stderr.contains("this command does not migrate it (only `managedrecord migrate` does"), "\(arguments): \(run.stderr)", file: file, line: line)
        XCTAssertTrue(run.stderr.contains("run `managedrecord migrate \(store.path) --model \(newer) --dry-run`"), "\(arguments): \(run.stderr)", file: file, line: line)
        XCTAssertEqual(CLITestStores.bytes(of: store), before, "\(arguments) changed the store", file: file, line: line)
        // A refused command leaves the folder as it found it (it left a -wal and a -shm).
        XCTAssertEqual(try FileManager.default.contentsOfDirectory(atPath: folder).sorted(), names, "\(arguments)", file: file, line: line)
    }

    func testHistoryEnableWithANewerModelIsRefusedAndTheStoreIsUnchanged() throws {
        try assertRefused(["history", store.path, "--enable"])
        // The store is still version 1: the older model reads it.
        let model = CLITestStores.fixtures.appendingPathComponent("MigrationRevised/v1.xcdatamodel-contents.xml").path
        XCTAssertEqual(try CommandLineRun.tool("count", store.path, "Post", "--model", model).succeeded(), "10\n")
    }

    func testReadingCommandsWithANewerModelSayToRunMigrate() throws {
        for arguments in [["fetch", store.path, "Post"], ["count", store.path, "Post"], ["distinct", store.path, "Post", "postID"],
                          ["aggregate", store.path, "Post", "max", "date"], ["schema", store.path], ["export", store.path, "Post"],
                          ["history", store.path], ["watch", store.path, "Post"]] {
            try assertRefused(arguments)
        }
    }

    func testWritingCommandsWithANewerModelAreRefused() throws {
        try assertRefused(["import", store.path, "Post", "-"], input: #"[{"postID": "new"}]"#)
        try assertRefused(["delete", store.path, "Post", "--all", "--yes"])
    }

    /// On a WAL store, a refused command left a `-wal` and a `-shm` where there were none.
    func testCommandsRefusedOnAWALStoreLeaveTheFolderAsItWas() throws {
        let older = CLITestStores.fixtures.appendingPathComponent("MigrationRevised/v1.xcdatamodel-contents.xml").path
        // A write with the store's own model turns it to WAL, and removes its -wal on exit.
        XCTAssertEqual(try CommandLineRun.tool("import", store.path, "Post", "-", "--model", older, input: "[]").succeeded(),
                       "inserted 0, updated 0, skipped 0\n")
        XCTAssertEqual(FileManager.default.contents(atPath: store.path)?[18], 2, "the store is in WAL mode")
        for arguments in [["count", store.path, "Post"], ["fetch", store.path, "Post"], ["schema", store.path],
                          ["history", store.path, "--enable"], ["delete", store.path, "Post", "--all", "--yes"]] {
            try assertRefused(arguments)
        }
        try assertRefused(["import", store.path, "Post", "-"], input: "[]")
    }

    func testMigrateStillMigrates() throws {
        try CommandLineRun.tool("migrate", store.path, "--model", newer).succeeded()
        XCTAssertEqual(try CommandLineRun.tool("count", store.path, "Post", "--model", newer).succeeded(), "10\n")
        XCTAssertEqual(try CommandLineRun.tool("history", store.path, "--enable", "--model", newer).succeeded(),
                       "the store records persistent history from now on\n")
    }
}
