import Foundation
import ObjectGraph
import XCTest

/// A store another process holds an exclusive lock on (hostile input): opening it
/// waits for SQLite's busy timeout, then throws a typed error saying what to do, and the
/// file's bytes are unchanged.
final class LockedStoreTests: StoreTestCase {
    func testAStoreLockedExclusivelyByAnotherProcessSaysWhatToDo() throws {
        guard FileManager.default.isExecutableFile(atPath: "/usr/bin/sqlite3") else {
            throw XCTSkip("no /usr/bin/sqlite3 to hold the lock from another process (apt-get install sqlite3)")
        }
        do {
            let container = try makeContainer(Models.company)
            Employee(context: container.viewContext).firstName = "Ann"
            try container.viewContext.save()
            container.persistentStoreCoordinator.close()
        }
        let before = try Data(contentsOf: storeURL)

        // The other process: sqlite3 holding an exclusive lock until its input closes.
        let holder = Process()
        holder.executableURL = URL(fileURLWithPath: "/usr/bin/sqlite3")
        holder.arguments = [storeURL.path]
        let input = Pipe()
        let output = Pipe()
        holder.standardInput = input
        holder.standardOutput = output
        try holder.run()
        defer {
            try? input.fileHandleForWriting.close()
            holder.waitUntilExit()
        }
        input.fileHandleForWriting.write(Data("PRAGMA locking_mode = EXCLUSIVE;\nBEGIN EXCLUSIVE;\nSELECT 'locked';\n".utf8))
        var said = Data()
        while !String(decoding: said, as: UTF8.self).contains("locked") {
            let chunk = output.fileHandleForReading.availableData
            if chunk.isEmpty { return XCTFail("sqlite3 ended before taking the lock") }
            said += chunk
        }

        XCTAssertThrowsError(try makeContainer(Models.company)) { error in
            guard let error = error as? StoreError else { return XCTFail("expected StoreError, got \(error)") }
            XCTAssertEqual(error.code, .locked, "\(error)")
            XCTAssertTrue(error.message.contains("another process"), error.message)
            XCTAssertTrue(error.message.contains("close"), "the message says what to do: \(error.message)")
        }
        XCTAssertEqual(try Data(contentsOf: storeURL), before, "the file's bytes are unchanged")
    }
}
