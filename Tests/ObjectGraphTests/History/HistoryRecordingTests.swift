import Foundation
import ObjectGraph
import XCTest

/// Persistent history in Core Data's layout: what a save with `options: [.persistentHistory]`
/// writes into `ATRANSACTION`, `ACHANGE` and `ATRANSACTIONSTRING`, read back with the SQLite
/// C API (as Core Data and forensic tools read it) and through `history(after:)`.
final class HistoryRecordingTests: StoreTestCase {
    private func historyContainer(_ entities: [ManagedObject.Type] = Models.company, url: URL? = nil) throws -> PersistentContainer {
        try PersistentContainer(name: "Test", entities: entities, storeURL: url ?? storeURL, options: [.persistentHistory])
    }

    func testSaveWritesTransactionAndChangesInCoreDataTables() throws {
        let container = try historyContainer()
        XCTAssertTrue(container.recordsHistory)
        let context = container.viewContext
        context.transactionAuthor = "importer"
        let sales = Department(context: context)
        sales.name = "Sales"
        let ann = Employee(context: context)
        ann.firstName = "Ann"
        ann.department = sales
        let max = Manager(context: context)
        max.firstName = "Max"
        try context.save()
        ann.firstName = "Anne"
        ann.age = 41
        context.delete(max)
        context.transactionAuthor = nil
        try context.save()

        let file = try SQLiteFile(storeURL)
        XCTAssertEqual(try file.columns(of: "ATRANSACTION"), ["Z_PK", "Z_ENT", "Z_OPT", "ZAUTHORTS", "ZBUNDLEIDTS", "ZCONTEXTNAMETS", "ZPROCESSIDTS",
                                                             "ZTIMESTAMP", "ZAUTHOR", "ZBUNDLEID", "ZCONTEXTNAME", "ZPROCESSID", "ZQUERYGEN"])
        XCTAssertEqual(try file.columns(of: "ACHANGE"), ["Z_PK", "Z_ENT", "Z_OPT", "ZCHANGETYPE", "ZENTITY", "ZENTITYPK", "ZTRANSACTIONID", "ZCOLUMNS"])
        XCTAssertEqual(try file.columns(of: "ATRANSACTIONSTRING"), ["Z_PK", "Z_ENT", "Z_OPT", "ZNAME"])
        XCTAssertEqual(try file.rows("SELECT Z_ENT, Z_NAME, Z_SUPER, Z_MAX FROM Z_PRIMARYKEY WHERE Z_ENT > 16000 ORDER BY Z_ENT"), [
            [.integer(16001), .text("CHANGE"), .integer(0), .integer(5)],
            [.integer(16002), .text("TRANSACTION"), .integer(0), .integer(2)],
            [.integer(16003), .text("TRANSACTIONSTRING"), .integer(0), try XCTUnwrap(file.scalar("SELECT MAX(Z_PK) FROM ATRANSACTIONSTRING"))],
        ])
        let transactions = try file.rows("""
            SELECT t.Z_PK, t.Z_ENT, a.ZNAME, c.ZNAME, b.ZNAME, p.ZNAME, t.ZTIMESTAMP FROM ATRANSACTION t
            LEFT JOIN ATRANSACTIONSTRING a ON a.Z_PK = t.ZAUTHORTS LEFT JOIN ATRANSACTIONSTRING c ON c.Z_PK = t.ZCONTEXTNAMETS
            LEFT JOIN ATRANSACTIONSTRING b ON b.Z_PK = t.ZBUNDLEIDTS LEFT JOIN ATRANSACTIONSTRING p ON p.Z_PK = t.ZPROCESSIDTS ORDER BY t.Z_PK
            """)
        XCTAssertEqual(transactions.map { Array($0.prefix(6)) }, [
            [.integer(1), .integer(16002), .text("importer"), .text("Test.viewContext"), .text(ProcessInfo.processInfo.processName),
             .text(String(ProcessInfo.processInfo.processIdentifier))],
            [.integer(2), .integer(16002), .null, .text("Test.viewContext"), .text(ProcessInfo.processInfo.processName),
             .text(String(ProcessInfo.processInfo.processIdentifier))],
        ])
        let now = Date().timeIntervalSinceReferenceDate
        for row in transactions { XCTAssertEqual(try XCTUnwrap(row[6].double), now, accuracy: 60, "ZTIMESTAMP is seconds since 2001") }
        XCTAssertEqual(try file.scalar("SELECT COUNT(*) FROM ATRANSACTIONSTRING"), .integer(4), "each string is stored once")

        // Department 1, Employee 2, Manager 3; 0 insert, 1 update, 2 delete.
        let (annKey, maxKey) = (try XCTUnwrap(ann.objectID.primaryKey), try XCTUnwrap(max.objectID.primaryKey))
        XCTAssertEqual(try file.rows("SELECT Z_ENT, ZTRANSACTIONID, ZCHANGETYPE, ZENTITY, ZENTITYPK, ZCOLUMNS FROM ACHANGE ORDER BY Z_PK"), [
            [.integer(16001), .integer(1), .integer(0), .integer(1), .integer(try XCTUnwrap(sales.objectID.primaryKey)), .null],
            [.integer(16001), .integer(1), .integer(0), .integer(2), .integer(annKey), .null],
            [.integer(16001), .integer(1), .integer(0), .integer(3), .integer(maxKey), .null],
            // Employee's stored properties by name: age, badge, department, firstName, hired,
            // lastName, manager, salary — age and firstName are bits 0 and 3.
            [.integer(16001), .integer(2), .integer(1), .integer(2), .integer(annKey), .blob(Data([0b1001_0000]))],
            [.integer(16001), .integer(2), .integer(2), .integer(3), .integer(maxKey), .null],
        ])
        XCTAssertEqual(try file.scalar("PRAGMA integrity_check"), .text("ok"))

        let history = try container.history(after: nil)
        XCTAssertEqual(history.map(\.token.transactionNumber), [1, 2])
        XCTAssertEqual(history.map(\.author), ["importer", nil])
        XCTAssertEqual(history.map(\.contextName), ["Test.viewContext", "Test.viewContext"])
        XCTAssertEqual(history[0].changes.map(\.changeType), [.insert, .insert, .insert])
        XCTAssertEqual(history[0].changes.map(\.changedObjectID), [sales.objectID, ann.objectID, max.objectID])
        XCTAssertEqual(history[1].changes.map(\.changedObjectID), [ann.objectID, max.objectID])
        XCTAssertEqual(history[1].changes.map(\.changeType), [.update, .delete])
        XCTAssertEqual(history[1].changes.map(\.updatedProperties), [["age", "firstName"], nil])
        XCTAssertEqual(history[1].changes[1].changedObjectID.entityName, "Manager", "a sub-entity's change names the sub-entity")
    }

    // Tokens, dates and the other calls of the API run on both stores in StoreBehaviourTests
    // (PersistentHistoryTests); these tests read SQLite's own bytes.

    func testDeletingHistoryBeforeATokenKeepsTheTablesConsistent() throws {
        let container = try historyContainer()
        let context = container.viewContext
        var departments: [Department] = []
        for name in ["A", "B", "C", "D"] {
            let department = Department(context: context)
            department.name = name
            departments.append(department)
            try context.save()
        }
        departments[0].budget = 10
        try context.save()
        let all = try container.history(after: nil)
        XCTAssertEqual(all.count, 5)
        XCTAssertEqual(try container.deleteHistory(before: all[2].token), 3)
        XCTAssertEqual(try container.history(after: nil).map(\.token), [all[3].token, all[4].token])
        XCTAssertThrowsError(try container.history(after: all[0].token), "a reader whose token was pruned past is told (PersistentHistoryTests)") { error in
            XCTAssertEqual((error as? HistoryError)?.code, .expiredToken)
        }
        XCTAssertEqual(try container.history(after: all[2].token).map(\.token), [all[3].token, all[4].token])

        let file = try SQLiteFile(storeURL)
        XCTAssertEqual(try file.scalar("SELECT COUNT(*) FROM ACHANGE WHERE ZTRANSACTIONID NOT IN (SELECT Z_PK FROM ATRANSACTION)"), .integer(0),
                       "no change outlives its transaction")
        XCTAssertEqual(try file.scalar("SELECT COUNT(*) FROM ACHANGE"), .integer(2))
        XCTAssertEqual(try file.scalar("PRAGMA integrity_check"), .text("ok"))

        // New transactions continue after the pruned ones.
        departments[1].budget = 20
        try context.save()
        XCTAssertEqual(try container.history(after: all[4].token).map(\.token.transactionNumber), [6])
        XCTAssertEqual(try container.deleteHistory(before: Date().addingTimeInterval(60)), 3)
        XCTAssertEqual(try container.history(after: nil).count, 0)
    }

    func testAStoreWithTheTablesRecordsHistoryWithoutTheOption() throws {
        do {
            let container = try historyContainer()
            Department(context: container.viewContext).name = "First"
            try container.viewContext.save()
            container.persistentStoreCoordinator.close()
        }
        let plain = try PersistentContainer(name: "Test", entities: Models.company, storeURL: storeURL)
        XCTAssertTrue(plain.recordsHistory)
        Department(context: plain.viewContext).name = "Second"
        try plain.viewContext.save()
        plain.persistentStoreCoordinator.close()

        let coordinator = try PersistentStoreCoordinator(model: ManagedObjectModel(entities: Models.company), storeURL: storeURL)
        XCTAssertTrue(coordinator.recordsHistory)
        let context = ManagedObjectContext(coordinator: coordinator, name: "direct")
        Department(context: context).name = "Third"
        try context.save()
        XCTAssertEqual(try coordinator.history(after: nil).map(\.contextName), ["Test.viewContext", "Test.viewContext", "direct"])
    }

    func testAStoreWithoutHistoryRecordsNoneAndSaysSo() throws {
        let container = try makeContainer(Models.company)
        XCTAssertFalse(container.recordsHistory)
        Department(context: container.viewContext).name = "A"
        try container.viewContext.save()
        XCTAssertThrowsError(try container.history(after: nil)) { error in
            XCTAssertEqual((error as? HistoryError)?.code, .notRecorded, "\(error)")
            XCTAssertTrue("\(error)".contains(".persistentHistory"), "\(error)")
        }
        XCTAssertFalse(try SQLiteFile(storeURL).tableNames().contains("ATRANSACTION"))
    }

    func testASaveWhoseHistoryCannotBeWrittenWritesNothing() throws {
        let container = try historyContainer()
        let context = container.viewContext
        Department(context: context).name = "A"
        try context.save()
        // The change rows of the next transaction fail after its rows and its transaction
        // row were written: everything goes, as when the process dies there.
        try SQLiteFile(storeURL, readOnly: false).execute("""
            CREATE TRIGGER refuse_changes BEFORE INSERT ON ACHANGE WHEN NEW.ZTRANSACTIONID > 1
            BEGIN SELECT RAISE(ABORT, 'refused for the test'); END
            """)
        let b = Department(context: context)
        b.name = "B"
        XCTAssertThrowsError(try context.save()) { error in XCTAssertTrue(error is StoreError, "\(error)") }
        XCTAssertTrue(b.objectID.isTemporaryID, "the save did not happen")
        let file = try SQLiteFile(storeURL)
        XCTAssertEqual(try file.rows("SELECT ZNAME FROM ZDEPARTMENT"), [[.text("A")]], "no save without its history")
        XCTAssertEqual(try file.scalar("SELECT COUNT(*) FROM ATRANSACTION"), .integer(1), "no transaction without its changes")
        XCTAssertEqual(try file.scalar("SELECT Z_MAX FROM Z_PRIMARYKEY WHERE Z_ENT = 16002"), .integer(1))
        try SQLiteFile(storeURL, readOnly: false).execute("DROP TRIGGER refuse_changes")
        try context.save()
        XCTAssertEqual(try container.history(after: nil).map(\.token.transactionNumber), [1, 2])
    }

    func testBatchRequestsRecordTheirChanges() throws {
        let container = try historyContainer()
        let context = container.viewContext
        let sales = Department(context: context)
        sales.name = "Sales"
        let max = Manager(context: context)
        max.firstName = "Max"
        var staff: [String: Employee] = [:]
        for name in ["Ann", "Bob", "Cy"] {
            let employee = Employee(context: context)
            employee.firstName = name
            employee.department = name == "Cy" ? nil : sales
            employee.manager = name == "Cy" ? max : nil
            staff[name] = employee
        }
        try context.save()
        let before = try XCTUnwrap(container.currentHistoryToken())
        try context.execute(BatchUpdateRequest(entityName: "Employee", predicate: FetchPredicate("firstName == 'Cy'"), propertiesToUpdate: ["age": 50]))
        try context.execute(BatchDeleteRequest(entityName: "Department"))      // no predicate; cascades to Ann and Bob
        try context.execute(BatchDeleteRequest(entityName: "Manager"))         // nullifies Cy's manager
        let batches = try container.history(after: before)
        XCTAssertEqual(batches.count, 3)
        XCTAssertEqual(batches[0].changes.map(\.changeType), [.update])
        XCTAssertEqual(batches[0].changes.map(\.changedObjectID), [try XCTUnwrap(staff["Cy"]).objectID])
        XCTAssertEqual(batches[0].changes.first?.updatedProperties, ["age"])
        XCTAssertEqual(batches[1].changes.map(\.changeType), [.delete, .delete, .delete])
        XCTAssertEqual(Set(batches[1].changes.map(\.changedObjectID)), [sales.objectID, try XCTUnwrap(staff["Ann"]).objectID, try XCTUnwrap(staff["Bob"]).objectID],
                       "a batch delete without a predicate lists the rows it deleted, and those its cascade rule deleted")
        XCTAssertEqual(batches[2].changes.map(\.changeType), [.delete, .update])
        XCTAssertEqual(batches[2].changes.map(\.changedObjectID), [max.objectID, try XCTUnwrap(staff["Cy"]).objectID])
        XCTAssertEqual(batches[2].changes[1].updatedProperties, nil, "the nullified row's properties are not named")
    }

    func testAStoreWithHistoryOpensWithAModelThatGainedAnEntity() throws {
        do {
            let container = try historyContainer()
            Department(context: container.viewContext).name = "A"
            try container.viewContext.save()
            container.persistentStoreCoordinator.close()
        }
        let grown = try PersistentContainer(name: "Test", entities: Models.company + Models.books, storeURL: storeURL, options: [.persistentHistory])
        let book = Book(context: grown.viewContext)
        book.title = "New"
        try grown.viewContext.save()
        let file = try SQLiteFile(storeURL)
        XCTAssertEqual(try file.scalar("SELECT MAX(Z_ENT) FROM Z_PRIMARYKEY WHERE Z_ENT < 16000"), .integer(6),
                       "the model's six entities keep numbers of their own, below Core Data's history tables")
        XCTAssertEqual(try file.scalar("SELECT COUNT(*) FROM Z_PRIMARYKEY WHERE Z_ENT > 16000"), .integer(3))
        XCTAssertEqual(try grown.history(after: nil).last?.changes.map(\.changedObjectID), [book.objectID])
        XCTAssertEqual(try file.scalar("PRAGMA integrity_check"), .text("ok"))
    }
}
