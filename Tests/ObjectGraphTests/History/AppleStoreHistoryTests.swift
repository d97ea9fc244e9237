import Foundation
import ObjectGraph
import XCTest

/// A store written by Apple's Core Data that already has persistent-history tables (here in
/// the shorter column set some framework versions write, with rows of their own): a save
/// here appends its transaction in that layout, without the option, and the app's earlier
/// transactions read back.
final class AppleStoreHistoryTests: StoreTestCase {
    func testASaveAppendsToTheHistoryTablesAnAppleStoreAlreadyHas() throws {
        let url = try Fixtures.copy("CoreDataPlus", "SampleModel_V1.sqlite", into: directory)
        try SQLiteFile(url, readOnly: false).execute("""
            CREATE TABLE ACHANGE ( Z_PK INTEGER PRIMARY KEY, Z_ENT INTEGER, Z_OPT INTEGER, ZCHANGETYPE INTEGER, ZENTITY INTEGER,
                ZENTITYPK INTEGER, ZTRANSACTIONID INTEGER, ZCOLUMNS BLOB );
            CREATE TABLE ATRANSACTION ( Z_PK INTEGER PRIMARY KEY, Z_ENT INTEGER, Z_OPT INTEGER, ZAUTHORTS INTEGER, ZTIMESTAMP FLOAT,
                ZAUTHOR VARCHAR, ZQUERYGEN BLOB );
            CREATE TABLE ATRANSACTIONSTRING ( Z_PK INTEGER PRIMARY KEY, Z_ENT INTEGER, Z_OPT INTEGER, ZNAME VARCHAR );
            CREATE UNIQUE INDEX Z_TRANSACTIONSTRING_UNIQUE_NAME ON ATRANSACTIONSTRING (ZNAME COLLATE BINARY ASC);
            INSERT INTO Z_PRIMARYKEY (Z_ENT, Z_NAME, Z_SUPER, Z_MAX) VALUES (16001, 'CHANGE', 0, 2), (16002, 'TRANSACTION', 0, 1),
                (16003, 'TRANSACTIONSTRING', 0, 1);
            INSERT INTO ATRANSACTIONSTRING VALUES (1, 16003, NULL, 'com.example.app');
            INSERT INTO ATRANSACTION VALUES (1, 16002, NULL, 1, 700000000.5, NULL, NULL);
            INSERT INTO ACHANGE VALUES (1, 16001, NULL, 0, 2, 126, 1, NULL), (2, 16001, NULL, 0, 99, 5, 1, NULL);
            """)
        // The model file (the Swift classes of the fixture would migrate the store, and a
        // migration leaves the history behind: docs/history.md, known limits).
        let model = try ManagedObjectModel(contentsOf: Fixtures.directory.appendingPathComponent("CoreDataPlus/SampleModel.xcdatamodel-contents.xml"))
        let container = try PersistentContainer(name: "SampleModel", model: model, storeURL: url)
        XCTAssertTrue(container.recordsHistory, "a store with the tables records history without the option")
        let context = container.viewContext
        context.transactionAuthor = "linux"
        var request = FetchRequest<ManagedObject>(entityName: "Car")
        request.sortDescriptors = [SortKey("numberPlate")]
        request.includesSubentities = false
        let cars = try context.fetch(request)
        let (first, second) = (cars[0], cars[1])
        try first.setValue("Lancia", forKey: "maker")
        context.delete(second)
        let sport = try context.insertNewObject(forEntityName: "SportCar")
        try sport.setValue("OG-2", forKey: "numberPlate")
        try context.save()

        let file = try SQLiteFile(url)
        XCTAssertEqual(try file.rows("SELECT Z_PK, Z_ENT, ZAUTHORTS, ZAUTHOR, ZQUERYGEN FROM ATRANSACTION ORDER BY Z_PK").map { Array($0.prefix(4)) }, [
            [.integer(1), .integer(16002), .integer(1), .null],
            [.integer(2), .integer(16002), .integer(2), .null],
        ], "the new transaction continues the numbering, its author interned")
        XCTAssertEqual(try file.rows("SELECT Z_PK, ZNAME FROM ATRANSACTIONSTRING ORDER BY Z_PK"), [[.integer(1), .text("com.example.app")], [.integer(2), .text("linux")]])
        // Car 1, SportCar 2; Car's stored properties by name: color, maker, markedForDeletionAsOf,
        // model, numberPlate, owner — maker is bit 1.
        XCTAssertEqual(try file.rows("SELECT Z_PK, ZCHANGETYPE, ZENTITY, ZENTITYPK, ZTRANSACTIONID, ZCOLUMNS FROM ACHANGE WHERE ZTRANSACTIONID = 2 ORDER BY Z_PK"), [
            [.integer(3), .integer(0), .integer(2), .integer(try XCTUnwrap(sport.objectID.primaryKey)), .integer(2), .null],
            [.integer(4), .integer(1), .integer(1), .integer(try XCTUnwrap(first.objectID.primaryKey)), .integer(2), .blob(Data([0b0100_0000]))],
            [.integer(5), .integer(2), .integer(1), .integer(try XCTUnwrap(second.objectID.primaryKey)), .integer(2), .null],
        ])
        XCTAssertEqual(try file.rows("SELECT Z_MAX FROM Z_PRIMARYKEY WHERE Z_ENT > 16000 ORDER BY Z_ENT"), [[.integer(5)], [.integer(2)], [.integer(2)]])
        XCTAssertEqual(try file.scalar("PRAGMA integrity_check"), .text("ok"))

        let history = try container.history(after: nil)
        XCTAssertEqual(history.map(\.author), ["com.example.app", "linux"])
        XCTAssertEqual(history.map(\.contextName), [nil, nil], "the store's ATRANSACTION has no context name column")
        XCTAssertEqual(history[0].timestamp, Date(timeIntervalSinceReferenceDate: 700_000_000.5))
        XCTAssertEqual(history[0].changes.map(\.changedObjectID.entityName), ["SportCar"], "a change of an entity the model lacks (99) is left out")
        XCTAssertEqual(history[1].changes.map(\.changeType), [.insert, .update, .delete])
        XCTAssertEqual(history[1].changes[1].updatedProperties, ["maker"])
    }
}
