import Foundation
import ObjectGraph
import Synchronization
import XCTest

/// `JSONImportOptions.progress` reports each committed batch, for progress displays.
final class JSONImportProgressTests: XCTestCase {
    func testProgressIsReportedAfterEachCommittedBatch() throws {
        let store = try CLITestStores.folder().appendingPathComponent("Company.sqlite")
        let container = try PersistentContainer(name: "Company", entities: companyEntities, storeURL: store)
        let records = (1...5).map { ["firstName": "F\($0)", "lastName": "L\($0)", "age": 20 + $0] as [String: Any] }
        let seen = Mutex<[[Int]]>([])
        var options = JSONImportOptions(batchSize: 2)
        options.progress = { committed, total in seen.withLock { $0.append([committed, total]) } }
        let report = try container.viewContext.importRecords(records, entityName: "Employee", options: options)
        XCTAssertEqual(report.inserted.count, 5)
        XCTAssertEqual(seen.withLock { $0 }, [[2, 5], [4, 5], [5, 5]])

        var once = JSONImportOptions()
        once.progress = { committed, total in seen.withLock { $0.append([committed, total]) } }
        try container.viewContext.importRecords(records, entityName: "Employee", options: once)
        XCTAssertEqual(seen.withLock { $0.last }, [5, 5], "one transaction reports once, at the end")
    }

    /// `recordProgress` moves during one long transaction, before the save.
    func testRecordProgressIsReportedWhileOneTransactionIsApplied() throws {
        let store = try CLITestStores.folder().appendingPathComponent("Company.sqlite")
        let container = try PersistentContainer(name: "Company", entities: companyEntities, storeURL: store)
        let records = (1...5).map { ["firstName": "F\($0)", "lastName": "L\($0)", "age": 20 + $0] as [String: Any] }
        let seen = Mutex<[[Int]]>([])
        var options = JSONImportOptions()
        options.recordProgressInterval = 2
        options.recordProgress = { applied, total in seen.withLock { $0.append([applied, total]) } }
        options.progress = { committed, total in seen.withLock { $0.append([-committed, total]) } }
        try container.viewContext.importRecords(records, entityName: "Employee", options: options)
        XCTAssertEqual(seen.withLock { $0 }, [[2, 5], [4, 5], [5, 5], [-5, 5]], "applied records, all of them (the save comes next), then the commit")
    }
}
