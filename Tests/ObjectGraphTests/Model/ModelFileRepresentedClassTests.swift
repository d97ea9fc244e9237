import Foundation
import ObjectGraph
import XCTest

/// Classes of a model file's entities found by the entity's `representedClassName`, as
/// Xcode's generated classes are named, without overriding `entityName`.
final class ModelFileRepresentedClassTests: XCTestCase {
    class WorkerMO: ManagedObject {
        @Attribute var badge: String = ""
        @Attribute var age: Int = 0
    }

    final class Foreman: WorkerMO {
        @Attribute var level: Int = 1
    }

    final class Crew: ManagedObject {
        @Attribute var name: String = ""
    }

    /// Names the entity itself: the name wins over any representedClassName.
    final class Labourer: ManagedObject {
        override class var entityName: String { "Worker" }
    }

    final class Stranger: ManagedObject {}

    final class VehicleMO: ManagedObject {
        @Attribute var plate: String = ""
    }

    private var bundle: URL { Fixtures.directory.appendingPathComponent("Workforce/Workforce.xcdatamodeld") }

    func testAClassNamedAfterTheRepresentedClassNameIsThatEntitysClass() throws {
        let model = try ManagedObjectModel(contentsOf: bundle, classes: [WorkerMO.self, Foreman.self, Crew.self])
        XCTAssertEqual(model.entity(for: WorkerMO.self)?.name, "Worker", "representedClassName WorkerMO")
        XCTAssertEqual(model.entity(for: Foreman.self)?.name, "Foreman", "representedClassName .Foreman")
        XCTAssertEqual(model.entity(for: Crew.self)?.name, "Crew", "representedClassName Workforce.Crew")
        XCTAssertTrue(model.entitiesByName["Shift"]?.managedClass == ManagedObject.self)
        XCTAssertEqual(WorkerMO.entityName, "Worker", "the class names its entity from then on")
        XCTAssertEqual(Foreman.entityName, "Foreman")
        XCTAssertEqual(BatchDeleteRequest(WorkerMO.self).entityName, "Worker")

        let named = try ManagedObjectModel(contentsOf: bundle, classes: [Labourer.self])
        XCTAssertEqual(named.entity(for: Labourer.self)?.name, "Worker")
    }

    func testAClassMatchingNoEntityIsAModelErrorNamingTheClassAndTheEntities() throws {
        XCTAssertThrowsError(try ManagedObjectModel(contentsOf: bundle, classes: [Stranger.self])) { error in
            let error = error as? ModelError
            XCTAssertEqual(error?.code, .classMismatch)
            XCTAssertTrue(error?.message.contains("Stranger") ?? false, "\(String(describing: error))")
            XCTAssertTrue(error?.message.contains("Crew (class Workforce.Crew), Foreman (class .Foreman), Shift, Worker (class WorkerMO)") ?? false,
                          "\(String(describing: error))")
        }
        XCTAssertThrowsError(try ManagedObjectModel(contentsOf: bundle, classes: [WorkerMO.self, Labourer.self])) { error in
            XCTAssertEqual((error as? ModelError)?.code, .duplicateEntity, "two classes for Worker")
        }
    }

    func testSubEntitiesSharingTheClassBindToTheTopmostAndUnrelatedOnesAreAmbiguous() throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("represented-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        func model(_ entities: String) throws -> URL {
            let file = folder.appendingPathComponent(UUID().uuidString)
            try Data("""
                <?xml version="1.0" encoding="UTF-8" standalone="yes"?>
                <model type="com.apple.IDECoreDataModeler.DataModel" documentVersion="1.0">\(entities)</model>
                """.utf8).write(to: file)
            return file
        }
        let shared = try model("""
            <entity name="Vehicle" representedClassName="VehicleMO"><attribute name="plate" attributeType="String"/></entity>
            <entity name="Truck" representedClassName="VehicleMO" parentEntity="Vehicle"/>
            """)
        let loaded = try ManagedObjectModel(contentsOf: shared, classes: [VehicleMO.self])
        XCTAssertEqual(loaded.entity(for: VehicleMO.self)?.name, "Vehicle")
        XCTAssertTrue(loaded.entitiesByName["Truck"]?.managedClass == VehicleMO.self, "the sub-entity shares its parent's class")

        let unrelated = try model("""
            <entity name="Car" representedClassName="VehicleMO"><attribute name="plate" attributeType="String"/></entity>
            <entity name="Van" representedClassName="MyApp.VehicleMO"><attribute name="plate" attributeType="String"/></entity>
            """)
        XCTAssertThrowsError(try ManagedObjectModel(contentsOf: unrelated, classes: [VehicleMO.self])) { error in
            XCTAssertEqual((error as? ModelError)?.code, .classMismatch)
            XCTAssertTrue((error as? ModelError)?.message.contains("Car, Van") ?? false, "\(error)")
        }
    }
}
