import Foundation
import ObjectGraph
import ObjectGraphPostgres
import PostgresTestSupport
import XCTest

/// Reopening a PostgreSQL schema with another version of its model: the store's version
/// hashes (in `Z_METADATA`'s plist, as in a SQLite store) decide, so a change that keeps the
/// tables and columns (a type, a uniqueness constraint) is migrated too; opened read-only,
/// the schema is refused with a typed error saying what differs. A schema whose metadata
/// holds no hashes opens when its tables and columns fit, and gets them. (Migration itself:
/// StoreBehaviourTests' StoreMigrationTests.)
final class PostgresSchemaVersionTests: XCTestCase {
    private var folder: URL!

    override func setUpWithError() throws {
        folder = FileManager.default.temporaryDirectory.appendingPathComponent("PostgresSchemaVersion-\(UUID().uuidString)", isDirectory: true)
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
    }

    override func tearDownWithError() throws {
        try? FileManager.default.removeItem(at: folder)
    }

    /// A model of one entity, Item, with `number` of `numberType` and `name`, `extra` inside
    /// the entity element (e.g. uniqueness constraints).
    private func model(numberType: String, extra: String = "") throws -> ManagedObjectModel {
        let file = folder.appendingPathComponent("\(UUID().uuidString).xml")
        try """
            <?xml version="1.0" encoding="UTF-8" standalone="yes"?>
            <model type="com.apple.IDECoreDataModeler.DataModel" documentVersion="1.0">
                <entity name="Item" representedClassName="Item" syncable="YES">
                    <attribute name="name" optional="YES" attributeType="String"/>
                    <attribute name="number" optional="YES" attributeType="\(numberType)" usesScalarValueType="YES"/>
                    \(extra)
                </entity>
            </model>
            """.write(to: file, atomically: true, encoding: .utf8)
        return try ManagedObjectModel(contentsOf: file)
    }

    private func open(_ url: URL, _ model: ManagedObjectModel, options: PersistentContainer.Options = []) throws -> PersistentContainer {
        try PersistentContainer(name: "Items", model: model, store: .postgres(url), options: options)
    }

    /// A schema written with `model`, holding Item(name "a", number 42) and Item("b", 42).
    private func schema(_ prefix: String, _ model: ManagedObjectModel) throws -> URL {
        let url = try PostgresTestServer.newDatabase(prefix)
        let container = try open(url, model)
        defer { container.persistentStoreCoordinator.close() }
        for name in ["a", "b"] {
            let item = try container.viewContext.insertNewObject(forEntityName: "Item")
            try item.setValue(name, forKey: "name")
            try item.setValue(Int64(42), forKey: "number")
        }
        try container.viewContext.save()
        return url
    }

    private func assertRefused(_ open: @autoclosure () throws -> PersistentContainer, naming expected: [String],
                               file: StaticString = #filePath, line: UInt = #line) {
        XCTAssertThrowsError(try open(), file: file, line: line) { error in
            let storeError = error as? StoreError
            XCTAssertEqual(storeError?.code, .incompatibleModel, "\(error)", file: file, line: line)
            let message = storeError?.message ?? ""
            XCTAssertTrue(message.contains("read-only is not migrated"), "says why it is not migrated: \(message)", file: file, line: line)
            for text in expected {
                XCTAssertTrue(message.contains(text), "names \(text): \(message)", file: file, line: line)
            }
        }
    }

    func testAnAttributeOfAnotherTypeIsRefusedReadOnlyAndMigratedOtherwise() throws {
        let written = try model(numberType: "Integer 64")
        let url = try schema("version_type", written)

        assertRefused(try open(url, model(numberType: "String"), options: [.readOnly]), naming: ["Item.number", "Integer 64", "String"])
        do {
            let reopened = try open(url, written)
            defer { reopened.persistentStoreCoordinator.close() }
            let items = try reopened.viewContext.fetch(FetchRequest<ManagedObject>(entityName: "Item"))
            XCTAssertEqual(items.map { "\($0.value(forKey: "number") ?? "nil")" }, ["42", "42"], "nothing was changed")
        }
        let migrated = try open(url, model(numberType: "String"))
        defer { migrated.persistentStoreCoordinator.close() }
        let items = try migrated.viewContext.fetch(FetchRequest<ManagedObject>(entityName: "Item"))
        XCTAssertEqual(items.map { $0.value(forKey: "number") as? String }, ["42", "42"], "Integer 64 converted to String, as on SQLite")
    }

    func testANewUniquenessConstraintTheRowsBreakStopsTheMigration() throws {
        let url = try schema("version_unique", try model(numberType: "Integer 64"))
        let constrained = try model(numberType: "Integer 64", extra: """
            <uniquenessConstraints><uniquenessConstraint><constraint value="number"/></uniquenessConstraint></uniquenessConstraints>
            """)
        assertRefused(try open(url, constrained, options: [.readOnly]), naming: ["Item", "uniqueness"])
        XCTAssertThrowsError(try open(url, constrained)) { error in
            XCTAssertEqual((error as? MigrationError)?.code, .writeFailed, "\(error)")
            XCTAssertTrue("\(error)".contains("break a uniqueness constraint"), "\(error)")
        }
        XCTAssertEqual(try PostgresTestServer.psql("SELECT count(*) FROM pg_indexes WHERE schemaname = 'coredata' AND indexname ILIKE 'z_item_unique%'", database: url), "0")
        XCTAssertEqual(try PostgresTestServer.psql("SELECT count(*) FROM coredata.zitem", database: url), "2")
    }

    func testASchemaWithoutVersionHashesOpensWhenItFitsAndRecordsThem() throws {
        let written = try model(numberType: "Integer 64")
        let url = try schema("version_legacy", written)
        // The metadata as a schema written without version hashes has it.
        let legacy = try PropertyListSerialization.data(fromPropertyList: ["NSStoreType": "PostgreSQL", "NSPersistenceFrameworkVersion": 1044],
                                                        format: .binary, options: 0)
        try PostgresTestServer.psql("UPDATE coredata.z_metadata SET z_plist = decode('\(legacy.map { String(format: "%02x", $0) }.joined())', 'hex')", database: url)

        do {
            let reopened = try open(url, written)
            defer { reopened.persistentStoreCoordinator.close() }
            XCTAssertEqual(try reopened.viewContext.count(for: FetchRequest<ManagedObject>(entityName: "Item")), 2)
        }
        let hex = try PostgresTestServer.psql("SELECT encode(z_plist, 'hex') FROM coredata.z_metadata", database: url)
        let plist = try XCTUnwrap(PropertyListSerialization.propertyList(from: Data(hexadecimal: hex), format: nil) as? [String: Any])
        let hashes = try XCTUnwrap(plist["NSStoreModelVersionHashes"] as? [String: Data], "hashes recorded on opening: \(plist.keys.sorted())")
        XCTAssertEqual(hashes, written.entityVersionHashesByName)
        assertRefused(try open(url, model(numberType: "String"), options: [.readOnly]), naming: ["Item.number"])
    }

    // Before: Decimals were `double precision` columns, and 12345678901234567890.123456789
    // read back as 12345678901234600000.
    func testDecimalColumnsOfAnOlderSchemaBecomeNumericWhenOpened() throws {
        let decimals = try model(numberType: "Decimal")
        let url = try PostgresTestServer.newDatabase("version_decimal")
        do {
            let container = try open(url, decimals)
            defer { container.persistentStoreCoordinator.close() }
            for (name, number) in [("a", "12.34"), ("b", "-0.000001"), ("c", "123456789012345")] {
                let item = try container.viewContext.insertNewObject(forEntityName: "Item")
                try item.setValue(name, forKey: "name")
                try item.setValue(Decimal(string: number)!, forKey: "number")
            }
            try container.viewContext.save()
        }
        let columnType = "SELECT data_type FROM information_schema.columns WHERE table_schema = 'coredata' AND table_name = 'zitem' AND column_name = 'znumber'"
        XCTAssertEqual(try PostgresTestServer.psql(columnType, database: url), "numeric")
        // The schema as an older version wrote it: the doubles NSDecimalNumber gave (an ulp off).
        try PostgresTestServer.psql("ALTER TABLE coredata.zitem ALTER COLUMN znumber TYPE double precision USING znumber::double precision", database: url)
        try PostgresTestServer.psql("UPDATE coredata.zitem SET znumber = 12.340000000000002 WHERE zname = 'a'", database: url)

        func numbers(_ container: PersistentContainer) throws -> [String] {
            var request = FetchRequest<ManagedObject>(entityName: "Item")
            request.sortDescriptors = [SortKey("name")]
            return try container.viewContext.fetch(request).map { "\($0.value(forKey: "number") ?? "nil")" }
        }
        do {
            let readOnly = try open(url, decimals, options: [.readOnly])
            defer { readOnly.persistentStoreCoordinator.close() }
            XCTAssertEqual(try numbers(readOnly), ["12.34", "-0.000001", "123456789012345"], "read as before")
        }
        XCTAssertEqual(try PostgresTestServer.psql(columnType, database: url), "double precision", "read-only: not converted")

        let converted = try open(url, decimals)
        defer { converted.persistentStoreCoordinator.close() }
        XCTAssertEqual(try PostgresTestServer.psql(columnType, database: url), "numeric", "converted on opening")
        XCTAssertEqual(try numbers(converted), ["12.34", "-0.000001", "123456789012345"], "no value changed")
        let long = Decimal(string: "12345678901234567890.123456789")!
        let item = try converted.viewContext.insertNewObject(forEntityName: "Item")
        try item.setValue("d", forKey: "name")
        try item.setValue(long, forKey: "number")
        try converted.viewContext.save()
        XCTAssertEqual(try PostgresTestServer.psql("SELECT znumber FROM coredata.zitem WHERE zname = 'd'", database: url),
                       "12345678901234567890.123456789")
        let reopened = try open(url, decimals)
        defer { reopened.persistentStoreCoordinator.close() }
        XCTAssertEqual(try numbers(reopened).last, "12345678901234567890.123456789")
    }

    func testASchemaWithoutVersionHashesAndAnotherColumnTypeIsRefused() throws {
        let url = try schema("version_legacy_type", try model(numberType: "Integer 64"))
        let legacy = try PropertyListSerialization.data(fromPropertyList: ["NSStoreType": "PostgreSQL"], format: .binary, options: 0)
        try PostgresTestServer.psql("UPDATE coredata.z_metadata SET z_plist = decode('\(legacy.map { String(format: "%02x", $0) }.joined())', 'hex')", database: url)
        XCTAssertThrowsError(try open(url, model(numberType: "String"))) { error in
            XCTAssertEqual((error as? StoreError)?.code, .incompatibleModel, "\(error)")
            XCTAssertTrue("\(error)".contains("ZITEM.ZNUMBER"), "\(error)")
        }
    }
}

private extension Data {
    /// The bytes of a string of hexadecimal digit pairs (psql's `encode(..., 'hex')`).
    init(hexadecimal text: String) {
        var bytes: [UInt8] = []
        var index = text.startIndex
        while let next = text.index(index, offsetBy: 2, limitedBy: text.endIndex), index < text.endIndex {
            bytes.append(UInt8(text[index..<next], radix: 16) ?? 0)
            index = next
        }
        self.init(bytes)
    }
}
