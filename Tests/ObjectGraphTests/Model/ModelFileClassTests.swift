import Foundation
import ObjectGraph
import XCTest

/// Swift classes for some entities of a model file, plain `ManagedObject`s for the others:
/// typed fetches and relationships only ever meet instances of their type.
final class ModelFileClassTests: StoreTestCase {
    class FileCar: ManagedObject {
        override class var entityName: String { "Car" }
        @Attribute var numberPlate: String = ""
        @Attribute var maker: String? = nil
        @Relationship var owner: ManagedObject?
    }

    final class FileSportCar: FileCar {
        override class var entityName: String { "SportCar" }
        @Attribute var model: String? = nil
    }

    final class LooseSportCar: ManagedObject {
        override class var entityName: String { "SportCar" }
    }

    final class FilePerson: ManagedObject {
        override class var entityName: String { "Person" }
        @Attribute var firstName: String? = nil
        @Relationship var cars: Set<FileCar>
    }

    final class UnknownProperty: ManagedObject {
        override class var entityName: String { "Car" }
        @Attribute var wheels: Int = 4
    }

    final class WrongType: ManagedObject {
        override class var entityName: String { "Car" }
        @Attribute var maker: Int? = nil
    }

    final class NotOptional: ManagedObject {
        override class var entityName: String { "Car" }
        @Attribute var maker: String = ""
    }

    private var modelFile: URL { Fixtures.directory.appendingPathComponent("CoreDataPlus/SampleModel.xcdatamodel-contents.xml") }

    private func open(_ classes: [ManagedObject.Type]) throws -> PersistentContainer {
        let url = try Fixtures.copy("CoreDataPlus", "SampleModel_V1.sqlite", into: directory)
        return try PersistentContainer(name: "SampleModel", model: ManagedObjectModel(contentsOf: modelFile, classes: classes), storeURL: url)
    }

    func testClassLessSubEntitiesShareTheirParentsClass() throws {
        let container = try open([FileCar.self])
        let context = container.viewContext
        let cars = try context.fetch(FetchRequest<FileCar>())
        XCTAssertEqual(cars.count, 125, "Car with its class-less sub-entities SportCar and ExpensiveSportCar")
        XCTAssertEqual(Dictionary(grouping: cars, by: \.entity.name).mapValues(\.count), ["Car": 115, "SportCar": 5, "ExpensiveSportCar": 5])
        XCTAssertEqual(try context.count(for: FetchRequest<FileCar>(entityName: "SportCar")), 10)

        let bmw = try XCTUnwrap(cars.first { $0.numberPlate == "300" })
        XCTAssertEqual(bmw.entity.name, "ExpensiveSportCar")
        XCTAssertEqual(try bmw.checkedValue(forKey: "isLimitedEdition") as? Bool, true, "the sub-entity's own attribute, by key")
        XCTAssertEqual(try bmw.owner?.checkedValue(forKey: "firstName") as? String, "Faron")
        XCTAssertTrue(type(of: try XCTUnwrap(bmw.owner)) == ManagedObject.self, "Person has no class")

        let people = try context.fetch(FetchRequest<ManagedObject>(entityName: "Person"))
        XCTAssertEqual(people.count, 20)
        XCTAssertTrue(people.allSatisfy { type(of: $0) == ManagedObject.self })
        let theodora = try XCTUnwrap(people.first { (try? $0.checkedValue(forKey: "lastName") as? String) == "Stone" })
        let owned = try XCTUnwrap(theodora.checkedValue(forKey: "cars") as? Set<ManagedObject>)
        XCTAssertEqual(owned.count, 100)
        XCTAssertTrue(owned.allSatisfy { $0 is FileCar })

        let sport = try context.insertNewObject(forEntityName: "SportCar")
        XCTAssertTrue(sport is FileCar)
        XCTAssertEqual(sport.entity.name, "SportCar")
        XCTAssertTrue(try context.insertNewObject(forEntityName: "Car") is FileCar)
        XCTAssertTrue(type(of: try context.insertNewObject(forEntityName: "Person")) == ManagedObject.self)
        context.rollback()
    }

    func testATypedRequestNeverReturnsAnotherClass() throws {
        let container = try open([FileCar.self, FileSportCar.self])
        let context = container.viewContext
        XCTAssertThrowsError(try context.fetch(FetchRequest<FileCar>(entityName: "Person"))) { error in
            XCTAssertEqual((error as? ModelError)?.code, .unknownEntity)
        }
        XCTAssertThrowsError(try context.fetch(FetchRequest<FileSportCar>(entityName: "Car"))) { error in
            XCTAssertEqual((error as? ModelError)?.code, .unknownEntity, "Car objects are FileCars, not FileSportCars")
        }
        let all = try context.fetch(FetchRequest<ManagedObject>(entityName: "Car"))
        XCTAssertEqual(all.count, 125)
        XCTAssertEqual(all.filter { $0 is FileSportCar }.count, 10, "SportCar and its class-less ExpensiveSportCar")
        XCTAssertTrue(all.allSatisfy { $0 is FileCar })
        XCTAssertEqual(try context.fetch(FetchRequest<FileCar>()).count, 125)
        let sports = try context.fetch(FetchRequest<FileSportCar>())
        XCTAssertEqual(sports.count, 10)
        XCTAssertEqual(Set(sports.map(\.entity.name)), ["SportCar", "ExpensiveSportCar"])
    }

    func testAClassThatDoesNotFitItsEntityIsAModelError() throws {
        func mismatch(_ classes: [ManagedObject.Type]) -> ModelError? {
            do {
                _ = try ManagedObjectModel(contentsOf: modelFile, classes: classes)
                return nil
            } catch {
                return error as? ModelError
            }
        }
        let unknown = mismatch([UnknownProperty.self])
        XCTAssertEqual(unknown?.code, .classMismatch)
        XCTAssertEqual(unknown?.property, "wheels")
        XCTAssertEqual(mismatch([WrongType.self])?.code, .classMismatch)
        XCTAssertTrue(mismatch([NotOptional.self])?.message.contains("String?") ?? false)
        let destination = mismatch([FilePerson.self])
        XCTAssertEqual(destination?.code, .classMismatch, "Person.cars holds FileCars, but Car has no class here")
        XCTAssertTrue(destination?.message.contains("FileCar") ?? false, "\(String(describing: destination))")
        let parent = mismatch([FileCar.self, LooseSportCar.self, FilePerson.self])
        XCTAssertEqual(parent?.code, .classMismatch, "LooseSportCar is not a subclass of FileCar")
        XCTAssertEqual(parent?.entity, "SportCar")
        XCTAssertNotNil(try ManagedObjectModel(contentsOf: modelFile, classes: [FileCar.self, FilePerson.self, FileSportCar.self]))
    }
}
