import Foundation
@testable import ObjectGraph
import XCTest

/// Sub-entities of one root that declare properties of the same name share the root's table
/// with columns `ZNAME` and `ZNAME1`: a migration reads each entity's values from the column
/// the store gave that entity, never a sibling's. And an optional attribute that keeps its
/// default keeps its nil values: a default applies to new attributes and to attributes that
/// become required.
final class SiblingColumnMigrationTests: StoreTestCase {
    /// Item (root) with Book and Disc below it, both declaring `name` and a to-one `owner`.
    private func shelfModel(bookExtra: String = "") throws -> ManagedObjectModel {
        try fileModel("""
            <entity name="Person" representedClassName="Person">
                <attribute name="label" optional="YES" attributeType="String"/>
                <relationship name="books" optional="YES" toMany="YES" deletionRule="Nullify" destinationEntity="Book" inverseName="owner" inverseEntity="Book"/>
                <relationship name="discs" optional="YES" toMany="YES" deletionRule="Nullify" destinationEntity="Disc" inverseName="owner" inverseEntity="Disc"/>
            </entity>
            <entity name="Item" representedClassName="Item">
                <attribute name="code" optional="YES" attributeType="Integer 64" usesScalarValueType="YES"/>
            </entity>
            <entity name="Book" representedClassName="Book" parentEntity="Item">
                <attribute name="name" optional="YES" attributeType="String"/>
                \(bookExtra)
                <relationship name="owner" optional="YES" maxCount="1" deletionRule="Nullify" destinationEntity="Person" inverseName="books" inverseEntity="Person"/>
            </entity>
            <entity name="Disc" representedClassName="Disc" parentEntity="Item">
                <attribute name="name" optional="YES" attributeType="String"/>
                <relationship name="owner" optional="YES" maxCount="1" deletionRule="Nullify" destinationEntity="Person" inverseName="discs" inverseEntity="Person"/>
            </entity>
            """)
    }

    private func writeShelf(_ model: ManagedObjectModel) throws {
        let container = try PersistentContainer(name: "Test", model: model, storeURL: storeURL)
        let context = container.viewContext
        let ann = try context.insertNewObject(forEntityName: "Person")
        try ann.setValue("Ann", forKey: "label")
        let bob = try context.insertNewObject(forEntityName: "Person")
        try bob.setValue("Bob", forKey: "label")
        for index in 1...3 {
            let book = try context.insertNewObject(forEntityName: "Book")
            try book.setValue("Book \(index)", forKey: "name")
            try book.setValue(Int64(index), forKey: "code")
            try book.setValue(ann, forKey: "owner")
            let disc = try context.insertNewObject(forEntityName: "Disc")
            try disc.setValue("Disc \(index)", forKey: "name")
            try disc.setValue(Int64(10 + index), forKey: "code")
            try disc.setValue(bob, forKey: "owner")
        }
        try context.save()
        container.persistentStoreCoordinator.close()
    }

    func testSiblingsWithSameNamedPropertiesKeepTheirOwnValuesThroughAMigration() throws {
        try writeShelf(try shelfModel())
        let columns = try SQLiteFile(storeURL).columns(of: "ZITEM")
        XCTAssertTrue(columns.contains("ZNAME1") && columns.contains("ZOWNER1"), "the siblings have columns of their own: \(columns)")

        let v2 = try shelfModel(bookExtra: #"<attribute name="isbn" optional="YES" attributeType="String"/>"#)
        let container = try PersistentContainer(name: "Test", model: v2, storeURL: storeURL)
        let context = container.viewContext
        var books = FetchRequest<ManagedObject>(entityName: "Book")
        books.sortDescriptors = [SortKey("code")]
        var discs = FetchRequest<ManagedObject>(entityName: "Disc")
        discs.sortDescriptors = [SortKey("code")]
        let fetchedBooks = try context.fetch(books)
        let fetchedDiscs = try context.fetch(discs)
        XCTAssertEqual(fetchedBooks.map { $0.value(forKey: "name") as? String }, ["Book 1", "Book 2", "Book 3"])
        XCTAssertEqual(fetchedDiscs.map { $0.value(forKey: "name") as? String }, ["Disc 1", "Disc 2", "Disc 3"])
        XCTAssertEqual(fetchedBooks.map { ($0.value(forKey: "owner") as? ManagedObject)?.value(forKey: "label") as? String }, ["Ann", "Ann", "Ann"])
        XCTAssertEqual(fetchedDiscs.map { ($0.value(forKey: "owner") as? ManagedObject)?.value(forKey: "label") as? String }, ["Bob", "Bob", "Bob"])
        XCTAssertEqual(fetchedDiscs.map { $0.value(forKey: "code") as? Int64 }, [11, 12, 13])
        try assertStoreIntegrity(storeURL)
    }

    /// The same, for a store that does not describe its model (as Apple's Core Data writes
    /// them): the values in the store tell which of the same-named columns is whose.
    func testSiblingsKeepTheirValuesWhenTheStoreDoesNotDescribeItsModel() throws {
        try writeShelf(try shelfModel())
        try forgetRecordedModel(storeURL)
        let v2 = try shelfModel(bookExtra: #"<attribute name="isbn" optional="YES" attributeType="String"/>"#)
        let container = try PersistentContainer(name: "Test", model: v2, storeURL: storeURL)
        var discs = FetchRequest<ManagedObject>(entityName: "Disc")
        discs.sortDescriptors = [SortKey("code")]
        let fetched = try container.viewContext.fetch(discs)
        XCTAssertEqual(fetched.map { $0.value(forKey: "name") as? String }, ["Disc 1", "Disc 2", "Disc 3"])
        XCTAssertEqual(fetched.map { ($0.value(forKey: "owner") as? ManagedObject)?.value(forKey: "label") as? String }, ["Bob", "Bob", "Bob"])
    }

    func testAnOptionalAttributeWithADefaultKeepsItsNilThroughAMigration() throws {
        func model(_ extra: String) throws -> ManagedObjectModel {
            try fileModel("""
                <entity name="Invoice" representedClassName="Invoice">
                    <attribute name="number" attributeType="Integer 64" defaultValueString="0" usesScalarValueType="YES"/>
                    <attribute name="total" optional="YES" attributeType="Decimal" defaultValueString="0.0"/>
                    \(extra)
                </entity>
                """)
        }
        do {
            let container = try PersistentContainer(name: "Test", model: try model(""), storeURL: storeURL)
            let empty = try container.viewContext.insertNewObject(forEntityName: "Invoice")
            try empty.setValue(Int64(1), forKey: "number")
            try empty.setValue(nil, forKey: "total")
            let paid = try container.viewContext.insertNewObject(forEntityName: "Invoice")
            try paid.setValue(Int64(2), forKey: "number")
            try paid.setValue(Decimal(string: "12.5"), forKey: "total")
            try container.viewContext.save()
            container.persistentStoreCoordinator.close()
        }
        let v2 = try model("""
            <attribute name="note" optional="YES" attributeType="String"/>
            <attribute name="due" optional="YES" attributeType="Date"/>
            """)
        let container = try PersistentContainer(name: "Test", model: v2, storeURL: storeURL)
        var request = FetchRequest<ManagedObject>(entityName: "Invoice")
        request.sortDescriptors = [SortKey("number")]
        let invoices = try container.viewContext.fetch(request)
        XCTAssertEqual(invoices.count, 2)
        XCTAssertNil(invoices.first?.value(forKey: "total"), "an optional value that was nil stays nil")
        XCTAssertEqual(invoices.last?.value(forKey: "total") as? Decimal, Decimal(string: "12.5"))
        XCTAssertEqual(try SQLiteFile(storeURL).scalar("SELECT count(*) FROM ZINVOICE WHERE ZTOTAL IS NULL"), .integer(1))
    }
}

extension StoreTestCase {
    /// Removes the model a store written here records in its metadata, so that it looks like
    /// a store of Apple's Core Data (which keeps its model where it cannot be read here).
    func forgetRecordedModel(_ url: URL) throws {
        let file = try SQLiteFile(url)
        let plist = try XCTUnwrap(file.scalar("SELECT Z_PLIST FROM Z_METADATA")?.data)
        var metadata = try XCTUnwrap(PropertyListSerialization.propertyList(from: plist, format: nil) as? [String: Any])
        metadata.removeValue(forKey: "ManagedRecordModel")
        let data = try PropertyListSerialization.data(fromPropertyList: metadata, format: .binary, options: 0)
        let connection = try SQLiteConnection(path: url.path, create: false)
        defer { connection.close() }
        try connection.run("UPDATE Z_METADATA SET Z_PLIST = ?", [.blob(data)])
    }
}
