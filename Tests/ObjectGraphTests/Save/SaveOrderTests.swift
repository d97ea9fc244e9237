import Foundation
import ObjectGraph
import XCTest

/// Rows of two entities, named so that the one created first sorts last.
final class SaveOrderZebra: ManagedObject {
    @Attribute var number: Int = 0
}

final class SaveOrderAnt: ManagedObject {
    @Attribute var number: Int = 0
}

/// A save writes updated and deleted rows table by table and key by key, not in the order of
/// the context's change sets: SQLite then walks each B-tree once instead of reading and
/// spilling a page per row once a table outgrows its page cache.
final class SaveOrderTests: StoreTestCase {
    static let rows = 2_000

    func testNewObjectsTakeTheirKeysInTheOrderTheyWereCreated() throws {
        let container = try makeContainer([SaveOrderZebra.self, SaveOrderAnt.self])
        let context = container.viewContext
        for index in 0..<Self.rows {
            SaveOrderZebra(context: context).number = index
            if index % 2 == 0 { SaveOrderAnt(context: context).number = index }
        }
        try context.save()
        let file = try SQLiteFile(storeURL)
        for (table, count) in [("ZSAVEORDERZEBRA", Self.rows), ("ZSAVEORDERANT", Self.rows / 2)] {
            let numbers = try file.rows("SELECT ZNUMBER FROM \(table) ORDER BY Z_PK").compactMap { $0[0].int }
            XCTAssertEqual(numbers.count, count)
            let firstOutOfOrder = zip(numbers, numbers.dropFirst()).first { $0.0 >= $0.1 }
            XCTAssertNil(firstOutOfOrder, "\(table): keys follow creation order; \(firstOutOfOrder.map { "number \($0.1) got a later key than \($0.0)" } ?? "")")
        }
    }

    func testSaveUpdatesAndDeletesRowsTableByTableInKeyOrder() throws {
        let container = try makeContainer([SaveOrderZebra.self, SaveOrderAnt.self])
        let context = container.viewContext
        for index in 0..<Self.rows {
            SaveOrderZebra(context: context).number = index
            SaveOrderAnt(context: context).number = index
        }
        try context.save()

        // Triggers in the store file log every row the library's own statements change.
        let file = try SQLiteFile(storeURL, readOnly: false)
        try file.execute("CREATE TABLE WRITELOG (SEQ INTEGER PRIMARY KEY, KIND TEXT, TBL TEXT, PK INTEGER)")
        for table in ["ZSAVEORDERZEBRA", "ZSAVEORDERANT"] {
            try file.execute("""
                CREATE TRIGGER \(table)_U AFTER UPDATE ON \(table) BEGIN
                INSERT INTO WRITELOG (KIND, TBL, PK) VALUES ('update', '\(table)', NEW.Z_PK); END
                """)
            try file.execute("""
                CREATE TRIGGER \(table)_D AFTER DELETE ON \(table) BEGIN
                INSERT INTO WRITELOG (KIND, TBL, PK) VALUES ('delete', '\(table)', OLD.Z_PK); END
                """)
        }

        let zebras = try context.fetch(FetchRequest<SaveOrderZebra>())
        let ants = try context.fetch(FetchRequest<SaveOrderAnt>())
        XCTAssertEqual(zebras.count + ants.count, 2 * Self.rows)
        var kept: [Int] = []
        for (index, zebra) in zebras.enumerated() {
            if index % 3 == 0 { context.delete(zebra) } else { zebra.number += 1; kept.append(zebra.number) }
        }
        for (index, ant) in ants.enumerated() {
            if index % 5 == 0 { context.delete(ant) } else { ant.number += 1 }
        }
        try context.save()

        let log = try file.rows("SELECT KIND, TBL, PK FROM WRITELOG ORDER BY SEQ")
        XCTAssertEqual(log.count, 2 * Self.rows)
        for kind in ["update", "delete"] {
            let written = log.filter { $0[0].string == kind }.map { "\($0[1].string ?? "?") \($0[2].int.map { String(format: "%06d", $0) } ?? "?")" }
            XCTAssertFalse(written.isEmpty)
            let firstOutOfOrder = zip(written, written.dropFirst()).first { $0.0 >= $0.1 }
            XCTAssertNil(firstOutOfOrder, "\(kind)s go table by table (by entity name), key by key; \(firstOutOfOrder.map { "\($0.1) came after \($0.0)" } ?? "")")
        }
        // The rows changed as the context said.
        let remaining = try file.rows("SELECT count(*), sum(ZNUMBER) FROM ZSAVEORDERZEBRA")[0]
        XCTAssertEqual(remaining[0].int, Int64(kept.count))
        XCTAssertEqual(remaining[1].int, Int64(kept.reduce(0, +)))
    }
}
