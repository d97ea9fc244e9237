import Foundation
import ObjectGraph
import XCTest

/// Stores written by Apple's Core Data (Tests/Fixtures, each folder with its origin note),
/// opened with their Xcode model file alone: no Swift class, key-based access only. Every
/// test works on a copy in a temporary directory.
final class AppleStoreFileModelTests: StoreTestCase {
    private func open(_ folder: String, _ store: String, model file: String) throws -> (PersistentContainer, URL) {
        let copies = directory.appendingPathComponent(UUID().uuidString)
        try FileManager.default.createDirectory(at: copies, withIntermediateDirectories: true)
        let url = try Fixtures.copy(folder, store, into: copies)
        let model = try ManagedObjectModel(contentsOf: Fixtures.directory.appendingPathComponent(folder).appendingPathComponent(file))
        return (try PersistentContainer(name: store, model: model, storeURL: url), url)
    }

    private func all(_ entity: String, _ context: ManagedObjectContext, where format: String? = nil, _ arguments: Any...) throws -> [ManagedObject] {
        var request = FetchRequest<ManagedObject>(entityName: entity)
        if let format { request.predicate = try FetchPredicate(format, argumentArray: arguments) }
        return try context.fetch(request)
    }

    private func assertIntegrity(_ url: URL, file: StaticString = #filePath, line: UInt = #line) throws {
        XCTAssertEqual(try SQLiteFile(url).rows("PRAGMA integrity_check"), [[.text("ok")]], file: file, line: line)
    }

    // MARK: CoreDataPlus: inheritance via Z_ENT, UUID BLOBs, dates, booleans, a transformable

    func testCoreDataPlusReadsExactlyWithItsModelFileAlone() throws {
        let (container, url) = try open("CoreDataPlus", "SampleModel_V1.sqlite", model: "SampleModel.xcdatamodel-contents.xml")
        let context = container.viewContext
        let cars = try all("Car", context)
        XCTAssertEqual(Dictionary(grouping: cars, by: \.entity.name).mapValues(\.count), ["Car": 115, "SportCar": 5, "ExpensiveSportCar": 5])
        XCTAssertTrue(cars.allSatisfy { type(of: $0) == ManagedObject.self })
        XCTAssertEqual(try all("Person", context).count, 20)

        let bmw = try XCTUnwrap(all("Car", context, where: "numberPlate == %@", "300").first)
        XCTAssertEqual(bmw.entity.name, "ExpensiveSportCar")
        XCTAssertEqual(try bmw.checkedValue(forKey: "maker") as? String, "BMW")
        XCTAssertEqual(try bmw.checkedValue(forKey: "model") as? String, "M6 Coupe")
        XCTAssertEqual(try bmw.checkedValue(forKey: "isLimitedEdition") as? Bool, true)
        XCTAssertEqual(try all("ExpensiveSportCar", context, where: "isLimitedEdition == NO").count, 3)
        XCTAssertThrowsError(try all("Car", context, where: "isLimitedEdition == NO"), "a sub-entity's attribute is not Car's")
        XCTAssertNil(try bmw.checkedValue(forKey: "color"), "a NULL transformable")
        XCTAssertNil(try bmw.checkedValue(forKey: "markedForDeletionAsOf"))
        XCTAssertEqual(try bmw.checkedValue(forKey: "currentDrivingSpeed") as? Int64, 0, "a transient gets the file's default")
        let owner = try XCTUnwrap(bmw.checkedValue(forKey: "owner") as? ManagedObject)
        XCTAssertEqual(try owner.checkedValue(forKey: "firstName") as? String, "Faron")

        let victoria = try XCTUnwrap(all("Person", context, where: "firstName == %@", "Victoria").first)
        XCTAssertEqual(try victoria.checkedValue(forKey: "lastName") as? String, "Coster")
        XCTAssertEqual(try victoria.checkedValue(forKey: "id") as? UUID, UUID(uuidString: "FEFE4176-912D-429F-9C83-662FFF641115"))
        let updated = try XCTUnwrap(victoria.checkedValue(forKey: "updatedAt") as? Date)
        XCTAssertEqual(updated.timeIntervalSinceReferenceDate, 639_503_569.638733, accuracy: 0.000001)
        XCTAssertEqual(try victoria.checkedValue(forKey: "isDriving") as? Bool, false)

        let theodora = try XCTUnwrap(all("Person", context, where: "lastName == %@", "Stone").first)
        let owned = try XCTUnwrap(theodora.checkedValue(forKey: "cars") as? Set<ManagedObject>)
        XCTAssertEqual(owned.count, 100)
        XCTAssertTrue(try owned.allSatisfy { try $0.checkedValue(forKey: "owner") as? ManagedObject === theodora })
        XCTAssertEqual(try all("Car", context, where: "owner == nil").count, 7)
        let bmwOwners = try SQLiteFile(url).scalar("SELECT count(DISTINCT ZOWNER) FROM ZCAR WHERE ZMAKER = 'BMW'")
        XCTAssertEqual(try all("Person", context, where: "ANY cars.maker == %@", "BMW").count, Int(bmwOwners?.int ?? -1))
    }

    func testCoreDataPlusTakesEditsAndInsertsAsCoreDataWould() throws {
        let (container, url) = try open("CoreDataPlus", "SampleModel_V1.sqlite", model: "SampleModel.xcdatamodel-contents.xml")
        let context = container.viewContext
        let before = try SQLiteFile(url).rows("SELECT Z_OPT FROM ZCAR WHERE ZNUMBERPLATE = '300'")
        XCTAssertEqual(before, [[.integer(1)]])
        let bmw = try XCTUnwrap(all("Car", context, where: "numberPlate == %@", "300").first)
        try bmw.setValue("M6 Gran Coupe", forKey: "model")
        try bmw.setValue(Data([0xC0, 0x10, 0x42]), forKey: "color")
        try bmw.setValue(Date(timeIntervalSinceReferenceDate: 700_000_000.25), forKey: "markedForDeletionAsOf")
        let victoria = try XCTUnwrap(all("Person", context, where: "firstName == %@", "Victoria").first)
        let sport = try context.insertNewObject(forEntityName: "SportCar")
        try sport.setValue("OG-1", forKey: "numberPlate")
        try sport.setValue("Škoda", forKey: "maker")
        try sport.setValue(victoria, forKey: "owner")
        let linus = try context.insertNewObject(forEntityName: "Person")
        try linus.setValue("Linus", forKey: "firstName")
        try linus.setValue(UUID(uuidString: "00000000-0000-4000-8000-000000000001"), forKey: "id")
        try linus.setValue(Date(timeIntervalSinceReferenceDate: 1.5), forKey: "updatedAt")
        try context.save()

        try assertIntegrity(url)
        let file = try SQLiteFile(url)
        XCTAssertEqual(try file.rows("SELECT Z_OPT, ZMODEL, ZCOLOR, ZMARKEDFORDELETIONASOF FROM ZCAR WHERE ZNUMBERPLATE = '300'"),
                       [[.integer(2), .text("M6 Gran Coupe"), .blob(Data([0xC0, 0x10, 0x42])), .real(700_000_000.25)]], "Z_OPT went from 1 to 2")
        XCTAssertEqual(try file.rows("SELECT Z_PK, Z_ENT, Z_OPT, ZOWNER FROM ZCAR WHERE ZNUMBERPLATE = 'OG-1'"),
                       [[.integer(126), .integer(2), .integer(1), .integer(1)]])
        XCTAssertEqual(try file.rows("SELECT Z_ENT, Z_MAX FROM Z_PRIMARYKEY ORDER BY Z_ENT"),
                       [[.integer(1), .integer(126)], [.integer(2), .integer(0)], [.integer(3), .integer(0)], [.integer(4), .integer(21)]],
                       "keys are handed out on the root entity, as Core Data does")
        XCTAssertEqual(try file.rows("SELECT hex(ZID), ZUPDATEDAT FROM ZPERSON WHERE Z_PK = 21"),
                       [[.text("00000000000040008000000000000001"), .real(1.5)]])

        let reopened = try PersistentContainer(name: "again", model: ManagedObjectModel(contentsOf: Fixtures.directory.appendingPathComponent("CoreDataPlus/SampleModel.xcdatamodel-contents.xml")), storeURL: url)
        let again = try XCTUnwrap(all("Car", reopened.viewContext, where: "numberPlate == %@", "OG-1").first)
        XCTAssertEqual(again.entity.name, "SportCar")
        XCTAssertEqual(try (again.checkedValue(forKey: "owner") as? ManagedObject)?.value(forKey: "firstName") as? String, "Victoria")
    }

    // MARK: TavantTrade: framework version 479, no Z_MODELCACHE, rollback journal

    func testTavantTradeOpensWithoutAModelCacheAndTakesAnInsert() throws {
        let (container, url) = try open("TavantTrade", "Model.sqlite", model: "Model.xcdatamodel-contents.xml")
        let context = container.viewContext
        XCTAssertEqual(try all("FeedbackCategory", context).count, 19)
        XCTAssertEqual(try all("FeedbackSubCategory", context).count, 79)
        let settlement = try XCTUnwrap(all("FeedbackCategory", context, where: "name == %@", "Settlement").first)
        XCTAssertEqual((try settlement.checkedValue(forKey: "subcategory") as? Set<ManagedObject>)?.count, 4)
        let limits = try XCTUnwrap(all("FeedbackSubCategory", context, where: "name == %@", "Discrepancy in limits").first)
        XCTAssertEqual((try limits.checkedValue(forKey: "category") as? ManagedObject)?.objectID.primaryKey, 15)

        let extra = try context.insertNewObject(forEntityName: "FeedbackSubCategory")
        try extra.setValue("Added on Linux", forKey: "name")
        try extra.setValue(settlement, forKey: "category")
        try context.save()
        try assertIntegrity(url)
        let file = try SQLiteFile(url)
        XCTAssertEqual(try file.scalar("SELECT Z_MAX FROM Z_PRIMARYKEY WHERE Z_NAME = 'FeedbackSubCategory'"), .integer(80))
        XCTAssertEqual(try file.rows("SELECT ZCATEGORY, Z_OPT FROM ZFEEDBACKSUBCATEGORY WHERE Z_PK = 80"), [[.integer(1), .integer(1)]])
        XCTAssertEqual(try file.scalar("SELECT count(*) FROM sqlite_master WHERE name = 'Z_MODELCACHE'"), .integer(0), "no model cache is invented")
    }

    // MARK: EasyLife: a self-referencing many-to-many join table

    func testEasyLifeManyToManyJoinTableWithItsModelFile() throws {
        let (container, url) = try open("EasyLife", "EasyLife-1.5.0.sqlite", model: "EasyLife-1.5.0.xcdatamodel-contents.xml")
        let context = container.viewContext
        let items = try all("TodoItem", context)
        XCTAssertEqual(items.count, 6)
        let landlord = try XCTUnwrap(all("TodoItem", context, where: "name == %@", "call landlord").first)
        XCTAssertNil(try landlord.checkedValue(forKey: "done"), "ZDONE is NULL in Apple's file")
        XCTAssertEqual(try landlord.checkedValue(forKey: "repeats") as? Int16, 0)
        let date = try XCTUnwrap(landlord.checkedValue(forKey: "date") as? Date)
        XCTAssertEqual(date.timeIntervalSinceReferenceDate, 541_369_085.083766, accuracy: 0.000001)
        let bike = try XCTUnwrap(all("TodoItem", context, where: "name == %@", "fix bike").first)
        let food = try XCTUnwrap(all("TodoItem", context, where: "name == %@", "get party food!").first)
        try bike.setValue(Set([food, landlord]), forKey: "blocking")
        XCTAssertEqual(try food.checkedValue(forKey: "blockedBy") as? Set<ManagedObject>, [bike])
        try landlord.setValue(true, forKey: "done")
        let project = try context.insertNewObject(forEntityName: "Project")
        try project.setValue("Home", forKey: "name")
        XCTAssertEqual(try project.checkedValue(forKey: "priority") as? Int16, -1, "the file's default")
        try project.setValue([bike, food], forKey: "todoItem")
        try context.save()

        try assertIntegrity(url)
        let file = try SQLiteFile(url)
        XCTAssertEqual(try file.scalar("SELECT count(*) FROM Z_2BLOCKING"), .integer(2), "Apple's join table is used")
        XCTAssertEqual(try file.rows("SELECT ZDONE, Z_OPT FROM ZTODOITEM WHERE ZNAME = 'call landlord'"), [[.integer(1), .integer(2)]])
        XCTAssertEqual(try file.rows("SELECT Z_ENT, Z_MAX FROM Z_PRIMARYKEY ORDER BY Z_ENT"), [[.integer(1), .integer(1)], [.integer(2), .integer(6)]])
        let reopened = try PersistentContainer(name: "again", model: container.managedObjectModel, storeURL: url)
        let blockedBy = try XCTUnwrap(all("TodoItem", reopened.viewContext, where: "ANY blockedBy.name == %@", "fix bike"))
        XCTAssertEqual(Set(try blockedBy.map { try $0.checkedValue(forKey: "name") as? String }), ["call landlord", "get party food!"])
    }

    // MARK: MigrationRevised: each store with the model version that wrote it

    func testMigrationRevisedStoresOpenWithTheirOwnModelVersions() throws {
        let expected = [(1, 10, "color"), (2, 10, "hexColor"), (3, 12, "hexColor")]
        for (version, posts, colorKey) in expected {
            let (container, url) = try open("MigrationRevised", "CoreDataMigration_Example_\(version).sqlite", model: "v\(version).xcdatamodel-contents.xml")
            let context = container.viewContext
            let all = try all("Post", context)
            XCTAssertEqual(all.count, posts, "store \(version)")
            XCTAssertTrue(try all.allSatisfy { (try $0.checkedValue(forKey: colorKey) as? String)?.count == 6 }, "store \(version)")
            let post = try XCTUnwrap(all.first)
            try post.setValue("FFFFFF", forKey: colorKey)
            try context.save()
            try assertIntegrity(url)
        }
        let (container, url) = try open("MigrationRevised", "CoreDataMigration_Example_3.sqlite", model: "v3.xcdatamodel-contents.xml")
        let context = container.viewContext
        XCTAssertEqual(try all("Section", context).count, 14)
        let eleven = try XCTUnwrap(all("Post", context).first { $0.objectID.primaryKey == 11 })
        XCTAssertEqual((try eleven.checkedValue(forKey: "sections") as? Set<ManagedObject>)?.count, 2)
        context.delete(eleven)
        try context.save()
        let file = try SQLiteFile(url)
        XCTAssertEqual(try file.scalar("SELECT count(*) FROM ZSECTION"), .integer(12), "the file's Cascade rule")
        XCTAssertEqual(try file.scalar("SELECT count(*) FROM ZPOST"), .integer(11))
        try assertIntegrity(url)
    }

    // MARK: Z<n>_<REL>: a to-one whose destination has sub-entities

    func testAToOneToAnEntityWithSubEntitiesKeepsItsEntityColumn() throws {
        let source = try String(contentsOf: Fixtures.directory.appendingPathComponent("CoreDataPlus/SampleModel.xcdatamodel-contents.xml"), encoding: .utf8)
        let extended = source.replacingOccurrences(of: "<attribute name=\"lastName\" optional=\"YES\" attributeType=\"String\"/>", with: """
            <attribute name="lastName" optional="YES" attributeType="String"/>
            <attribute name="savings" optional="YES" attributeType="Decimal"/>
            <relationship name="favourite" optional="YES" maxCount="1" deletionRule="Nullify" destinationEntity="Car"/>
            """)
        XCTAssertNotEqual(extended, source)
        let modelURL = directory.appendingPathComponent("Extended.xml")
        try Data(extended.utf8).write(to: modelURL)
        let url = directory.appendingPathComponent("Extended.sqlite")
        do {
            let container = try PersistentContainer(name: "Extended", model: ManagedObjectModel(contentsOf: modelURL), storeURL: url)
            let context = container.viewContext
            let car = try context.insertNewObject(forEntityName: "ExpensiveSportCar")
            try car.setValue("X-1", forKey: "numberPlate")
            let person = try context.insertNewObject(forEntityName: "Person")
            try person.setValue(UUID(), forKey: "id")
            try person.setValue(Date(), forKey: "updatedAt")
            try person.setValue(car, forKey: "favourite")
            try person.setValue(Decimal(string: "1234.56"), forKey: "savings")
            try context.save()
        }
        let file = try SQLiteFile(url)
        XCTAssertEqual(try file.rows("SELECT ZFAVOURITE, Z1_FAVOURITE, ZSAVINGS FROM ZPERSON"), [[.integer(1), .integer(3), .real(1234.56)]],
                       "Z1_FAVOURITE holds the destination's Z_ENT (ExpensiveSportCar = 3)")
        let container = try PersistentContainer(name: "Extended", model: ManagedObjectModel(contentsOf: modelURL), storeURL: url)
        let person = try XCTUnwrap(all("Person", container.viewContext).first)
        XCTAssertEqual((try person.checkedValue(forKey: "favourite") as? ManagedObject)?.entity.name, "ExpensiveSportCar")
        XCTAssertEqual(try person.checkedValue(forKey: "savings") as? Decimal, Decimal(string: "1234.56"))
    }
    // MARK: Data only in the -wal, and triggers that call Core Data's SQL functions

    func testRowsThatAreOnlyInTheWriteAheadLogAreRead() throws {
        let (_, original) = try open("CoreDataPlus", "SampleModel_V1.sqlite", model: "SampleModel.xcdatamodel-contents.xml")
        let copied = directory.appendingPathComponent("wal-copy")
        try FileManager.default.createDirectory(at: copied, withIntermediateDirectories: true)
        do {
            // An app still holding the store: the new row is in the -wal, not in the main file.
            let app = try SQLiteFile(original, readOnly: false)
            _ = try app.rows("PRAGMA wal_autocheckpoint = 0")
            _ = try app.rows("INSERT INTO ZPERSON (Z_PK, Z_ENT, Z_OPT, ZFIRSTNAME, ZLASTNAME, ZID, ZUPDATEDAT) VALUES (21, 4, 1, 'Only', 'InWal', x'000000000000400080000000000000AA', 5.5)")
            _ = try app.rows("UPDATE Z_PRIMARYKEY SET Z_MAX = 21 WHERE Z_ENT = 4")
            for suffix in ["", "-wal"] {
                try FileManager.default.copyItem(atPath: original.path + suffix, toPath: copied.appendingPathComponent("Store.sqlite").path + suffix)
            }
        }
        let url = copied.appendingPathComponent("Store.sqlite")
        XCTAssertGreaterThan(try FileManager.default.attributesOfItem(atPath: url.path + "-wal")[.size] as? Int ?? 0, 0)
        let container = try PersistentContainer(name: "Wal", model: ManagedObjectModel(contentsOf: Fixtures.directory.appendingPathComponent("CoreDataPlus/SampleModel.xcdatamodel-contents.xml")), storeURL: url)
        let context = container.viewContext
        XCTAssertEqual(try all("Person", context).count, 21)
        let only = try XCTUnwrap(all("Person", context, where: "lastName == %@", "InWal").first)
        XCTAssertEqual(try only.checkedValue(forKey: "id") as? UUID, UUID(uuidString: "00000000-0000-4000-8000-0000000000AA"))
        let next = try context.insertNewObject(forEntityName: "Person")
        try next.setValue(UUID(), forKey: "id")
        try next.setValue(Date(), forKey: "updatedAt")
        try context.save()
        XCTAssertEqual(next.objectID.primaryKey, 22, "keys continue after the Z_MAX that only the -wal holds")
        try assertIntegrity(url)
    }

    /// Opens the v3 MigrationRevised store with a derived-attribute-like trigger on ZPOST
    /// whose report goes through `function`.
    private func storeWithTrigger(calling function: String) throws -> (ManagedObjectContext, URL, PersistentContainer) {
        let (_, url) = try open("MigrationRevised", "CoreDataMigration_Example_3.sqlite", model: "v3.xcdatamodel-contents.xml")
        do {
            // The kind of trigger Core Data adds for a derived attribute.
            let app = try SQLiteFile(url, readOnly: false)
            _ = try app.rows("""
                CREATE TRIGGER Z_DA_ZPOST_Post_hexColor_UPDATE AFTER UPDATE OF ZPOSTID ON ZPOST FOR EACH ROW BEGIN \
                UPDATE ZPOST SET ZHEXCOLOR = upper(NEW.ZPOSTID) WHERE Z_PK = NEW.Z_PK; \
                SELECT \(function)('ZPOST', Z_ENT, Z_PK, 'hexColor', ZHEXCOLOR) FROM ZPOST WHERE Z_PK = NEW.Z_PK; END
                """)
        }
        let container = try PersistentContainer(name: "Triggers", model: ManagedObjectModel(contentsOf: Fixtures.directory.appendingPathComponent("MigrationRevised/v3.xcdatamodel-contents.xml")), storeURL: url)
        return (container.viewContext, url, container)
    }

    func testATriggerCallingCoreDatasFunctionsRunsOnSave() throws {
        let (context, url, container) = try storeWithTrigger(calling: "NSCoreDataDATriggerUpdatedAffectedObjectValue")
        let post = try XCTUnwrap(all("Post", context).first)
        try post.setValue("abc", forKey: "postID")
        try context.save()
        XCTAssertEqual(try SQLiteFile(url).scalar("SELECT ZHEXCOLOR FROM ZPOST WHERE ZPOSTID = 'abc'"), .text("ABC"), "the trigger recomputed the value")
        let other = ManagedObjectContext(coordinator: container.persistentStoreCoordinator)
        let fresh = other.object(with: post.objectID)
        XCTAssertEqual(fresh.value(forKey: "hexColor") as? String, "ABC", "a fault reads the recomputed row")
        try assertIntegrity(url)
    }

    func testATriggerCallingAFunctionThatDoesNotExistHereFailsTheSaveAndLosesNothing() throws {
        let (context, url, _) = try storeWithTrigger(calling: "AppOnlyNotifyFunction")
        let post = try XCTUnwrap(all("Post", context).first)
        try post.setValue("abc", forKey: "postID")
        XCTAssertThrowsError(try context.save()) { error in
            XCTAssertTrue("\(error)".contains("AppOnlyNotifyFunction"), "\(error)")
        }
        XCTAssertTrue(context.hasChanges, "the change stays pending")
        XCTAssertEqual(try post.checkedValue(forKey: "postID") as? String, "abc")
        XCTAssertEqual(try SQLiteFile(url).scalar("SELECT count(*) FROM ZPOST WHERE ZPOSTID = 'abc'"), .integer(0))
        try assertIntegrity(url)
    }
}
