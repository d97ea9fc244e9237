import Foundation
import ObjectGraph
import XCTest

/// A full disk (hostile input): a store on a small tmpfs. The save that does not
/// fit throws a typed error saying what to do, writes nothing, keeps the context's changes,
/// and succeeds once space is freed.
final class DiskFullTests: StoreTestCase {
    private var mountPoint: URL?

    override func tearDownWithError() throws {
        if let mountPoint { _ = Self.command("/bin/umount", [mountPoint.path]) }
        try super.tearDownWithError()
    }

    /// Runs `path` with `arguments`; its exit status.
    private static func command(_ path: String, _ arguments: [String]) -> Int32 {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: path)
        process.arguments = arguments
        process.standardError = FileHandle.nullDevice
        guard (try? process.run()) != nil else { return -1 }
        process.waitUntilExit()
        return process.terminationStatus
    }

    func testASaveThatDoesNotFitThrowsKeepsItsChangesAndSucceedsOnceSpaceIsFreed() throws {
        let folder = directory.appendingPathComponent("small", isDirectory: true)
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        guard geteuid() == 0, Self.command("/bin/mount", ["-t", "tmpfs", "-o", "size=1m", "tmpfs", folder.path]) == 0 else {
            throw XCTSkip("a full disk needs a small tmpfs, and this process (uid \(geteuid())) cannot mount one")
        }
        mountPoint = folder
        let filler = folder.appendingPathComponent("filler")
        try Data(count: 400 * 1024).write(to: filler)
        let url = folder.appendingPathComponent("Store.sqlite")
        let container = try makeContainer(Models.company, url: url)
        let context = container.viewContext

        var failure: Error?
        var saved = 0
        while failure == nil && saved < 100 {
            for _ in 0..<50 { Employee(context: context).firstName = String(repeating: "x", count: 1_000) }
            do {
                try context.save()
                saved += 1
            } catch {
                failure = error
            }
        }
        let error = try XCTUnwrap(failure, "the disk never filled")
        XCTAssertTrue("\(error)".contains("full"), "the error says the disk is full: \(error)")
        XCTAssertTrue("\(error)".contains("free"), "the error says what to do: \(error)")
        XCTAssertEqual(context.insertedObjects.count, 50, "the changes of the failed save are kept")
        XCTAssertEqual(try context.count(for: FetchRequest<Employee>()), saved * 50 + 50, "the context still counts them")
        XCTAssertEqual(try SQLiteFile(url).rows("PRAGMA integrity_check").first?.first, .text("ok"))
        XCTAssertEqual(try SQLiteFile(url).rows("SELECT count(*) FROM ZEMPLOYEE").first?.first, .integer(Int64(saved * 50)),
                       "nothing of the failed save was written")

        try FileManager.default.removeItem(at: filler)
        try context.save()
        XCTAssertEqual(try SQLiteFile(url).rows("SELECT count(*) FROM ZEMPLOYEE").first?.first, .integer(Int64(saved * 50 + 50)))
        container.persistentStoreCoordinator.close()
    }
}
