import CSQLite
import Foundation
import ObjectGraph
import XCTest

/// Files that are not this model's store (hostile input): each is refused with a
/// typed error whose message says what to do, and the file's bytes are left as they were.
/// Read-only files and folders for a non-root user are in ReadOnlyStoreTests and
/// StoreErrorTests; the disk-full and locked cases are in DiskFullTests and LockedStoreTests.
final class HostileFileTests: StoreTestCase {
    /// Opens `storeURL` with the company model, expecting `code`, a message containing each of
    /// `phrases`, and the file unchanged byte for byte.
    private func assertRefused(_ code: StoreError.Code, saying phrases: [String],
                               file: StaticString = #filePath, line: UInt = #line) throws {
        let before = try Data(contentsOf: storeURL)
        XCTAssertThrowsError(try makeContainer(Models.company), file: file, line: line) { error in
            guard let error = error as? StoreError else { return XCTFail("expected StoreError, got \(error)", file: file, line: line) }
            XCTAssertEqual(error.code, code, "\(error)", file: file, line: line)
            for phrase in phrases {
                XCTAssertTrue(error.message.contains(phrase), "the message should say \"\(phrase)\": \(error.message)", file: file, line: line)
            }
        }
        XCTAssertEqual(try Data(contentsOf: storeURL), before, "the file's bytes are unchanged", file: file, line: line)
    }

    /// A store of `entities` at `storeURL` with a row or two, switched to a rollback journal
    /// (as a store copied from elsewhere may be), so that any write, even of the journal mode,
    /// would change the file's header.
    private func makeStore(_ entities: [ManagedObject.Type]) throws {
        do {
            let container = try makeContainer(entities)
            if entities.contains(where: { $0 == Employee.self }) {
                Employee(context: container.viewContext).firstName = "Ann"
            }
            try container.viewContext.save()
            container.persistentStoreCoordinator.close()
        }
        _ = try SQLiteFile(storeURL, readOnly: false).rows("PRAGMA journal_mode = DELETE")
    }

    func testAStoreWrittenForAnotherModelIsRefusedNotMigrated() throws {
        try makeStore(Models.music)
        try assertRefused(.incompatibleModel, saying: ["another model", "Playlist"])
    }

    func testAnEmployeeTableWithOtherColumnsIsRefused() throws {
        try makeStore(Models.company)
        let file = try SQLiteFile(storeURL, readOnly: false)
        _ = try file.rows("DROP TABLE ZEMPLOYEE")
        _ = try file.rows("CREATE TABLE ZEMPLOYEE (ID INTEGER PRIMARY KEY, NAME TEXT, SALARY REAL)")
        try assertRefused(.incompatibleModel, saying: ["ZEMPLOYEE", "Z_PK"])
    }

    func testAnEmployeeTableMissingAColumnItsMetadataPromisesIsRefused() throws {
        try makeStore(Models.company)
        _ = try SQLiteFile(storeURL, readOnly: false).rows("ALTER TABLE ZEMPLOYEE DROP COLUMN ZSALARY")
        try assertRefused(.incompatibleModel, saying: ["ZEMPLOYEE", "ZSALARY"])
    }

    func testARowOfAnEntityOfAnotherTableIsATypedErrorNotACrash() throws {
        try makeStore(Models.company)
        let file = try SQLiteFile(storeURL, readOnly: false)
        let department = try file.rows("SELECT Z_ENT FROM Z_PRIMARYKEY WHERE Z_NAME = 'Department'")
        guard case .integer(let number)? = department.first?.first else { return XCTFail("no Department entity number") }
        _ = try file.rows("UPDATE ZEMPLOYEE SET Z_ENT = \(number)")
        let container = try makeContainer(Models.company)
        XCTAssertThrowsError(try container.viewContext.fetch(FetchRequest<Employee>())) { error in
            XCTAssertTrue("\(error)".contains("Z_ENT"), "the error names the column: \(error)")
        }
    }

    func testARowOfAnEntityOfAnotherTableMetByAPrefetchIsATypedErrorNotACrash() throws {
        do {
            let container = try makeContainer(Models.company)
            let sales = Department(context: container.viewContext)
            sales.name = "Sales"
            Employee(context: container.viewContext).department = sales
            try container.viewContext.save()
            container.persistentStoreCoordinator.close()
        }
        let file = try SQLiteFile(storeURL, readOnly: false)
        let department = try file.rows("SELECT Z_ENT FROM Z_PRIMARYKEY WHERE Z_NAME = 'Department'")
        guard case .integer(let number)? = department.first?.first else { return XCTFail("no Department entity number") }
        _ = try file.rows("UPDATE ZEMPLOYEE SET Z_ENT = \(number)")
        let container = try makeContainer(Models.company)
        var request = FetchRequest<Department>()
        request.relationshipKeyPathsForPrefetching = ["employees"]
        XCTAssertThrowsError(try container.viewContext.fetch(request)) { error in
            XCTAssertTrue("\(error)".contains("Z_ENT"), "the error names the column: \(error)")
        }
    }

    func testATruncatedStoreIsATypedErrorAndKeepsItsBytes() throws {
        do {
            let container = try makeContainer(Models.company)
            for index in 0..<2_000 { Employee(context: container.viewContext).firstName = "Employee \(index) " + String(repeating: "x", count: 100) }
            try container.viewContext.save()
            container.persistentStoreCoordinator.close()
        }
        _ = try SQLiteFile(storeURL, readOnly: false).rows("PRAGMA journal_mode = DELETE")
        let whole = try Data(contentsOf: storeURL)
        try whole.prefix(whole.count / 2).write(to: storeURL)
        try assertRefused(.notADatabase, saying: ["corrupt", "backup"])
    }

    func testANonSQLiteFileAndAnUnrelatedSchemaAreRefused() throws {
        try Data("name,age\nAnn,30\n".utf8).write(to: storeURL)
        try assertRefused(.notADatabase, saying: ["not a SQLite database"])
        try FileManager.default.removeItem(at: storeURL)
        _ = try SQLiteFile(storeURL, readOnly: false).rows("CREATE TABLE notes (id INTEGER PRIMARY KEY, body TEXT)")
        try assertRefused(.notACoreDataStore, saying: ["Z_METADATA", "untouched"])
    }
}
