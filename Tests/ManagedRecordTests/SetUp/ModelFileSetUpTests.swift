import Foundation
import ManagedRecord
import XCTest

/// The class of docs/active-record.md's "From a model file" example.
class WorkerMO: ManagedObject {
    @Attribute var badge: String = ""
    @Attribute var firstName: String? = nil
    @Attribute var age: Int = 0
    @Relationship var shifts: Set<ManagedObject>      // Shift has no class
}

/// `ManagedRecord.setUp(modelAt:classes:)` and `setUp(name:model:)`: the guide's example as
/// written, the model's name, and the errors a person gets for a file, class or entity name
/// that does not fit.
final class ModelFileSetUpTests: XCTestCase {
    private var folder: URL!
    private var storeURL: URL { folder.appendingPathComponent("Workforce.sqlite") }
    private let bundle = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
        .appendingPathComponent("Fixtures/Workforce/Workforce.xcdatamodeld")

    override func setUpWithError() throws {
        folder = FileManager.default.temporaryDirectory.appendingPathComponent("mr-file-\(UUID().uuidString)", isDirectory: true)
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        // The example's relative path, as an app would ship its model beside it.
        try FileManager.default.createDirectory(at: folder.appendingPathComponent("Model"), withIntermediateDirectories: true)
        try FileManager.default.copyItem(at: bundle, to: folder.appendingPathComponent("Model/Workforce.xcdatamodeld"))
    }

    override func tearDownWithError() throws {
        for name in ["Workforce", "Other", "Renamed"] { ManagedRecord.tearDown(model: name) }
        try? FileManager.default.removeItem(at: folder)
    }

    func testTheGuideExample() throws {
        let previous = FileManager.default.currentDirectoryPath
        XCTAssertTrue(FileManager.default.changeCurrentDirectoryPath(folder.path))
        defer { _ = FileManager.default.changeCurrentDirectoryPath(previous) }

        let modelFile = URL(fileURLWithPath: "Model/Workforce.xcdatamodeld")
        try ManagedRecord.setUp(modelAt: modelFile, classes: [WorkerMO.self], storeURL: storeURL)   // model "Workforce"

        let ann = WorkerMO.newEntity()
        ann.badge = "A1"; ann.firstName = "Ann"; ann.age = 30
        try WorkerMO.commit()
        print(try WorkerMO.count(), try WorkerMO.aggregate(.average, of: "age") ?? 0)

        let shifts = try ManagedRecord.entity("Shift")            // an entity without a class, by name
        let shift = try shifts.newEntity()                         // a ManagedObject
        try shift.setValue(Date(), forKey: "day")
        try shift.setValue(7.5, forKey: "hours")
        try shift.setValue(ann, forKey: "worker")
        try shifts.commit()
        print(try shifts.count(where: "hours > %@", 6), try shifts.aggregate(.sum, of: "hours") ?? 0)

        XCTAssertNotNil(ManagedRecord.manager(forModel: "Workforce"), "named after the file")
        XCTAssertEqual(try WorkerMO.count(), 1)
        XCTAssertEqual(try shifts.count(where: "hours > %@", 6), 1)
        XCTAssertEqual(ann.shifts.count, 1)
        XCTAssertTrue(FileManager.default.fileExists(atPath: storeURL.path))
    }

    func testTheModelNameAndAModelBuiltAlready() throws {
        XCTAssertEqual(ManagedRecord.modelName(forModelAt: URL(fileURLWithPath: "/app/Company.xcdatamodeld")), "Company")
        XCTAssertEqual(ManagedRecord.modelName(forModelAt: URL(fileURLWithPath: "/app/Company.xcdatamodeld/Company 2.xcdatamodel")), "Company 2")
        XCTAssertEqual(ManagedRecord.modelName(forModelAt: URL(fileURLWithPath: "/app/Company.xcdatamodel/contents")), "Company")

        XCTAssertFalse(try ManagedRecord.doesRequireMigration(modelAt: bundle, storeURL: storeURL), "no store yet")
        let manager = try ManagedRecord.setUp(modelAt: bundle, classes: [WorkerMO.self], name: "Renamed", store: .inMemory)
        XCTAssertEqual(manager.name, "Renamed")
        XCTAssertTrue(WorkerMO.contextManager === manager)

        let model = try ManagedObjectModel(contentsOf: bundle, classes: [WorkerMO.self])
        let built = try ManagedRecord.setUp(name: "Workforce", model: model, storeURL: storeURL)
        XCTAssertTrue(built.model === model)
        XCTAssertTrue(WorkerMO.contextManager === built, "the latest setUp of the class serves it")
        let crew = try ManagedRecord.entity("Crew", inModel: "Workforce").newEntity()
        try crew.setValue("Night", forKey: "name")
        try built.entity(named: "Crew").commit()
        XCTAssertEqual(try ManagedRecord.entity("Crew", inModel: "Workforce").count(), 1)
        XCTAssertEqual(try ManagedRecord.entity("Crew", inModel: "Renamed").count(), 0, "the other model's store")
    }

    func testAFileClassOrNameThatDoesNotFitIsATypedError() throws {
        final class Stranger: ManagedObject {}
        XCTAssertThrowsError(try ManagedRecord.setUp(modelAt: bundle, classes: [Stranger.self], storeURL: storeURL)) { error in
            let error = error as? ModelError
            XCTAssertEqual(error?.code, .classMismatch)
            XCTAssertTrue(error?.message.contains("Stranger matches no entity") ?? false, "\(String(describing: error))")
            XCTAssertTrue(error?.message.contains("Worker (class WorkerMO)") ?? false, "\(String(describing: error))")
        }
        XCTAssertNil(ManagedRecord.manager(forModel: "Workforce"), "nothing is set up")
        XCTAssertFalse(FileManager.default.fileExists(atPath: storeURL.path), "no store is made")

        let compiled = folder.appendingPathComponent("Workforce.momd")
        try FileManager.default.createDirectory(at: compiled, withIntermediateDirectories: true)
        XCTAssertThrowsError(try ManagedRecord.setUp(modelAt: compiled, storeURL: storeURL)) { error in
            XCTAssertEqual((error as? ModelError)?.code, .invalidModelFile)
            XCTAssertTrue("\(error)".contains(".xcdatamodeld"), "says what to use instead: \(error)")
        }
        let mom = compiled.appendingPathComponent("Workforce 2.mom")
        try Data("bplist00".utf8).write(to: mom)
        XCTAssertThrowsError(try ManagedRecord.setUp(modelAt: mom, storeURL: storeURL)) { error in
            XCTAssertEqual((error as? ModelError)?.code, .invalidModelFile)
            XCTAssertTrue("\(error)".contains(".xcdatamodeld"), "says what to use instead: \(error)")
        }
        XCTAssertThrowsError(try ManagedRecord.setUp(modelAt: folder.appendingPathComponent("Missing.xcdatamodeld"))) { error in
            XCTAssertEqual((error as? ModelError)?.code, .invalidModelFile)
        }

        XCTAssertThrowsError(try ManagedRecord.entity("Shift", inModel: "Other")) { error in
            XCTAssertEqual((error as? ModelError)?.code, .unknownEntity, "no model Other is set up")
        }
        try ManagedRecord.setUp(modelAt: bundle, storeURL: storeURL)
        try ManagedRecord.setUp(modelAt: bundle, name: "Other", store: .inMemory)
        XCTAssertThrowsError(try ManagedRecord.entity("Shift")) { error in
            XCTAssertEqual((error as? ModelError)?.code, .unknownEntity)
            XCTAssertTrue("\(error)".contains("Other, Workforce"), "names the models to choose from: \(error)")
        }
        XCTAssertThrowsError(try ManagedRecord.entity("Shfit")) { error in
            XCTAssertEqual((error as? ModelError)?.code, .unknownEntity)
            XCTAssertTrue("\(error)".contains("Workforce: Crew, Foreman, Shift, Worker"), "\(error)")
        }
        XCTAssertEqual(try ManagedRecord.entity("Shift", inModel: "Other").name, "Shift")
    }
}
