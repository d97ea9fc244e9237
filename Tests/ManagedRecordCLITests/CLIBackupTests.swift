import CSQLite
import Foundation
import ObjectGraph
import XCTest

/// `managedrecord backup`, `restore` and `check`'s warning about files others may read, run as processes
/// (docs/cli.md, docs/security.md).
final class CLIBackupTests: XCTestCase {
    private func mode(_ path: String) -> String {
        var info = stat()
        guard stat(path, &info) == 0 else { return "missing" }
        return "0" + String(info.st_mode & 0o777, radix: 8)
    }

    private func employees(in store: String) throws -> String {
        try CommandLineRun.tool("count", store, "Employee").succeeded()
    }

    func testBackupThenRestoreBringsTheStoreBack() throws {
        let folder = try CLITestStores.folder()
        let store = try CLITestStores.company(in: folder).path
        let copy = folder.appendingPathComponent("backups/Company-copy.sqlite").path

        let backup = try CommandLineRun.tool("backup", store, copy)
        XCTAssertEqual(backup.status, 0, backup.stderr)
        XCTAssertTrue(backup.stdout.hasPrefix("backed up \(store) to \(copy) ("), backup.stdout)
        XCTAssertTrue(backup.stdout.contains(" pages of 4096 bytes)"), backup.stdout)
        XCTAssertEqual(backup.stderr, "", "no progress in a pipe")
        XCTAssertEqual(mode(copy), "0600")
        XCTAssertEqual(mode(URL(fileURLWithPath: copy).deletingLastPathComponent().path), "0700")
        XCTAssertEqual(try employees(in: copy), "5\n")
        try CommandLineRun.tool("check", copy).succeeded()

        try CommandLineRun.tool("delete", store, "Employee", "--where", "age > 40", "--yes").succeeded()
        XCTAssertEqual(try employees(in: store), "2\n")
        let restore = try CommandLineRun.tool("restore", copy, store)
        XCTAssertEqual(restore.status, 0, restore.stderr)
        XCTAssertTrue(restore.stdout.hasPrefix("restored \(store) from \(copy) ("), restore.stdout)
        XCTAssertEqual(try employees(in: store), "5\n")

        let again = try CommandLineRun.tool("backup", store, copy)
        XCTAssertEqual(again.status, 1)
        XCTAssertTrue(again.stderr.contains("already exists, and a backup never replaces a file"), again.stderr)
    }

    /// A copy named as the store's own `-wal`, `-journal` or `-shm` (or another store's) is
    /// refused before anything is written. It was written and "backed up" reported; the next
    /// open of the store took the copy for a damaged log and deleted it, and until then the
    /// tool's read-only opens failed blaming the folder's permissions.
    func testACopyNamedAsAStoresCompanionIsRefused() throws {
        let folder = try CLITestStores.folder()
        let store = try CLITestStores.company(in: folder).path
        let other = folder.appendingPathComponent("Other.sqlite").path
        try CommandLineRun.tool("backup", store, other).succeeded()
        for copy in [store + "-wal", store + "-journal", store + "-shm", other + "-wal", other + "-journal"] {
            let before = FileManager.default.contents(atPath: copy)   // the store's own -wal and -shm may exist
            let backup = try CommandLineRun.tool("backup", store, copy)
            XCTAssertEqual(backup.status, 1, "\(copy): \(backup.stdout)")
            XCTAssertTrue(backup.stderr.contains(before == nil ? "Nothing was written" : "never replaces a file"), backup.stderr)
            XCTAssertEqual(FileManager.default.contents(atPath: copy), before, copy)
            XCTAssertEqual(try employees(in: store), "5\n")
        }
    }

    func testKeepUmaskCreatesTheCopyWithTheProcessUmask() throws {
        let folder = try CLITestStores.folder()
        let store = try CLITestStores.company(in: folder).path
        let kept = folder.appendingPathComponent("Kept.sqlite").path
        let owned = folder.appendingPathComponent("Owned.sqlite").path
        let old = umask(0o022)   // inherited by the tool's process
        defer { umask(old) }
        try CommandLineRun.tool("backup", store, kept, "--keep-umask").succeeded()
        try CommandLineRun.tool("backup", store, owned).succeeded()
        XCTAssertEqual(mode(kept), "0644")
        XCTAssertEqual(mode(owned), "0600")
    }

    func testRestoreIsRefusedWhileAnotherProgramHasTheStoreOpen() throws {
        let folder = try CLITestStores.folder()
        let store = try CLITestStores.company(in: folder)
        let copy = folder.appendingPathComponent("Copy.sqlite").path
        try CommandLineRun.tool("backup", store.path, copy).succeeded()
        try CommandLineRun.tool("delete", store.path, "Employee", "--where", "age > 40", "--yes").succeeded()

        // This test process has the store open (an idle container) while the tool runs.
        let open = try PersistentContainer(name: "Company", model: ManagedObjectModel(storeURL: store), storeURL: store)
        let refused = try CommandLineRun.tool("restore", copy, store.path)
        XCTAssertEqual(refused.status, 1)
        XCTAssertTrue(refused.stderr.contains("the store is open in another process"), refused.stderr)
        XCTAssertTrue(refused.stderr.contains("(locked: \(store.path))"), refused.stderr)
        XCTAssertEqual(try open.viewContext.count(for: FetchRequest<ManagedObject>(entityName: "Employee")), 2)
        open.persistentStoreCoordinator.close()

        try CommandLineRun.tool("restore", copy, store.path).succeeded()
        XCTAssertEqual(try employees(in: store.path), "5\n")
    }

    /// Issue 38, item 10: `watch` keeps a rollback-journal store (`journal_mode = DELETE`)
    /// open read-only, holding no SQLite lock while idle; the restore went through and the
    /// watcher read the restored rows.
    func testRestoreIsRefusedWhileWatchHasARollbackJournalStoreOpen() throws {
        let folder = try CLITestStores.folder()
        let store = try CLITestStores.company(in: folder).path
        let copy = folder.appendingPathComponent("Copy.sqlite").path
        try CommandLineRun.tool("history", store, "--enable").succeeded()
        try CommandLineRun.tool("backup", store, copy).succeeded()
        try CommandLineRun.tool("delete", store, "Employee", "--where", "age > 40", "--yes").succeeded()
        var handle: OpaquePointer?
        XCTAssertEqual(sqlite3_open(store, &handle), SQLITE_OK)
        XCTAssertEqual(sqlite3_exec(handle, "PRAGMA journal_mode = DELETE", nil, nil, nil), SQLITE_OK)
        sqlite3_close(handle)

        let watch = try WatchProcess(store: store, arguments: ["Employee", "age > 40"])
        defer { watch.stop() }
        XCTAssertTrue(watch.waitFor("(0 rows)"), watch.text)
        let refused = try CommandLineRun.tool("restore", copy, store)
        XCTAssertEqual(refused.status, 1, refused.stdout)
        XCTAssertTrue(refused.stderr.contains("the store is open in another process"), refused.stderr)
        watch.stop()
        XCTAssertFalse(watch.text.contains("+ Employee"), "the watcher saw no restored row: \(watch.text)")
        try CommandLineRun.tool("restore", copy, store).succeeded()
        XCTAssertEqual(try employees(in: store), "5\n")
    }

    func testCheckReportsFilesOtherUsersMayRead() throws {
        let store = try CLITestStores.company(in: CLITestStores.folder()).path
        let owned = try CommandLineRun.tool("check", store)
        XCTAssertEqual(owned.status, 0, owned.stderr)
        XCTAssertEqual(owned.stderr, "", "an owner-only store: no warning")

        chmod(store, 0o644)
        let check = try CommandLineRun.tool("check", store)
        XCTAssertEqual(check.status, 0, "reported, not counted as a problem: \(check.stdout)")
        XCTAssertEqual(check.stdout, owned.stdout, "standard output stays as scripts know it")
        XCTAssertTrue(check.stderr.hasPrefix("managedrecord: warning: other users may read \(store) (mode 0644)"), check.stderr)
        XCTAssertTrue(check.stderr.contains("; chmod 600 them unless the store is shared on purpose"), check.stderr)
        // Opening it (here through count) logs the warning once.
        let count = try CommandLineRun.tool("count", store, "Employee")
        XCTAssertEqual(count.stdout, "5\n")
        XCTAssertEqual(count.stderr.components(separatedBy: "other users of this machine may read the store \(store)").count, 2, count.stderr)
    }

    func testBackupShowsProgressOnATerminal() throws {
        guard FileManager.default.isExecutableFile(atPath: "/usr/bin/script") else {
            throw XCTSkip("util-linux's script(1) is needed to give the tool a terminal")
        }
        let folder = try CLITestStores.folder()
        let store = try CLITestStores.company(in: folder).path
        let copy = folder.appendingPathComponent("Copy.sqlite").path
        let tool = URL(fileURLWithPath: CommandLine.arguments[0]).resolvingSymlinksInPath().deletingLastPathComponent().appendingPathComponent("managedrecord").path
        let run = try CommandLineRun.run("/usr/bin/script", ["-qec", "'\(tool)' backup '\(store)' '\(copy)'", "/dev/null"])
        XCTAssertEqual(run.status, 0, run.stdout)
        XCTAssertTrue(run.stdout.contains("copied ") && run.stdout.contains(" pages in "), run.stdout)
        XCTAssertTrue(run.stdout.contains("backed up \(store)"), run.stdout)
    }
}
