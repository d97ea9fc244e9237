import Foundation
import ObjectGraph
import XCTest

/// Stores written by Apple's Core Data (Tests/Fixtures, each folder with its origin note),
/// opened from a copy in a temporary directory with Swift classes declared from the Xcode
/// model XML.
final class AppleStoreTests: StoreTestCase {
    private var sampleEntities: [ManagedObject.Type] { [SampleExpensiveSportCar.self, SamplePerson.self] }

    func testTheFixturesAreInPlaceWithTheirOriginNotes() throws {
        for folder in ["CoreDataPlus", "TavantTrade", "EasyLife", "MigrationRevised", "CoreDataPlusRenamed"] {
            let note = Fixtures.directory.appendingPathComponent(folder).appendingPathComponent("README.md")
            let text = try String(contentsOf: note, encoding: .utf8)
            XCTAssertTrue(text.contains("Core Data"), "\(folder) keeps its origin note")
        }
    }

    // MARK: CoreDataPlus: three-level inheritance, UUIDs, dates, Car.owner <-> Person.cars

    func testCoreDataPlusOpensWithItsInheritanceRowCountsAndValues() throws {
        let url = try Fixtures.copy("CoreDataPlus", "SampleModel_V1.sqlite", into: directory)
        let container = try makeContainer(sampleEntities, url: url, name: "SampleModel")
        let context = container.viewContext

        XCTAssertEqual(try context.count(for: FetchRequest<SampleCar>()), 125)
        var carsOnly = FetchRequest<SampleCar>()
        carsOnly.includesSubentities = false
        XCTAssertEqual(try context.count(for: carsOnly), 115)
        XCTAssertEqual(try context.count(for: FetchRequest<SampleSportCar>()), 10)
        XCTAssertEqual(try context.count(for: FetchRequest<SampleExpensiveSportCar>()), 5)
        XCTAssertEqual(try context.count(for: FetchRequest<SamplePerson>()), 20)

        let cars = try context.fetch(FetchRequest<SampleCar>())
        XCTAssertEqual(cars.count, 125)
        XCTAssertEqual(cars.filter { type(of: $0) == SampleCar.self }.count, 115)
        XCTAssertEqual(cars.filter { type(of: $0) == SampleSportCar.self }.count, 5)
        XCTAssertEqual(cars.filter { $0 is SampleExpensiveSportCar }.count, 5)

        let bmw = try XCTUnwrap(cars.first { $0.numberPlate == "300" } as? SampleExpensiveSportCar)
        XCTAssertEqual(bmw.maker, "BMW")
        XCTAssertEqual(bmw.model, "M6 Coupe")
        XCTAssertEqual(bmw.isLimitedEdition, true)
        XCTAssertNil(bmw.color)
        XCTAssertNil(bmw.markedForDeletionAsOf)
        XCTAssertEqual(bmw.currentDrivingSpeed, 0, "a transient attribute gets its default")
        XCTAssertEqual(bmw.owner?.firstName, "Faron")
        let panda = try XCTUnwrap(cars.first { $0.numberPlate == "170" })
        XCTAssertEqual(panda.maker, "FIAT")
        XCTAssertEqual(panda.entity.name, "Car")

        let people = try fetchAll(SamplePerson.self, in: context, sortedBy: "lastName")
        let victoria = try XCTUnwrap(people.first { $0.firstName == "Victoria" })
        XCTAssertEqual(victoria.lastName, "Coster")
        XCTAssertEqual(victoria.id, UUID(uuidString: "FEFE4176-912D-429F-9C83-662FFF641115"), "a UUID stored as a 16-byte BLOB")
        XCTAssertEqual(victoria.updatedAt.timeIntervalSinceReferenceDate, 639_503_569.638733, accuracy: 0.000001)
        XCTAssertFalse(victoria.isDriving)
    }

    func testCoreDataPlusRelationshipsReadInBothDirections() throws {
        let url = try Fixtures.copy("CoreDataPlus", "SampleModel_V1.sqlite", into: directory)
        let container = try makeContainer(sampleEntities, url: url, name: "SampleModel")
        let context = container.viewContext
        let people = try fetchAll(SamplePerson.self, in: context)
        let theodora = try XCTUnwrap(people.first { $0.firstName == "Theodora" && $0.lastName == "Stone" })
        XCTAssertEqual(theodora.cars.count, 100)
        XCTAssertTrue(theodora.cars.allSatisfy { $0.owner === theodora })
        XCTAssertEqual(people.reduce(0) { $0 + $1.cars.count }, 118, "every owned car is in its owner's set")

        let cars = try context.fetch(FetchRequest<SampleCar>())
        XCTAssertEqual(cars.filter { $0.owner == nil }.count, 7)
        for car in cars.prefix(20) {
            if let owner = car.owner { XCTAssertTrue(owner.cars.contains(car)) }
        }
    }

    func testCoreDataPlusAcceptsAnInsertAndReopensWithIt() throws {
        let url = try Fixtures.copy("CoreDataPlus", "SampleModel_V1.sqlite", into: directory)
        let newID: UUID
        do {
            let container = try makeContainer(sampleEntities, url: url, name: "SampleModel")
            let context = container.viewContext
            let victoria = try XCTUnwrap(fetchAll(SamplePerson.self, in: context).first { $0.firstName == "Victoria" })
            let car = SampleSportCar(context: context)
            car.maker = "Škoda"
            car.model = "Octavia RS"
            car.numberPlate = "OG-1"
            car.owner = victoria
            let person = SamplePerson(context: context)
            person.firstName = "Linus"
            person.lastName = "Torvalds"
            person.updatedAt = Date(timeIntervalSinceReferenceDate: 700_000_000.5)
            newID = person.id
            try context.save()
            XCTAssertEqual(car.objectID.primaryKey, 126, "keys continue after Z_PRIMARYKEY's Z_MAX")
        }
        let file = try SQLiteFile(url)
        XCTAssertEqual(try file.rows("PRAGMA integrity_check"), [[.text("ok")]])
        XCTAssertEqual(try file.rows("SELECT Z_ENT, ZMAKER FROM ZCAR WHERE ZNUMBERPLATE = 'OG-1'"), [[.integer(2), .text("Škoda")]])
        XCTAssertEqual(try file.rows("SELECT Z_MAX FROM Z_PRIMARYKEY WHERE Z_NAME IN ('Car', 'Person') ORDER BY Z_ENT"),
                       [[.integer(126)], [.integer(21)]])
        XCTAssertEqual(try file.rows("SELECT length(ZID) FROM ZPERSON WHERE ZFIRSTNAME = 'Linus'"), [[.integer(16)]])

        let reopened = try makeContainer(sampleEntities, url: url, name: "SampleModel")
        let context = reopened.viewContext
        XCTAssertEqual(try context.count(for: FetchRequest<SampleSportCar>()), 11)
        let linus = try XCTUnwrap(fetchAll(SamplePerson.self, in: context).first { $0.firstName == "Linus" })
        XCTAssertEqual(linus.id, newID)
        XCTAssertEqual(linus.updatedAt, Date(timeIntervalSinceReferenceDate: 700_000_000.5))
        let victoria = try XCTUnwrap(fetchAll(SamplePerson.self, in: context).first { $0.firstName == "Victoria" })
        let octavia = try XCTUnwrap(victoria.cars.first { $0.numberPlate == "OG-1" })
        XCTAssertTrue(octavia is SampleSportCar)
        XCTAssertEqual(octavia.maker, "Škoda")
    }

    // MARK: TavantTrade: a seed database of framework version 479

    func testTavantTradeSeedDatabaseOpensWithItsOneToMany() throws {
        let url = try Fixtures.copy("TavantTrade", "Model.sqlite", into: directory)
        let entities: [ManagedObject.Type] = [FeedbackCategory.self, FeedbackSubCategory.self]
        do {
            let container = try makeContainer(entities, url: url, name: "Model")
            let context = container.viewContext
            let categories = try fetchAll(FeedbackCategory.self, in: context)
            XCTAssertEqual(categories.count, 19)
            XCTAssertEqual(try context.count(for: FetchRequest<FeedbackSubCategory>()), 79)
            XCTAssertEqual(categories.reduce(0) { $0 + $1.subcategory.count }, 79)
            let settlement = try XCTUnwrap(categories.first { $0.name == "Settlement" })
            XCTAssertEqual(settlement.objectID.primaryKey, 1)
            XCTAssertEqual(settlement.subcategory.count, 4)
            let busiest = try XCTUnwrap(categories.first { $0.objectID.primaryKey == 11 })
            XCTAssertEqual(busiest.subcategory.count, 10)
            let limits = try XCTUnwrap(try fetchAll(FeedbackSubCategory.self, in: context).first { $0.name == "Discrepancy in limits" })
            XCTAssertEqual(limits.category?.objectID.primaryKey, 15)

            let extra = FeedbackSubCategory(context: context)
            extra.name = "Added on Linux"
            extra.category = settlement
            try context.save()
        }
        let reopened = try makeContainer(entities, url: url, name: "Model")
        let settlement = try XCTUnwrap(fetchAll(FeedbackCategory.self, in: reopened.viewContext).first { $0.name == "Settlement" })
        XCTAssertEqual(settlement.subcategory.count, 5)
        XCTAssertTrue(settlement.subcategory.contains { $0.name == "Added on Linux" })
        XCTAssertEqual(try SQLiteFile(url).scalar("SELECT Z_MAX FROM Z_PRIMARYKEY WHERE Z_NAME = 'FeedbackSubCategory'"), .integer(80))
    }

    // MARK: EasyLife: a self-referencing many-to-many join table

    func testEasyLifeOpensAndItsSelfReferencingManyToManyRoundTrips() throws {
        let url = try Fixtures.copy("EasyLife", "EasyLife-1.5.0.sqlite", into: directory)
        let entities: [ManagedObject.Type] = [EasyProject.self, EasyTodoItem.self]
        do {
            let container = try makeContainer(entities, url: url, name: "EasyLife")
            let context = container.viewContext
            let items = try fetchAll(EasyTodoItem.self, in: context, sortedBy: "name")
            XCTAssertEqual(items.map { $0.name ?? "-" },
                           ["call landlord", "clean flat", "fix bike", "get party food!", "phone mum", "send letter"])
            let landlord = items[0]
            XCTAssertNil(landlord.done, "ZDONE is NULL in Apple's file")
            XCTAssertEqual(landlord.repeats, 0)
            XCTAssertNil(landlord.notes)
            XCTAssertNil(landlord.project)
            XCTAssertEqual(try XCTUnwrap(landlord.date).timeIntervalSinceReferenceDate, 541_369_085.083766, accuracy: 0.000001)
            XCTAssertTrue(items.allSatisfy { $0.blocking.isEmpty && $0.blockedBy.isEmpty })
            XCTAssertEqual(try context.count(for: FetchRequest<EasyProject>()), 0)

            let bike = items[2]
            let food = items[3]
            bike.blocking = [food, landlord]
            XCTAssertEqual(food.blockedBy, [bike], "the inverse is set in memory")
            let project = EasyProject(context: context)
            project.name = "Home"
            project.todoItem = [bike, food]
            try context.save()
        }
        XCTAssertEqual(try SQLiteFile(url).scalar("SELECT count(*) FROM Z_2BLOCKING"), .integer(2), "Apple's join table is used")

        let reopened = try makeContainer(entities, url: url, name: "EasyLife")
        let items = try fetchAll(EasyTodoItem.self, in: reopened.viewContext, sortedBy: "name")
        let bike = try XCTUnwrap(items.first { $0.name == "fix bike" })
        XCTAssertEqual(Set(bike.blocking.compactMap(\.name)), ["get party food!", "call landlord"])
        XCTAssertEqual(Set(items.first { $0.name == "call landlord" }?.blockedBy.compactMap(\.name) ?? []), ["fix bike"])
        XCTAssertEqual(bike.project?.name, "Home")
        XCTAssertEqual(bike.project?.priority, -1)
        XCTAssertEqual(bike.project?.todoItem.count, 2)
        XCTAssertEqual(try SQLiteFile(url).rows("PRAGMA integrity_check"), [[.text("ok")]])
    }

    // MARK: MigrationRevised: one store per model version

    func testMigrationRevisedStoresOpenWithTheModelVersionTheyWereWrittenWith() throws {
        let first = try Fixtures.copy("MigrationRevised", "CoreDataMigration_Example_1.sqlite", into: directory)
        do {
            let container = try makeContainer([PostV1.self], url: first, name: "V1")
            let posts = try fetchAll(PostV1.self, in: container.viewContext, sortedBy: "date")
            XCTAssertEqual(posts.count, 10)
            XCTAssertTrue(posts.allSatisfy { $0.color?.count == 6 && $0.postID.flatMap(UUID.init(uuidString:)) != nil })
        }

        let second = try Fixtures.copy("MigrationRevised", "CoreDataMigration_Example_2.sqlite", into: directory)
        do {
            let container = try makeContainer([PostV2.self], url: second, name: "V2")
            let posts = try fetchAll(PostV2.self, in: container.viewContext)
            XCTAssertEqual(posts.count, 10)
            let post = try XCTUnwrap(posts.first { $0.postID == "5903489F-8A2E-4C74-817B-FA395E2F002D" })
            XCTAssertEqual(post.hexColor, "01A5BC")
            XCTAssertEqual(try XCTUnwrap(post.date).timeIntervalSinceReferenceDate, 569_172_484.544889, accuracy: 0.000001)
        }

        let third = try Fixtures.copy("MigrationRevised", "CoreDataMigration_Example_3.sqlite", into: directory)
        do {
            let container = try makeContainer([PostV3.self, SectionV3.self], url: third, name: "V3")
            let context = container.viewContext
            let posts = try fetchAll(PostV3.self, in: context)
            XCTAssertEqual(posts.count, 12)
            XCTAssertEqual(try context.count(for: FetchRequest<SectionV3>()), 14)
            XCTAssertEqual(posts.reduce(0) { $0 + $1.sections.count }, 14)
            let twoSections = posts.filter { $0.sections.count == 2 }.compactMap(\.objectID.primaryKey).sorted()
            XCTAssertEqual(twoSections, [11, 12])
            let first = try XCTUnwrap(posts.first { $0.objectID.primaryKey == 1 })
            XCTAssertEqual(first.hexColor, "528B20")
            XCTAssertEqual(first.sections.first?.index, 0)
            XCTAssertEqual(first.sections.first?.title?.hasPrefix("We d"), true)
            XCTAssertTrue(first.sections.first?.body?.hasPrefix("We diminution") ?? false)

            // Cascade: deleting a post removes its sections.
            let eleven = try XCTUnwrap(posts.first { $0.objectID.primaryKey == 11 })
            context.delete(eleven)
            try context.save()
        }
        let file = try SQLiteFile(third)
        XCTAssertEqual(try file.scalar("SELECT count(*) FROM ZSECTION"), .integer(12))
        XCTAssertEqual(try file.scalar("SELECT count(*) FROM ZPOST"), .integer(11))
        XCTAssertEqual(try file.rows("PRAGMA integrity_check"), [[.text("ok")]])
    }

    func testOpeningAFixtureCopyNeverTouchesTheOriginal() throws {
        let original = Fixtures.directory.appendingPathComponent("CoreDataPlus/SampleModel_V1.sqlite")
        let before = try Data(contentsOf: original)
        let url = try Fixtures.copy("CoreDataPlus", "SampleModel_V1.sqlite", into: directory)
        do {
            let container = try makeContainer(sampleEntities, url: url, name: "SampleModel")
            let person = SamplePerson(context: container.viewContext)
            person.firstName = "Temp"
            try container.viewContext.save()
        }
        XCTAssertEqual(try Data(contentsOf: original), before)
    }
}
