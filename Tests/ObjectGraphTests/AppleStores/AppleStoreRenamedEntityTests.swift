import Foundation
import ObjectGraph
import XCTest

/// An Apple store after entities were renamed by renaming identifier (Tests/Fixtures/
/// CoreDataPlusRenamed, see its origin note): `Z_PRIMARYKEY` still names them `Person` and
/// `SportCar` while the model and the version hashes say `Owner` and `RaceCar`. Core Data
/// numbers entities from the model, so the rows of `Z_ENT` 2 and 4 are RaceCars and Owners:
/// opened here they must stay visible, keep their keys, and no `Z_PRIMARYKEY` row may be
/// added that would leave them behind.
final class AppleStoreRenamedEntityTests: StoreTestCase {
    private static let folder = "CoreDataPlusRenamed"
    private static let store = "RenamedEntities.sqlite"
    private static let modelFile = "RenamedModel.xcdatamodel-contents.xml"

    private var modelURL: URL { Fixtures.directory.appendingPathComponent(Self.folder).appendingPathComponent(Self.modelFile) }

    /// A copy of the fixture store in a folder of its own.
    private func copyOfStore() throws -> URL {
        let copies = directory.appendingPathComponent(UUID().uuidString)
        try FileManager.default.createDirectory(at: copies, withIntermediateDirectories: true)
        return try Fixtures.copy(Self.folder, Self.store, into: copies)
    }

    /// The fixture's model, or the same model without its renaming identifiers (the same
    /// version hashes: Core Data leaves renaming identifiers out of them).
    private func model(withRenamingIdentifiers: Bool = true) throws -> ManagedObjectModel {
        guard !withRenamingIdentifiers else { return try ManagedObjectModel(contentsOf: modelURL) }
        let xml = try String(contentsOf: modelURL, encoding: .utf8)
            .replacingOccurrences(of: #" elementID="[A-Za-z]+""#, with: "", options: .regularExpression)
        let file = directory.appendingPathComponent("\(UUID().uuidString).xml")
        try xml.write(to: file, atomically: true, encoding: .utf8)
        return try ManagedObjectModel(contentsOf: file)
    }

    private func all(_ entity: String, _ context: ManagedObjectContext, where format: String? = nil, _ arguments: Any...) throws -> [ManagedObject] {
        var request = FetchRequest<ManagedObject>(entityName: entity)
        if let format { request.predicate = try FetchPredicate(format, argumentArray: arguments) }
        return try context.fetch(request)
    }

    private func primaryKeyRows(_ url: URL) throws -> [[Cell]] {
        try SQLiteFile(url).rows("SELECT Z_ENT, Z_NAME, Z_SUPER, Z_MAX FROM Z_PRIMARYKEY ORDER BY Z_ENT")
    }

    func testTheFixtureIsWhatCoreDataLeavesAfterTheRename() throws {
        let url = try copyOfStore()
        XCTAssertEqual(try primaryKeyRows(url), [[.integer(1), .text("Car"), .integer(0), .integer(125)],
                                                 [.integer(2), .text("SportCar"), .integer(1), .integer(0)],
                                                 [.integer(3), .text("ExpensiveSportCar"), .integer(2), .integer(0)],
                                                 [.integer(4), .text("Person"), .integer(0), .integer(20)]])
        let inspection = try StoreInspection(storeURL: url, model: model())
        XCTAssertFalse(inspection.needsMigration, "the version hashes are the renamed model's")
        XCTAssertEqual(inspection.entitiesWithOtherVersionHashes, [])
    }

    func testRenamedEntitiesKeepTheirRowsInFetchesCountsAndRelationships() throws {
        let url = try copyOfStore()
        let container = try PersistentContainer(name: "Renamed", model: model(), storeURL: url)
        let context = container.viewContext

        XCTAssertEqual(try context.count(for: FetchRequest<ManagedObject>(entityName: "Owner")), 20)
        XCTAssertEqual(try context.count(for: FetchRequest<ManagedObject>(entityName: "Car")), 125)
        XCTAssertEqual(try context.count(for: FetchRequest<ManagedObject>(entityName: "RaceCar")), 10)
        XCTAssertEqual(Dictionary(grouping: try all("Car", context), by: \.entity.name).mapValues(\.count),
                       ["Car": 115, "RaceCar": 5, "ExpensiveSportCar": 5])

        let bmw = try XCTUnwrap(all("Car", context, where: "numberPlate == %@", "300").first)
        XCTAssertEqual(bmw.entity.name, "ExpensiveSportCar")
        let owner = try XCTUnwrap(bmw.value(forKey: "owner") as? ManagedObject)
        XCTAssertEqual(owner.entity.name, "Owner")
        XCTAssertEqual(owner.value(forKey: "firstName") as? String, "Faron")

        let theodora = try XCTUnwrap(all("Owner", context, where: "firstName == %@ AND lastName == %@", "Theodora", "Stone").first)
        XCTAssertEqual((theodora.value(forKey: "cars") as? Set<ManagedObject>)?.count, 100)
        XCTAssertEqual(try all("Car", context, where: "owner.firstName == %@", "Theodora").count, 100, "a predicate through the renamed entity")
        XCTAssertEqual(try all("Owner", context, where: "ANY cars.numberPlate == %@", "300").count, 1)
        XCTAssertEqual(try primaryKeyRows(url).count, 4, "opening wrote no Z_PRIMARYKEY row")
    }

    func testAnInsertGetsKeysAboveZMaxAndReopens() throws {
        let url = try copyOfStore()
        do {
            let container = try PersistentContainer(name: "Renamed", model: model(), storeURL: url)
            let context = container.viewContext
            let owner = try context.insertNewObject(forEntityName: "Owner")
            try owner.setValue("New", forKey: "firstName")
            try owner.setValue("Comer", forKey: "lastName")
            try owner.setValue(UUID(), forKey: "id")
            try owner.setValue(Date(timeIntervalSinceReferenceDate: 700_000_000), forKey: "updatedAt")
            let car = try context.insertNewObject(forEntityName: "RaceCar")
            try car.setValue("NEW-1", forKey: "numberPlate")
            try car.setValue(owner, forKey: "owner")
            try context.save()
            container.persistentStoreCoordinator.close()
        }
        XCTAssertEqual(try primaryKeyRows(url), [[.integer(1), .text("Car"), .integer(0), .integer(126)],
                                                 [.integer(2), .text("SportCar"), .integer(1), .integer(0)],
                                                 [.integer(3), .text("ExpensiveSportCar"), .integer(2), .integer(0)],
                                                 [.integer(4), .text("Person"), .integer(0), .integer(21)]],
                       "keys counted on in the store's own rows; no row added, Core Data's names kept")
        XCTAssertEqual(try SQLiteFile(url).rows("SELECT Z_PK, Z_ENT FROM ZOWNER WHERE ZFIRSTNAME = 'New'"), [[.integer(21), .integer(4)]])
        XCTAssertEqual(try SQLiteFile(url).rows("SELECT Z_PK, Z_ENT, ZOWNER FROM ZCAR WHERE ZNUMBERPLATE = 'NEW-1'"), [[.integer(126), .integer(2), .integer(21)]])

        let reopened = try PersistentContainer(name: "Renamed", model: model(), storeURL: url)
        let context = reopened.viewContext
        XCTAssertEqual(try context.count(for: FetchRequest<ManagedObject>(entityName: "Owner")), 21)
        XCTAssertEqual(try context.count(for: FetchRequest<ManagedObject>(entityName: "RaceCar")), 11)
        let car = try XCTUnwrap(all("RaceCar", context, where: "numberPlate == 'NEW-1'").first)
        XCTAssertEqual((car.value(forKey: "owner") as? ManagedObject)?.value(forKey: "lastName") as? String, "Comer")
    }

    func testTheStoreInspectionSeesTheRenamedEntitiesRows() throws {
        let url = try copyOfStore()
        let inspection = try StoreInspection(storeURL: url, model: model())
        XCTAssertEqual(inspection.entitiesMissingFromStore, [])
        XCTAssertEqual(inspection.rowCounts["Owner"], 20)
        XCTAssertEqual(inspection.rowCounts["RaceCar"], 5)
        XCTAssertTrue(inspection.isHealthy, "\(inspection)")
    }

    func testWithoutRenamingIdentifiersTheModelsNumberingFindsTheRows() throws {
        let url = try copyOfStore()
        let container = try PersistentContainer(name: "Renamed", model: model(withRenamingIdentifiers: false), storeURL: url)
        XCTAssertEqual(try container.viewContext.count(for: FetchRequest<ManagedObject>(entityName: "Owner")), 20)
        XCTAssertEqual(try container.viewContext.count(for: FetchRequest<ManagedObject>(entityName: "RaceCar")), 10)
        XCTAssertEqual(try primaryKeyRows(url).count, 4)
    }

    func testARenamedEntityNumberedElsewhereIsFoundByItsRenamingIdentifierOrRefused() throws {
        // Person's rows under another number than the model's order gives Owner.
        let url = try copyOfStore()
        do {
            let file = try SQLiteFile(url, readOnly: false)
            try file.execute("UPDATE Z_PRIMARYKEY SET Z_ENT = 9 WHERE Z_ENT = 4")
            try file.execute("UPDATE ZOWNER SET Z_ENT = 9")
        }
        let before = try primaryKeyRows(url)

        XCTAssertThrowsError(try PersistentContainer(name: "Renamed", model: model(withRenamingIdentifiers: false), storeURL: url)) { error in
            XCTAssertEqual((error as? StoreError)?.code, .incompatibleModel, "\(error)")
            XCTAssertTrue("\(error)".contains("Person") && "\(error)".contains("Owner"), "names both: \(error)")
        }
        XCTAssertEqual(try primaryKeyRows(url), before, "nothing was written")

        let container = try PersistentContainer(name: "Renamed", model: model(), storeURL: url)
        XCTAssertEqual(try container.viewContext.count(for: FetchRequest<ManagedObject>(entityName: "Owner")), 20,
                       "the renaming identifier names the stored entity")
        XCTAssertEqual(try primaryKeyRows(url), before)
    }
}
