import Foundation
import ObjectGraph
import XCTest

/// Entity version hashes equal to the ones Apple's Core Data stored in the fixture stores,
/// and `requiresMigration` deciding as Core Data does.
final class CoreDataVersionHashTests: StoreTestCase {
    private static let pairs = [
        ("CoreDataPlus", "SampleModel.xcdatamodel-contents.xml", "SampleModel_V1.sqlite"),
        ("TavantTrade", "Model.xcdatamodel-contents.xml", "Model.sqlite"),
        ("EasyLife", "EasyLife-1.5.0.xcdatamodel-contents.xml", "EasyLife-1.5.0.sqlite"),
        ("MigrationRevised", "v1.xcdatamodel-contents.xml", "CoreDataMigration_Example_1.sqlite"),
        ("MigrationRevised", "v2.xcdatamodel-contents.xml", "CoreDataMigration_Example_2.sqlite"),
        ("MigrationRevised", "v3.xcdatamodel-contents.xml", "CoreDataMigration_Example_3.sqlite"),
    ]

    private func copy(_ folder: String, _ file: String) throws -> URL {
        let copies = directory.appendingPathComponent(UUID().uuidString)
        try FileManager.default.createDirectory(at: copies, withIntermediateDirectories: true)
        return try Fixtures.copy(folder, file, into: copies)
    }

    private func model(_ folder: String, _ file: String) throws -> ManagedObjectModel {
        try ManagedObjectModel(contentsOf: Fixtures.directory.appendingPathComponent(folder).appendingPathComponent(file))
    }

    private func storedHashes(_ url: URL) throws -> [String: Data] {
        let plist = try XCTUnwrap(SQLiteFile(url).scalar("SELECT Z_PLIST FROM Z_METADATA")?.data)
        let metadata = try XCTUnwrap(PropertyListSerialization.propertyList(from: plist, format: nil) as? [String: Any])
        return try XCTUnwrap(metadata["NSStoreModelVersionHashes"] as? [String: Data])
    }

    func testEveryEntityHashEqualsTheOneAppleStored() throws {
        var matched = 0
        var total = 0
        for (folder, modelFile, store) in Self.pairs {
            let stored = try storedHashes(copy(folder, store))
            let computed = try model(folder, modelFile).entityVersionHashesByName
            XCTAssertEqual(Set(computed.keys), Set(stored.keys), store)
            for (entity, hash) in stored {
                total += 1
                if computed[entity] == hash { matched += 1 } else { XCTFail("\(store) \(entity): \(computed[entity]?.base64EncodedString() ?? "-") != \(hash.base64EncodedString())") }
            }
        }
        XCTAssertEqual(total, 12)
        XCTAssertEqual(matched, total)
    }

    func testSwiftClassesDeclaredLikeTheModelGiveApplesHashesToo() throws {
        let stored = try storedHashes(copy("TavantTrade", "Model.sqlite"))
        let swift = try ManagedObjectModel(entities: [FeedbackCategory.self, FeedbackSubCategory.self])
        XCTAssertEqual(swift.entityVersionHashesByName, stored)
        let first = try storedHashes(copy("MigrationRevised", "CoreDataMigration_Example_1.sqlite"))
        XCTAssertEqual(try ManagedObjectModel(entities: [PostV1.self]).entityVersionHashesByName, first)
    }

    func testRequiresMigrationIsFalseForTheWritingVersionAndTrueForTheNext() throws {
        for version in 1...3 {
            let url = try copy("MigrationRevised", "CoreDataMigration_Example_\(version).sqlite")
            let own = try model("MigrationRevised", "v\(version).xcdatamodel-contents.xml")
            let next = try model("MigrationRevised", "v\(version + 1).xcdatamodel-contents.xml")
            XCTAssertFalse(try PersistentStoreCoordinator.requiresMigration(model: own, storeURL: url), "store \(version) with v\(version)")
            XCTAssertTrue(try PersistentStoreCoordinator.requiresMigration(model: next, storeURL: url), "store \(version) with v\(version + 1)")
            do {
                let container = try PersistentContainer(name: "Blog", model: own, storeURL: url)
                let post = try container.viewContext.insertNewObject(forEntityName: "Post")
                try post.setValue("ABCDEF", forKey: version == 1 ? "color" : "hexColor")
                try container.viewContext.save()
            }
            XCTAssertFalse(try PersistentStoreCoordinator.requiresMigration(model: own, storeURL: url), "store \(version) after a save")
            XCTAssertEqual(try storedHashes(url), own.entityVersionHashesByName, "Apple's hashes are kept")
        }
        for (folder, modelFile, store) in Self.pairs {
            XCTAssertFalse(try PersistentStoreCoordinator.requiresMigration(model: model(folder, modelFile), storeURL: copy(folder, store)), store)
        }
    }

    func testAStoreCreatedHereCarriesCoreDatasHashes() throws {
        let bundle = directory.appendingPathComponent("Blog.xcdatamodeld/Blog 3.xcdatamodel")
        try FileManager.default.createDirectory(at: bundle, withIntermediateDirectories: true)
        try FileManager.default.copyItem(at: Fixtures.directory.appendingPathComponent("MigrationRevised/v3.xcdatamodel-contents.xml"),
                                         to: bundle.appendingPathComponent("contents"))
        let model = try ManagedObjectModel(contentsOf: bundle.deletingLastPathComponent())
        let url = directory.appendingPathComponent("Fresh.sqlite")
        _ = try PersistentContainer(name: "Fresh", model: model, storeURL: url)
        let apple = try storedHashes(copy("MigrationRevised", "CoreDataMigration_Example_3.sqlite"))
        XCTAssertEqual(try storedHashes(url), apple, "an Apple device opening this store sees its own model's hashes")
    }
}
