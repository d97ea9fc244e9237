import Foundation
@testable import ObjectGraph
import XCTest

// The notes of CrashWorkload's migration (its `MigratingNoteV1` and `MigratingNoteV2`).
final class ConcurrentNoteV1: ManagedObject {
    override class var entityName: String { "Note" }
    @Attribute var number: Int = 0
    @Attribute var body: String = ""
    @Attribute var stars: String = ""
}

final class ConcurrentNoteV2: ManagedObject {
    override class var entityName: String { "Note" }
    @Attribute var number: Int = 0
    @Attribute(originalName: "body") var text: String = ""
    @Attribute var stars: Int = 0
    @Attribute var pinned: Bool = false
}

/// Several processes that open one store needing a migration at once: one migrates, the
/// others wait for it and open the migrated store; nothing is migrated twice or lost.
final class ConcurrentMigrationTests: StoreTestCase {
    private let rows = 20_000

    private func writeVersion1() throws {
        let container = try makeContainer([ConcurrentNoteV1.self])
        for number in 0..<rows {
            let note = ConcurrentNoteV1(context: container.viewContext)
            note.number = number
            note.body = "note \(number)"
            note.stars = String(number % 5)
        }
        try container.viewContext.save()
        container.persistentStoreCoordinator.close()
    }

    func testProcessesMigratingOneStoreAtOnceWaitForEachOtherAndLoseNothing() throws {
        try writeVersion1()
        let workload = try builtExecutable("CrashWorkload")
        let added = [1_000_001, 1_000_002, 1_000_003]
        var children: [(Process, Pipe)] = []
        for number in added {
            let child = Process()
            child.executableURL = workload
            child.arguments = ["migrate-and-add", storeURL.path, String(number)]
            var environment = ProcessInfo.processInfo.environment
            environment["SWIFT_BACKTRACE"] = "enable=no"
            child.environment = environment
            let pipe = Pipe()
            child.standardOutput = pipe
            child.standardError = pipe
            children.append((child, pipe))
        }
        for (child, _) in children { try child.run() }
        for (child, pipe) in children {
            let output = String(decoding: pipe.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
            child.waitUntilExit()
            XCTAssertEqual(child.terminationStatus, 0, output)
            XCTAssertTrue(output.contains("migrate-and-add ok"), output)
        }

        let container = try makeContainer([ConcurrentNoteV2.self])
        let notes = try fetchAll(ConcurrentNoteV2.self, in: container.viewContext, sortedBy: "number")
        XCTAssertEqual(notes.count, rows + added.count, "every row once, and each process's note")
        XCTAssertEqual(notes.suffix(added.count).map(\.number), added)
        XCTAssertTrue(notes.prefix(rows).enumerated().allSatisfy { $0.offset == $0.element.number && $0.element.text == "note \($0.offset)" && $0.element.stars == $0.offset % 5 },
                      "every old row migrated once, with its values")
        XCTAssertEqual(try migrationLeftovers(storeURL), [])
        try assertStoreIntegrity(storeURL)
    }

    func testAMigrationThatFindsTheStoreLockedTooLongThrowsAndChangesNothing() throws {
        try writeVersion1()
        let before = storeBytes(storeURL)
        let held = try XCTUnwrap(MigrationLock.take(for: storeURL))
        var migrator = StoreMigrator()
        migrator.lockTimeout = 0.2
        XCTAssertThrowsError(try openCoordinator(ManagedObjectModel(entities: [ConcurrentNoteV2.self]), migrator: migrator)) { error in
            XCTAssertEqual((error as? MigrationError)?.code, .locked, "\(error)")
        }
        XCTAssertEqual(storeBytes(storeURL), before, "the store is left as it was")
        held.release()
        let container = try makeContainer([ConcurrentNoteV2.self])
        XCTAssertEqual(try container.viewContext.count(for: FetchRequest<ConcurrentNoteV2>()), rows)
    }

    func testAStoreThatFitsOpensWhileAnotherStoreInTheFolderMigrates() throws {
        let other = directory.appendingPathComponent("Other.sqlite")
        try makeContainer([ConcurrentNoteV2.self], url: other).persistentStoreCoordinator.close()
        let held = try XCTUnwrap(MigrationLock.take(for: storeURL))
        defer { held.release() }
        var migrator = StoreMigrator()
        migrator.lockTimeout = 0.2
        XCTAssertNoThrow(try openCoordinator(ManagedObjectModel(entities: [ConcurrentNoteV2.self]), url: other, migrator: migrator),
                         "a store that needs no migration does not wait for the lock")
    }

    /// The executable `name`, built with the tests into the folder of the test bundle.
    private func builtExecutable(_ name: String) throws -> URL {
        let folder = URL(fileURLWithPath: CommandLine.arguments[0]).resolvingSymlinksInPath().deletingLastPathComponent()
        let url = folder.appendingPathComponent(name)
        guard FileManager.default.isExecutableFile(atPath: url.path) else {
            throw SQLiteFileError(description: "\(url.path) was not built; `swift build --build-tests` builds it with the tests")
        }
        return url
    }
}
