import Foundation
import ObjectGraph
import XCTest

/// The file a save writes, read with the SQLite C API: Core Data's layout.
final class StoreLayoutTests: StoreTestCase {
    /// Department 1, Employee 2, Manager 3, Playlist 4, Song 5, Specimen 6, Tag 7.
    private var entities: [ManagedObject.Type] { Models.company + Models.music + Models.specimen }
    private let identifier = UUID(uuidString: "0C0A91B2-34F4-4881-AAA2-3BF0E57F048F")!

    /// Writes a small graph and closes the container.
    private func writeStore() throws {
        let container = try makeContainer(entities)
        let context = container.viewContext
        let sales = Department(context: context)
        sales.name = "Sales"
        let boss = Manager(context: context)
        boss.firstName = "Boss"
        boss.department = sales
        for name in ["Ann", "Bob"] {
            let employee = Employee(context: context)
            employee.firstName = name
            employee.department = sales
            employee.manager = boss
        }
        let playlist = Playlist(context: context)
        let first = Song(context: context)
        first.title = "First"
        let second = Song(context: context)
        second.title = "Second"
        playlist.songs = [second, first]
        let tag = Tag(context: context)
        tag.label = "t"
        first.tags = [tag]
        second.tags = [tag]
        let specimen = Specimen(context: context)
        specimen.flag = true
        specimen.moment = Date(timeIntervalSinceReferenceDate: 12.5)
        specimen.identifier = identifier
        specimen.link = URL(string: "https://example.com/p")!
        specimen.amount = Decimal(string: "2.25")!
        try context.save()
    }

    func testTheStorePassesIntegrityCheck() throws {
        try writeStore()
        XCTAssertEqual(try SQLiteFile(storeURL).rows("PRAGMA integrity_check"), [[.text("ok")]])
    }

    func testTablesAreOnePerRootEntityPlusCoreDatasOwn() throws {
        try writeStore()
        let file = try SQLiteFile(storeURL)
        let tables = Set(try file.tableNames())
        XCTAssertTrue(tables.isSuperset(of: ["ZDEPARTMENT", "ZEMPLOYEE", "ZPLAYLIST", "ZSONG", "ZSPECIMEN", "ZTAG",
                                             "Z_PRIMARYKEY", "Z_METADATA", "Z_MODELCACHE"]), "\(tables)")
        XCTAssertFalse(tables.contains("ZMANAGER"), "a sub-entity shares its root's table")
        for table in ["ZDEPARTMENT", "ZEMPLOYEE", "ZSONG", "ZSPECIMEN"] {
            XCTAssertEqual(Array(try file.columns(of: table).prefix(3)), ["Z_PK", "Z_ENT", "Z_OPT"], table)
        }
        XCTAssertEqual(try file.columns(of: "Z_PRIMARYKEY"), ["Z_ENT", "Z_NAME", "Z_SUPER", "Z_MAX"])
        XCTAssertEqual(try file.columns(of: "Z_METADATA"), ["Z_VERSION", "Z_UUID", "Z_PLIST"])
    }

    func testColumnsAreZPlusTheUppercasedNameWithCoreDatasTypes() throws {
        try writeStore()
        let types = try SQLiteFile(storeURL).columnTypes(of: "ZEMPLOYEE")
        let expected = ["Z_PK": "INTEGER", "Z_ENT": "INTEGER", "Z_OPT": "INTEGER", "ZFIRSTNAME": "VARCHAR",
                        "ZLASTNAME": "VARCHAR", "ZAGE": "INTEGER", "ZSALARY": "FLOAT", "ZHIRED": "TIMESTAMP",
                        "ZBADGE": "BLOB", "ZLEVEL": "INTEGER", "ZDEPARTMENT": "INTEGER", "ZMANAGER": "INTEGER"]
        for (column, type) in expected { XCTAssertEqual(types[column], type, column) }
        XCTAssertNil(types["ZSCRATCH"], "transient attributes have no column")
        XCTAssertNil(types["ZREPORTS"], "a to-many stored as the inverse's foreign key has no column")
        let specimen = try SQLiteFile(storeURL).columnTypes(of: "ZSPECIMEN")
        XCTAssertEqual(specimen["ZAMOUNT"], "DECIMAL")
        XCTAssertEqual(specimen["ZFLAG"], "INTEGER")
        XCTAssertEqual(specimen["ZIDENTIFIER"], "BLOB")
        XCTAssertEqual(specimen["ZLINK"], "VARCHAR")
        XCTAssertEqual(specimen["ZSINGLE"], "FLOAT")
        XCTAssertEqual(specimen["ZDIMENSIONS"], "BLOB")
    }

    func testPrimaryKeyTableNumbersEntitiesAlphabeticallyWithParentsAndLastKeys() throws {
        try writeStore()
        let rows = try SQLiteFile(storeURL).rows("SELECT Z_ENT, Z_NAME, Z_SUPER, Z_MAX FROM Z_PRIMARYKEY ORDER BY Z_ENT")
        XCTAssertEqual(rows, [
            [.integer(1), .text("Department"), .integer(0), .integer(1)],
            [.integer(2), .text("Employee"), .integer(0), .integer(3)],
            [.integer(3), .text("Manager"), .integer(2), .integer(0)],
            [.integer(4), .text("Playlist"), .integer(0), .integer(1)],
            [.integer(5), .text("Song"), .integer(0), .integer(2)],
            [.integer(6), .text("Specimen"), .integer(0), .integer(1)],
            [.integer(7), .text("Tag"), .integer(0), .integer(1)],
        ])
    }

    func testMetadataHoldsABinaryPropertyListWithTheStoreTypeAndVersionHashes() throws {
        try writeStore()
        let rows = try SQLiteFile(storeURL).rows("SELECT Z_VERSION, Z_UUID, Z_PLIST FROM Z_METADATA")
        XCTAssertEqual(rows.count, 1)
        let row = try XCTUnwrap(rows.first)
        XCTAssertNotNil(UUID(uuidString: row[1].string ?? ""), "Z_UUID is a UUID: \(row[1])")
        let plist = try XCTUnwrap(row[2].data)
        XCTAssertEqual(String(decoding: plist.prefix(8), as: UTF8.self), "bplist00", "a binary property list")
        let dictionary = try XCTUnwrap(PropertyListSerialization.propertyList(from: plist, format: nil) as? [String: Any])
        XCTAssertEqual(dictionary["NSStoreType"] as? String, "SQLite")
        let hashes = try XCTUnwrap(dictionary["NSStoreModelVersionHashes"] as? [String: Data])
        XCTAssertEqual(Set(hashes.keys), ["Department", "Employee", "Manager", "Playlist", "Song", "Specimen", "Tag"])
        XCTAssertTrue(hashes.values.allSatisfy { $0.count == 32 }, "SHA-256 hashes")
        XCTAssertNotNil(dictionary["NSPersistenceFrameworkVersion"])
        XCTAssertNotNil(dictionary["NSStoreModelVersionIdentifiers"] as? [String])

        let model = try ManagedObjectModel(entities: entities)
        XCTAssertEqual(hashes, model.entityVersionHashesByName)
    }

    func testRowsCarryEntityNumbersVersionsAndCoreDatasValueEncodings() throws {
        try writeStore()
        let file = try SQLiteFile(storeURL)
        XCTAssertEqual(try file.rows("SELECT ZFIRSTNAME, Z_ENT, Z_OPT FROM ZEMPLOYEE ORDER BY ZFIRSTNAME"), [
            [.text("Ann"), .integer(2), .integer(1)],
            [.text("Bob"), .integer(2), .integer(1)],
            [.text("Boss"), .integer(3), .integer(1)],
        ])
        let bossKey = try XCTUnwrap(file.scalar("SELECT Z_PK FROM ZEMPLOYEE WHERE ZFIRSTNAME = 'Boss'")?.int)
        let departmentKey = try XCTUnwrap(file.scalar("SELECT Z_PK FROM ZDEPARTMENT")?.int)
        XCTAssertEqual(try file.rows("SELECT ZMANAGER, ZDEPARTMENT FROM ZEMPLOYEE WHERE ZFIRSTNAME = 'Ann'"),
                       [[.integer(bossKey), .integer(departmentKey)]])

        let specimen = try XCTUnwrap(file.rows("SELECT ZFLAG, ZMOMENT, ZIDENTIFIER, ZLINK, ZAMOUNT FROM ZSPECIMEN").first)
        XCTAssertEqual(specimen[0], .integer(1), "booleans are 0/1")
        XCTAssertEqual(specimen[1], .real(12.5), "dates are REAL seconds since 2001-01-01")
        let uuidBytes = withUnsafeBytes(of: identifier.uuid) { Data($0) }
        XCTAssertEqual(specimen[2], .blob(uuidBytes), "UUIDs are 16-byte BLOBs")
        XCTAssertEqual(specimen[3], .text("https://example.com/p"))
        XCTAssertEqual(specimen[4].double, 2.25)
    }

    func testManyToManyUsesAJoinTableNamedAfterEntityNumberAndRelationship() throws {
        try writeStore()
        let file = try SQLiteFile(storeURL)
        let tables = try file.tableNames()
        XCTAssertTrue(tables.contains("Z_5TAGS"), "Song (5).tags <-> Tag (7).songs: \(tables)")
        XCTAssertEqual(try file.columns(of: "Z_5TAGS"), ["Z_5SONGS", "Z_7TAGS"])
        let songs = try file.rows("SELECT Z_PK FROM ZSONG ORDER BY Z_PK").compactMap { $0[0].int }
        let tag = try XCTUnwrap(file.scalar("SELECT Z_PK FROM ZTAG")?.int)
        XCTAssertEqual(try file.rows("SELECT Z_5SONGS, Z_7TAGS FROM Z_5TAGS ORDER BY 1"), songs.map { [.integer($0), .integer(tag)] })
    }

    func testAnOrderedToManyStoresPositionsInAZFOKColumn() throws {
        try writeStore()
        let file = try SQLiteFile(storeURL)
        let columns = try file.columns(of: "ZSONG")
        XCTAssertTrue(columns.contains("Z_FOK_PLAYLIST"), "\(columns)")
        XCTAssertEqual(try file.rows("SELECT ZTITLE FROM ZSONG ORDER BY Z_FOK_PLAYLIST"), [[.text("Second")], [.text("First")]])
    }

    func testForeignKeysAndEntityColumnsAreIndexed() throws {
        try writeStore()
        let indexes = Set(try SQLiteFile(storeURL).indexNames())
        for index in ["ZEMPLOYEE_ZDEPARTMENT_INDEX", "ZEMPLOYEE_ZMANAGER_INDEX", "ZEMPLOYEE_Z_ENT_INDEX", "ZSONG_ZPLAYLIST_INDEX"] {
            XCTAssertTrue(indexes.contains(index), "\(index) missing from \(indexes)")
        }
        XCTAssertTrue(indexes.contains { $0.hasPrefix("Z_5TAGS_") }, "the join table is indexed: \(indexes)")
    }

    func testAFailedSaveLeavesNoWriteBehindAndKeysAreNotConsumed() throws {
        let container = try makeContainer(Models.tickets)
        let context = container.viewContext
        let ok = Ticket(context: context)
        ok.title = "ok"
        try context.save()
        _ = Ticket(context: context)                  // invalid: no title
        XCTAssertThrowsError(try context.save())
        let file = try SQLiteFile(storeURL)
        XCTAssertEqual(try file.scalar("SELECT Z_MAX FROM Z_PRIMARYKEY WHERE Z_NAME = 'Ticket'"), .integer(1))
        XCTAssertEqual(try file.rows("PRAGMA integrity_check"), [[.text("ok")]])
    }
}
