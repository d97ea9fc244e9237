import Foundation
import ObjectGraph
import XCTest

/// Migrating the Apple store whose entities were renamed by renaming identifier (Tests/
/// Fixtures/CoreDataPlusRenamed: `Z_PRIMARYKEY` names `Person` and `SportCar`, the rows are
/// in `ZOWNER` and `ZCAR`, the version hashes are those of the model with `Owner` and
/// `RaceCar`) to the model's next version: every row must come across with its values and
/// relationships, and new keys must go above the store's last ones.
final class AppleStoreRenamedEntityMigrationTests: StoreTestCase {
    /// The fixture's file `name`, or a copy of it in a new folder of its own.
    private func fixture(_ name: String, copied: Bool = false) throws -> URL {
        guard copied else { return Fixtures.directory.appendingPathComponent("CoreDataPlusRenamed").appendingPathComponent(name) }
        let folder = directory.appendingPathComponent(UUID().uuidString)
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        return try Fixtures.copy("CoreDataPlusRenamed", name, into: folder)
    }

    private func copyOfStore() throws -> URL { try fixture("RenamedEntities.sqlite", copied: true) }

    private var modelURL: URL { get throws { try fixture("RenamedModel.xcdatamodel-contents.xml") } }

    /// The fixture's model with `Owner` given an optional `nickname`: the next version.
    /// Without renaming identifiers, the new model names the entities only as they are now.
    private func nextModel(withRenamingIdentifiers: Bool = true) throws -> ManagedObjectModel {
        var xml = try String(contentsOf: try modelURL, encoding: .utf8)
            .replacingOccurrences(of: #"userDefinedModelVersionIdentifier="2""#, with: #"userDefinedModelVersionIdentifier="3""#)
            .replacingOccurrences(of: #"<attribute name="firstName" optional="YES" attributeType="String"/>"#,
                                  with: #"<attribute name="firstName" optional="YES" attributeType="String"/><attribute name="nickname" optional="YES" attributeType="String"/>"#)
        if !withRenamingIdentifiers {
            xml = xml.replacingOccurrences(of: #" elementID="[A-Za-z]+""#, with: "", options: .regularExpression)
        }
        XCTAssertTrue(xml.contains("nickname"))
        let file = directory.appendingPathComponent("\(UUID().uuidString).xml")
        try xml.write(to: file, atomically: true, encoding: .utf8)
        return try ManagedObjectModel(contentsOf: file)
    }

    private func all(_ entity: String, in context: ManagedObjectContext) throws -> [ManagedObject] {
        try context.fetch(FetchRequest<ManagedObject>(entityName: entity))
    }

    /// Everything the test compares: each owner with its values and cars, each car with its
    /// entity, values and owner, and the counts of each entity.
    private func snapshot(_ context: ManagedObjectContext) throws -> [String] {
        var lines: [String] = []
        for owner in try all("Owner", in: context) {
            let cars = ((owner.value(forKey: "cars") as? Set<ManagedObject>) ?? []).compactMap { $0.value(forKey: "numberPlate") as? String }.sorted()
            lines.append("Owner \(owner.value(forKey: "firstName") ?? "nil") \(owner.value(forKey: "lastName") ?? "nil") \(owner.value(forKey: "id") ?? "nil") \(owner.value(forKey: "updatedAt") ?? "nil") cars \(cars)")
        }
        for car in try all("Car", in: context) {
            let owner = car.value(forKey: "owner") as? ManagedObject
            lines.append("\(car.entity.name) \(car.value(forKey: "numberPlate") ?? "nil") \(car.value(forKey: "maker") ?? "nil") \(car.value(forKey: "model") ?? "nil") owner \(owner?.value(forKey: "firstName") ?? "nil") \(owner?.value(forKey: "lastName") ?? "nil")")
        }
        for entity in ["Owner", "Car", "RaceCar", "ExpensiveSportCar"] {
            lines.append("count \(entity) \(try context.count(for: FetchRequest<ManagedObject>(entityName: entity)))")
        }
        return lines.sorted()
    }

    /// The store's contents read with the model that wrote it, from a copy of its own.
    private func contentsBeforeMigration() throws -> [String] {
        let container = try PersistentContainer(name: "Renamed", model: ManagedObjectModel(contentsOf: try modelURL), storeURL: copyOfStore())
        defer { container.persistentStoreCoordinator.close() }
        return try snapshot(container.viewContext)
    }

    /// Every `Z_ENT` of the rows of `ZOWNER` and `ZCAR` has its `Z_PRIMARYKEY` row.
    private func assertNoRowIsOrphaned(_ url: URL, file: StaticString = #filePath, line: UInt = #line) throws {
        let orphans = try SQLiteFile(url).rows("""
            SELECT Z_ENT FROM ZOWNER WHERE Z_ENT NOT IN (SELECT Z_ENT FROM Z_PRIMARYKEY)
            UNION SELECT Z_ENT FROM ZCAR WHERE Z_ENT NOT IN (SELECT Z_ENT FROM Z_PRIMARYKEY)
            """)
        XCTAssertEqual(orphans, [], "rows whose Z_ENT Z_PRIMARYKEY does not list", file: file, line: line)
    }

    private func checkMigration(withRenamingIdentifiers: Bool) throws {
        let before = try contentsBeforeMigration()
        XCTAssertTrue(before.contains("count Owner 20") && before.contains("count RaceCar 10") && before.contains("count Car 125"), "\(before.filter { $0.hasPrefix("count") })")
        let url = try copyOfStore()
        let model = try nextModel(withRenamingIdentifiers: withRenamingIdentifiers)
        do {
            let container = try PersistentContainer(name: "Renamed", model: model, storeURL: url)
            defer { container.persistentStoreCoordinator.close() }
            let context = container.viewContext
            XCTAssertEqual(try snapshot(context), before, "every row, value and relationship came across")
            XCTAssertEqual(try all("Owner", in: context).compactMap { $0.value(forKey: "nickname") }.count, 0, "the new attribute is empty")

            let owner = try context.insertNewObject(forEntityName: "Owner")
            let values: [String: Any] = ["firstName": "New", "lastName": "Comer", "nickname": "Newbie", "id": UUID(),
                                         "updatedAt": Date(timeIntervalSinceReferenceDate: 700_000_000)]
            for (key, value) in values { try owner.setValue(value, forKey: key) }
            let car = try context.insertNewObject(forEntityName: "RaceCar")
            try car.setValue("NEW-1", forKey: "numberPlate")
            try car.setValue(owner, forKey: "owner")
            try context.save()
        }
        try assertNoRowIsOrphaned(url)
        XCTAssertEqual(try SQLiteFile(url).rows("SELECT Z_NAME, Z_MAX FROM Z_PRIMARYKEY WHERE Z_SUPER = 0 ORDER BY Z_NAME"),
                       [[.text("Car"), .integer(126)], [.text("Owner"), .integer(21)]], "each root's last key, under the new names")
        XCTAssertEqual(try SQLiteFile(url).rows("SELECT Z_PK FROM ZOWNER WHERE ZFIRSTNAME = 'New'"), [[.integer(21)]], "a new key above the old Z_MAX (20)")
        XCTAssertEqual(try SQLiteFile(url).rows("SELECT Z_PK FROM ZCAR WHERE ZNUMBERPLATE = 'NEW-1'"), [[.integer(126)]], "a new key above the old Z_MAX (125)")

        let reopened = try PersistentContainer(name: "Renamed", model: model, storeURL: url)
        defer { reopened.persistentStoreCoordinator.close() }
        let context = reopened.viewContext
        XCTAssertEqual(try context.count(for: FetchRequest<ManagedObject>(entityName: "Owner")), 21)
        XCTAssertEqual(try context.count(for: FetchRequest<ManagedObject>(entityName: "RaceCar")), 11)
        var request = FetchRequest<ManagedObject>(entityName: "RaceCar")
        request.predicate = try FetchPredicate("numberPlate == %@", argumentArray: ["NEW-1"])
        let car = try XCTUnwrap(try context.fetch(request).first)
        XCTAssertEqual((car.value(forKey: "owner") as? ManagedObject)?.value(forKey: "nickname") as? String, "Newbie")
    }

    func testMigratingToTheNextVersionKeepsEveryRowValueAndRelationship() throws {
        try checkMigration(withRenamingIdentifiers: true)
    }

    /// The new model says nothing of the old names: the version hashes say the store was
    /// written with the model of the new names, whose numbering finds the rows.
    func testMigratingToANextVersionWithoutRenamingIdentifiersKeepsEveryRow() throws {
        try checkMigration(withRenamingIdentifiers: false)
    }
}
