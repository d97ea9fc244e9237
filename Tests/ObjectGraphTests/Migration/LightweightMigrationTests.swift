import Foundation
import ObjectGraph
import XCTest

// Version 1 of a small shelf model.
final class ShelfV1: ManagedObject {
    override class var entityName: String { "Shelf" }
    @Attribute var label: String = ""
    @Relationship(inverse: \ShelfItemV1.$location) var items: Set<ShelfItemV1>
}

final class ShelfItemV1: ManagedObject {
    override class var entityName: String { "ShelfItem" }
    @Attribute var title: String = ""
    @Attribute var count: Int = 0
    @Attribute var price: Double = 0
    @Attribute var code: String = ""
    @Attribute var note: String? = nil
    @Attribute var obsolete: String = ""
    @Attribute var surname: String = ""
    @Attribute var shipped: Date? = nil
    @Relationship var location: ShelfV1?
}

final class CrateV1: ManagedObject {
    override class var entityName: String { "Crate" }
    @Attribute var size: Int = 0
}

// Version 2: every kind of change a lightweight migration infers.
final class ShelfV2: ManagedObject {
    override class var entityName: String { "Shelf" }
    @Attribute var label: String = ""
    @Relationship(inverse: \ShelfItemV2.$location) var items: Set<ShelfItemV2>   // many-to-many now
}

final class ShelfItemV2: ManagedObject {
    override class var entityName: String { "ShelfItem" }
    @Attribute var title: String = ""
    @Attribute var count: Int16 = 0                          // Integer 64 -> Integer 16
    @Attribute var price: String = ""                        // Double -> String
    @Attribute var code: Int = 0                             // String -> Integer 64
    @Attribute var note: String = "none"                     // optional -> required with a default
    @Attribute(originalName: "surname") var familyName: String = ""   // renamed
    @Attribute var added: Int = 5                            // new, with a default
    @Attribute var shipped: Date? = nil
    @Relationship var location: Set<ShelfV2>                 // to-one -> to-many (many-to-many)
}

final class BinV2: ManagedObject {                           // a new entity; Crate is gone
    override class var entityName: String { "Bin" }
    @Attribute var depth: Int = 0
}

// Version 3: back from many-to-many to a to-one, String -> Double.
final class ShelfV3: ManagedObject {
    override class var entityName: String { "Shelf" }
    @Attribute var label: String = ""
    @Relationship(inverse: \ShelfItemV3.$location) var items: Set<ShelfItemV3>
}

final class ShelfItemV3: ManagedObject {
    override class var entityName: String { "ShelfItem" }
    @Attribute var title: String = ""
    @Attribute var count: Int = 0
    @Attribute var price: Double = 0
    @Attribute var familyName: String = ""
    @Relationship var location: ShelfV3?
}

// A date that becomes a number: not inferable.
final class ShelfItemDateAsNumber: ManagedObject {
    override class var entityName: String { "ShelfItem" }
    @Attribute var title: String = ""
    @Attribute var shipped: Double = 0
}

/// Lightweight migration of Swift models, one inferred change kind per assertion group,
/// each through the public API on a real store file.
final class LightweightMigrationTests: StoreTestCase {
    static let v1: [ManagedObject.Type] = [ShelfV1.self, ShelfItemV1.self, CrateV1.self]
    static let v2: [ManagedObject.Type] = [ShelfV2.self, ShelfItemV2.self, BinV2.self]
    static let v3: [ManagedObject.Type] = [ShelfV3.self, ShelfItemV3.self]

    /// Two shelves, three items (two on shelves), one crate.
    func writeVersion1(code: String = "42", count: Int = 7) throws {
        let container = try makeContainer(Self.v1)
        let context = container.viewContext
        let a = ShelfV1(context: context); a.label = "A"
        let b = ShelfV1(context: context); b.label = "B"
        for (index, title) in ["one", "two", "three"].enumerated() {
            let item = ShelfItemV1(context: context)
            item.title = title
            item.count = count + index
            item.price = 9.5 + Double(index)
            item.code = index == 0 ? code : String(index)
            item.note = index == 1 ? "kept" : nil
            item.obsolete = "gone"
            item.surname = "Name\(index)"
            item.location = [a, b, nil][index]
        }
        CrateV1(context: context).size = 3
        try context.save()
    }

    func testEveryInferredChangeOfASwiftModelMigratesTheRows() throws {
        try writeVersion1()
        let model = try ManagedObjectModel(entities: Self.v2)
        XCTAssertTrue(try PersistentStoreCoordinator.requiresMigration(model: model, storeURL: storeURL))
        // Crate's row and `obsolete`'s values are dropped on purpose.
        let container = try PersistentContainer(name: "Test", model: model, storeURL: storeURL, options: [.allowsDroppingData])
        let items = try fetchAll(ShelfItemV2.self, in: container.viewContext, sortedBy: "title")
        XCTAssertEqual(items.map(\.title), ["one", "three", "two"])
        let byTitle = Dictionary(uniqueKeysWithValues: items.map { ($0.title, $0) })
        XCTAssertEqual(byTitle["one"]?.count, 7, "Integer 64 -> Integer 16")
        XCTAssertEqual(byTitle["three"]?.count, 9)
        XCTAssertEqual(byTitle["one"]?.price, "9.5", "Double -> String")
        XCTAssertEqual(byTitle["two"]?.price, "10.5")
        XCTAssertEqual(byTitle["one"]?.code, 42, "String -> Integer 64")
        XCTAssertEqual(byTitle["three"]?.code, 2)
        XCTAssertEqual(byTitle["one"]?.note, "none", "a nil in a now-required attribute gets the default")
        XCTAssertEqual(byTitle["two"]?.note, "kept")
        XCTAssertEqual(byTitle["three"]?.familyName, "Name2", "renamed through originalName")
        XCTAssertEqual(byTitle["two"]?.added, 5, "a new attribute gets its default")
        XCTAssertEqual(byTitle["one"]?.location.map(\.label), ["A"], "a to-one became a to-many")
        XCTAssertEqual(byTitle["two"]?.location.map(\.label), ["B"])
        XCTAssertEqual(byTitle["three"]?.location.count, 0)
        let shelves = try fetchAll(ShelfV2.self, in: container.viewContext, sortedBy: "label")
        XCTAssertEqual(shelves.map { $0.items.map(\.title) }, [["one"], ["two"]], "the inverse reads the join table")
        XCTAssertEqual(try container.viewContext.count(for: FetchRequest<BinV2>()), 0)

        // The store is Core Data's layout for the new model, numbered as it numbers it.
        let file = try SQLiteFile(storeURL)
        XCTAssertFalse(try file.tableNames().contains("ZCRATE"), "a removed entity's table is gone")
        XCTAssertFalse(try file.columns(of: "ZSHELFITEM").contains("ZOBSOLETE"), "a removed attribute's column is gone")
        XCTAssertFalse(try file.columns(of: "ZSHELFITEM").contains("ZSHELF"))
        XCTAssertEqual(try file.rows("SELECT Z_ENT, Z_NAME FROM Z_PRIMARYKEY ORDER BY Z_ENT"),
                       [[.integer(1), .text("Bin")], [.integer(2), .text("Shelf")], [.integer(3), .text("ShelfItem")]])
        XCTAssertEqual(try file.rows("SELECT DISTINCT Z_ENT FROM ZSHELFITEM"), [[.integer(3)]], "rows renumbered")
        XCTAssertEqual(try file.scalar("SELECT Z_MAX FROM Z_PRIMARYKEY WHERE Z_NAME = 'ShelfItem'"), .integer(3))
        let plist = try XCTUnwrap(file.scalar("SELECT Z_PLIST FROM Z_METADATA")?.data)
        let metadata = try XCTUnwrap(PropertyListSerialization.propertyList(from: plist, format: nil) as? [String: Any])
        XCTAssertEqual(metadata["NSStoreModelVersionHashes"] as? [String: Data], model.entityVersionHashesByName)
        try assertStoreIntegrity(storeURL)
        XCTAssertFalse(try PersistentStoreCoordinator.requiresMigration(model: model, storeURL: storeURL))
        XCTAssertEqual(try migrationLeftovers(storeURL), [])

        // The migrated store takes new objects with fresh keys.
        let item = ShelfItemV2(context: container.viewContext)
        item.title = "four"
        item.location = [shelves[0]]
        try container.viewContext.save()
        let reopened = try makeContainer(Self.v2)
        XCTAssertEqual(try fetchAll(ShelfItemV2.self, in: reopened.viewContext).count, 4)
    }

    func testAManyToManyBecomesAToOneAndTextBecomesANumber() throws {
        try writeVersion1()
        _ = try PersistentContainer(name: "Test", entities: Self.v2, storeURL: storeURL, options: [.allowsDroppingData])
        _ = try PersistentContainer(name: "Test", entities: Self.v3, storeURL: storeURL, options: [.allowsDroppingData])
        let container = try makeContainer(Self.v3)
        let items = try fetchAll(ShelfItemV3.self, in: container.viewContext, sortedBy: "title")
        XCTAssertEqual(items.map { $0.location?.label }, ["A", nil, "B"])
        XCTAssertEqual(items.map(\.price), [9.5, 11.5, 10.5], "String -> Double")
        XCTAssertEqual(items.map(\.count), [7, 9, 8], "Integer 16 -> Integer 64")
        XCTAssertEqual(items.map(\.familyName), ["Name0", "Name2", "Name1"])
        XCTAssertEqual(try fetchAll(ShelfV3.self, in: container.viewContext, sortedBy: "label").map { $0.items.map(\.title) }, [["one"], ["two"]])
        XCTAssertFalse(try SQLiteFile(storeURL).tableNames().contains { $0.hasPrefix("Z_") && $0.hasSuffix("LOCATION") }, "the join table is gone")
        try assertStoreIntegrity(storeURL)
    }

    func testAnEntityMovedIntoItsOwnTableKeepsItsRows() throws {
        do {
            let container = try makeContainer(Models.company)
            let manager = Manager(context: container.viewContext)
            manager.level = 2
            manager.firstName = "Ada"
            let report = Employee(context: container.viewContext)
            report.firstName = "Bob"
            report.manager = manager
            try container.viewContext.save()
        }
        // The manager's inherited employee values and its reports are dropped on purpose.
        let container = try PersistentContainer(name: "Test", entities: [Department.self, Employee.self, StandaloneManager.self], storeURL: storeURL,
                                                options: [.allowsDroppingData])
        let managers = try fetchAll(StandaloneManager.self, in: container.viewContext)
        XCTAssertEqual(managers.map(\.level), [2], "Manager is a root entity now, in its own table")
        XCTAssertEqual(try container.viewContext.count(for: FetchRequest<Employee>()), 1, "Employee no longer includes managers")
        let file = try SQLiteFile(storeURL)
        XCTAssertEqual(try file.rows("SELECT Z_SUPER FROM Z_PRIMARYKEY WHERE Z_NAME = 'Manager'"), [[.integer(0)]])
        XCTAssertEqual(try file.scalar("SELECT count(*) FROM ZMANAGER"), .integer(1))
        try assertStoreIntegrity(storeURL)
    }

    func testProgressIsReportedForEachChunkAndAtTheEnd() throws {
        do {
            let container = try makeContainer(Self.v1)
            for index in 0..<250 {
                let item = ShelfItemV1(context: container.viewContext)
                item.title = "item \(index)"
            }
            try container.viewContext.save()
        }
        let reports = ProgressLog()
        _ = try PersistentContainer(name: "Test", model: ManagedObjectModel(entities: Self.v2), location: .file(storeURL),
                                    options: [.allowsDroppingData], migrationProgress: { reports.append($0) })
        let seen = reports.all
        XCTAssertEqual(seen.last, MigrationProgress(completedRows: 250, totalRows: 250, entity: nil))
        XCTAssertTrue(seen.dropLast().allSatisfy { $0.entity == "ShelfItem" && $0.totalRows == 250 }, "\(seen)")
        XCTAssertEqual(seen.map(\.completedRows), seen.map(\.completedRows).sorted(), "progress only grows")
        XCTAssertEqual(seen.last?.fractionCompleted, 1)

        let again = ProgressLog()
        _ = try PersistentContainer(name: "Test", model: ManagedObjectModel(entities: Self.v2), location: .file(storeURL),
                                    migrationProgress: { again.append($0) })
        XCTAssertEqual(again.all, [], "no migration, no progress")
    }
}

/// Progress reports collected from the migration's thread.
final class ProgressLog: @unchecked Sendable {  // guarded by its lock
    private let lock = NSLock()
    private var reports: [MigrationProgress] = []
    func append(_ report: MigrationProgress) { lock.withLock { reports.append(report) } }
    var all: [MigrationProgress] { lock.withLock { reports } }
}
