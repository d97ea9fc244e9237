import Foundation
import ObjectGraph
import XCTest

/// A deterministic corpus of broken store files (libFuzzer's StoreFileFuzzer
/// explores further): a garbage `Z_METADATA` plist, each table missing, a corrupt header,
/// the file cut at every page, and bytes flipped at seeded random places. Opening each and
/// fetching from it either works or throws a typed error; nothing crashes.
final class MutatedStoreTests: StoreTestCase {
    /// A store of the company model with a few rows, in a rollback journal (one file).
    private func seedStore() throws -> Data {
        do {
            let container = try makeContainer(Models.company)
            let sales = Department(context: container.viewContext)
            sales.name = "Sales"
            for index in 0..<40 {
                let employee = Employee(context: container.viewContext)
                employee.firstName = "E\(index)"
                employee.lastName = String(repeating: "x", count: 200)
                employee.department = sales
            }
            try container.viewContext.save()
            container.persistentStoreCoordinator.close()
        }
        _ = try SQLiteFile(storeURL, readOnly: false).rows("PRAGMA journal_mode = DELETE")
        return try Data(contentsOf: storeURL)
    }

    /// Opens the store at `storeURL` and fetches from it; returns "opened" or the error's type.
    @discardableResult
    private func openAndFetch(_ label: String) -> String {
        do {
            let container = try makeContainer(Models.company)
            defer { container.persistentStoreCoordinator.close() }
            var request = FetchRequest<Department>()
            request.relationshipKeyPathsForPrefetching = ["employees"]
            for department in try container.viewContext.fetch(request) { _ = (department.name, department.employees.count) }
            for employee in try container.viewContext.fetch(FetchRequest<Employee>()) { _ = (employee.firstName, employee.age) }
            return "opened"
        } catch let error as StoreError {
            XCTAssertFalse(error.message.isEmpty, label)
            return "StoreError.\(error.code)"
        } catch let error as SQLiteError {
            return "SQLiteError \(error.primaryCode)"
        } catch {
            XCTFail("\(label): an untyped error \(type(of: error)): \(error)")
            return "other"
        }
    }

    private func replaceStore(with data: Data) throws {
        for suffix in ["", "-wal", "-shm", "-journal"] { try? FileManager.default.removeItem(atPath: storeURL.path + suffix) }
        try data.write(to: storeURL)
    }

    func testAGarbageMetadataPlistIsCorruptMetadata() throws {
        _ = try seedStore()
        _ = try SQLiteFile(storeURL, readOnly: false).rows("UPDATE Z_METADATA SET Z_PLIST = x'00ff00ff62706c697374'")
        XCTAssertEqual(openAndFetch("garbage plist"), "StoreError.corruptMetadata")
    }

    func testEachMissingTableIsATypedError() throws {
        let seed = try seedStore()
        var outcomes: [String: String] = [:]
        for table in ["ZEMPLOYEE", "ZDEPARTMENT", "Z_PRIMARYKEY", "Z_METADATA"] {
            try replaceStore(with: seed)
            _ = try SQLiteFile(storeURL, readOnly: false).rows("DROP TABLE \(table)")
            outcomes[table] = openAndFetch("without \(table)")
        }
        XCTAssertEqual(outcomes["Z_METADATA"], "StoreError.notACoreDataStore", "\(outcomes)")
        XCTAssertNotEqual(outcomes["Z_PRIMARYKEY"], "opened", "\(outcomes)")
    }

    func testACorruptHeaderAndEveryTruncationAreTypedErrors() throws {
        let seed = try seedStore()
        var corrupt = seed
        corrupt.replaceSubrange(0..<16, with: Data(repeating: 0x41, count: 16))
        try replaceStore(with: corrupt)
        XCTAssertEqual(openAndFetch("corrupt header"), "StoreError.notADatabase")

        let pageSize = 4_096
        var tried = 0
        for cut in stride(from: pageSize, to: seed.count, by: pageSize) {
            try replaceStore(with: seed.prefix(cut))
            XCTAssertNotEqual(openAndFetch("cut at \(cut)"), "other")
            tried += 1
        }
        XCTAssertGreaterThan(tried, 3)
    }

    func testFlippedBytesNeverCrash() throws {
        let seed = try seedStore()
        var random = SplitMix(seed: 16)
        var outcomes: [String: Int] = [:]
        for round in 0..<150 {
            var mutated = seed
            for _ in 0..<(1 + Int(random.next() % 8)) {
                let offset = Int(random.next() % UInt64(mutated.count))
                mutated[offset] ^= UInt8(truncatingIfNeeded: random.next() | 1)
            }
            try replaceStore(with: mutated)
            outcomes[openAndFetch("round \(round)"), default: 0] += 1
        }
        print("mutated stores: \(outcomes.sorted { $0.key < $1.key })")
        XCTAssertNil(outcomes["other"])
    }
}
