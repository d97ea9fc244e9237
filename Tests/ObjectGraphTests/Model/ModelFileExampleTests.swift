import Foundation
import ObjectGraph
import XCTest

/// shared/API.md's example "Models from Xcode model files" runs as written, on a copy of a
/// store Apple's Core Data wrote (CoreDataPlus) and its model in a `Model.xcdatamodeld` bundle.
final class ModelFileExampleTests: StoreTestCase {
    func testTheAPIExampleForModelFilesRunsAsWritten() throws {
        let folder = directory.appendingPathComponent(UUID().uuidString)
        let version = folder.appendingPathComponent("Model.xcdatamodeld/Model.xcdatamodel")
        try FileManager.default.createDirectory(at: version, withIntermediateDirectories: true)
        try FileManager.default.copyItem(at: Fixtures.directory.appendingPathComponent("CoreDataPlus/SampleModel.xcdatamodel-contents.xml"),
                                         to: version.appendingPathComponent("contents"))
        let storeFromAnIPhone = try Fixtures.copy("CoreDataPlus", "SampleModel_V1.sqlite", into: folder)
        try renameStoneToSmith(storeFromAnIPhone, folder: folder)   // so the example's loop has cars to rename
        let previous = FileManager.default.currentDirectoryPath
        XCTAssertTrue(FileManager.default.changeCurrentDirectoryPath(folder.path))
        defer { _ = FileManager.default.changeCurrentDirectoryPath(previous) }

        // From shared/API.md, verbatim:
        let model = try ManagedObjectModel(contentsOf: URL(fileURLWithPath: "Model.xcdatamodeld"))  // or one .xcdatamodel
        let container = try PersistentContainer(name: "Cars", model: model, storeURL: storeFromAnIPhone)
        var cars = FetchRequest<ManagedObject>(entityName: "Car")
        cars.predicate = try FetchPredicate("owner.lastName == %@", "Smith")
        for car in try container.viewContext.fetch(cars) {
            print(car.value(forKey: "numberPlate") as? String ?? "-")
            try car.setValue("XYZ", forKey: "model")
        }
        let fresh = try container.viewContext.insertNewObject(forEntityName: "Car")   // ManagedObject, or the entity's Swift class
        try fresh.setValue("AB-123", forKey: "numberPlate")
        try container.viewContext.save()
        // (end of the example)

        let reader = try PersistentContainer(name: "Check", model: model, storeURL: storeFromAnIPhone)
        var plates = FetchRequest<ManagedObject>(entityName: "Car")
        plates.predicate = try FetchPredicate("numberPlate == %@", "AB-123")
        XCTAssertEqual(try reader.viewContext.count(for: plates), 1, "the inserted car is in the store")
        var smiths = FetchRequest<ManagedObject>(entityName: "Car")
        smiths.predicate = try FetchPredicate("owner.lastName == %@", "Smith")
        let renamed = try reader.viewContext.fetch(smiths)
        XCTAssertEqual(renamed.count, 100, "Theodora Smith's cars")
        XCTAssertTrue(renamed.allSatisfy { $0.value(forKey: "model") as? String == "XYZ" }, "every car of a Smith was renamed")
    }

    private func renameStoneToSmith(_ store: URL, folder: URL) throws {
        let model = try ManagedObjectModel(contentsOf: folder.appendingPathComponent("Model.xcdatamodeld"))
        let setup = try PersistentContainer(name: "Setup", model: model, storeURL: store)
        var stones = FetchRequest<ManagedObject>(entityName: "Person")
        stones.predicate = try FetchPredicate("lastName == %@", "Stone")
        let stone = try XCTUnwrap(setup.viewContext.fetch(stones).first)
        try stone.setValue("Smith", forKey: "lastName")
        try setup.viewContext.save()
    }
}
