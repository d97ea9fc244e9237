import Foundation
import ObjectGraph
import XCTest

/// Lightweight migration of stores opened with Xcode model files: renaming identifiers,
/// required attributes, `.xcdatamodeld` version chains, and every Apple store in
/// Tests/Fixtures migrating to a changed model.
final class ModelFileMigrationTests: StoreTestCase {
    private let carV1 = """
        <entity name="Car" representedClassName="Car" syncable="YES">
            <attribute name="plate" optional="YES" attributeType="String"/>
            <attribute name="seats" optional="YES" attributeType="Integer 16" defaultValueString="0" usesScalarValueType="YES"/>
            <attribute name="rating" optional="YES" attributeType="Integer 64" defaultValueString="0" usesScalarValueType="YES"/>
            <attribute name="nickname" optional="YES" attributeType="String"/>
        </entity>
        """

    private func writeCars(_ rows: [(plate: String?, seats: Int16, rating: Int64, nickname: String?)]) throws {
        let container = try PersistentContainer(name: "Cars", model: fileModel(carV1), storeURL: storeURL)
        for row in rows {
            let car = try container.viewContext.insertNewObject(forEntityName: "Car")
            try car.setValue(row.plate, forKey: "plate")
            try car.setValue(row.seats, forKey: "seats")
            try car.setValue(row.rating, forKey: "rating")
            try car.setValue(row.nickname, forKey: "nickname")
        }
        try container.viewContext.save()
    }

    func testRenamingIdentifiersCarryEntitiesAndAttributesOverAndTypesConvert() throws {
        try writeCars([("AB-1", 4, 5, "Red"), ("CD-2", 2, 3, nil)])
        let model = try fileModel("""
            <entity name="Vehicle" representedClassName="Vehicle" elementID="Car" syncable="YES">
                <attribute name="numberPlate" optional="YES" attributeType="String" elementID="plate"/>
                <attribute name="seats" optional="YES" attributeType="Integer 64" defaultValueString="0" usesScalarValueType="YES"/>
                <attribute name="rating" optional="YES" attributeType="Double" defaultValueString="0" usesScalarValueType="YES"/>
                <attribute name="wheels" attributeType="Integer 16" defaultValueString="4" usesScalarValueType="YES"/>
            </entity>
            """)
        // `nickname` is dropped on purpose.
        let container = try PersistentContainer(name: "Cars", model: model, storeURL: storeURL, options: [.allowsDroppingData])
        let vehicles = try objects("Vehicle", in: container.viewContext, sortedBy: "numberPlate")
        XCTAssertEqual(try vehicles.map { try $0.checkedValue(forKey: "numberPlate") as? String }, ["AB-1", "CD-2"])
        XCTAssertEqual(try vehicles.map { try $0.checkedValue(forKey: "seats") as? Int64 }, [4, 2], "Integer 16 -> Integer 64")
        XCTAssertEqual(try vehicles.map { try $0.checkedValue(forKey: "rating") as? Double }, [5, 3], "Integer 64 -> Double")
        XCTAssertEqual(try vehicles.map { try $0.checkedValue(forKey: "wheels") as? Int16 }, [4, 4], "a new required attribute gets its default")
        let file = try SQLiteFile(storeURL)
        XCTAssertEqual(try file.tableNames().filter { $0.hasPrefix("Z") && !$0.hasPrefix("Z_") }, ["ZVEHICLE"])
        try assertStoreIntegrity(storeURL)
    }

    func testARequiredAttributeWithoutADefaultStopsAtAMissingValueAndLosesNothing() throws {
        try writeCars([("AB-1", 4, 5, "Red"), ("CD-2", 2, 3, nil)])
        let before = storeBytes(storeURL)
        let model = try fileModel(carV1.replacingOccurrences(of: #"<attribute name="nickname" optional="YES" attributeType="String"/>"#,
                                                             with: #"<attribute name="nickname" attributeType="String"/>"#))
        XCTAssertThrowsError(try PersistentContainer(name: "Cars", model: model, storeURL: storeURL)) { error in
            let migration = error as? MigrationError
            XCTAssertEqual(migration?.code, .missingValue, "\(error)")
            XCTAssertEqual(migration?.entity, "Car")
            XCTAssertEqual(migration?.property, "nickname")
        }
        XCTAssertEqual(storeBytes(storeURL), before)
        XCTAssertEqual(try migrationLeftovers(storeURL), [])
    }

    // MARK: Version chains

    /// The MigrationRevised model versions as an `.xcdatamodeld` bundle whose current version
    /// is the last.
    private func migrationRevisedBundle() throws -> URL {
        let bundle = directory.appendingPathComponent("CoreDataMigration_Example.xcdatamodeld")
        let names = ["CoreDataMigration_Example", "CoreDataMigration_Example 2", "CoreDataMigration_Example 3", "CoreDataMigration_Example 4"]
        for (index, name) in names.enumerated() {
            let folder = bundle.appendingPathComponent(name + ".xcdatamodel")
            try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
            try FileManager.default.copyItem(at: Fixtures.directory.appendingPathComponent("MigrationRevised/v\(index + 1).xcdatamodel-contents.xml"),
                                             to: folder.appendingPathComponent("contents"))
        }
        let current = try PropertyListSerialization.data(fromPropertyList: ["_XCCurrentVersionName": names[3] + ".xcdatamodel"], format: .xml, options: 0)
        try current.write(to: bundle.appendingPathComponent(".xccurrentversion"))
        return bundle
    }

    func testTheMigrationRevisedChainMigratesStepByStepAndReadsAsIfWrittenByTheNewestModel() throws {
        let bundle = try migrationRevisedBundle()
        let newest = try ManagedObjectModel(contentsOf: bundle)
        for (store, posts) in [(1, 10), (2, 10), (3, 12)] {
            let folder = directory.appendingPathComponent("store\(store)")
            try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
            let url = try Fixtures.copy("MigrationRevised", "CoreDataMigration_Example_\(store).sqlite", into: folder)
            let colorColumn = store == 1 ? "ZCOLOR" : "ZHEXCOLOR"
            let colors = try SQLiteFile(url).rows("SELECT \(colorColumn) FROM ZPOST ORDER BY ZPOSTID").map { $0[0].string }
            let sections = store == 3 ? try SQLiteFile(url).scalar("SELECT count(*) FROM ZSECTION")?.int : 0
            XCTAssertTrue(try PersistentStoreCoordinator.requiresMigration(model: newest, storeURL: url), "store \(store)")

            let container = try PersistentContainer(name: "Posts", model: newest, storeURL: url)
            let migrated = try objects("Post", in: container.viewContext, sortedBy: "postID")
            XCTAssertEqual(migrated.count, posts, "store \(store)")
            XCTAssertEqual(try migrated.map { try $0.checkedValue(forKey: "hexColor") as? String }, colors,
                           "store \(store): color (v1) was renamed hexColor in v2, and survives to v4")
            XCTAssertTrue(try migrated.allSatisfy { try $0.checkedValue(forKey: "softDeleted") as? Bool == false }, "added in v4 with default NO")
            XCTAssertEqual(try objects("Section", in: container.viewContext).count, Int(sections ?? 0))
            XCTAssertFalse(try PersistentStoreCoordinator.requiresMigration(model: newest, storeURL: url), "store \(store)")
            let plist = try XCTUnwrap(SQLiteFile(url).scalar("SELECT Z_PLIST FROM Z_METADATA")?.data)
            let metadata = try XCTUnwrap(PropertyListSerialization.propertyList(from: plist, format: nil) as? [String: Any])
            XCTAssertEqual(metadata["NSStoreModelVersionHashes"] as? [String: Data], newest.entityVersionHashesByName)
            try assertStoreIntegrity(url)
        }
    }

    // MARK: Every fixture store

    /// `xml` with an optional attribute added to every entity and each entity's first
    /// optional String attribute renamed (with its renaming identifier).
    private func changed(_ xml: String) -> String {
        var result = ""
        var renamed = Set<String>()
        var entity = ""
        // Attributes named by uniqueness constraints keep their names (the constraint would
        // name the old one).
        let constrained = xml.components(separatedBy: "<constraint value=\"").dropFirst().compactMap { $0.components(separatedBy: "\"").first }
        for line in xml.components(separatedBy: "\n") {
            var line = line
            if let range = line.range(of: #"<entity name="([^"]+)""#, options: .regularExpression) {
                entity = String(line[range])
                if !line.hasSuffix("/>"), !line.contains("parentEntity=") { line += "\n<attribute name=\"migrationNote\" optional=\"YES\" attributeType=\"String\"/>" }
            }
            if !renamed.contains(entity), line.contains("<attribute name=\""), line.contains(#"attributeType="String""#),
               !line.contains("elementID"), !line.contains("transient"), !line.contains("migrationNote"),
               let range = line.range(of: #"name="[^"]+""#, options: .regularExpression) {
                let name = line[range].dropFirst(6).dropLast()
                if constrained.contains(String(name)) { result += line + "\n"; continue }
                line.replaceSubrange(range, with: "name=\"renamed\(name.prefix(1).uppercased() + name.dropFirst())\" elementID=\"\(name)\"")
                renamed.insert(entity)
            }
            result += line + "\n"
        }
        return result
    }

    func testEveryFixtureStoreMigratesToAChangedModelKeepingEveryRow() throws {
        let fixtures = [("CoreDataPlus", "SampleModel_V1.sqlite", "SampleModel.xcdatamodel-contents.xml"),
                        ("TavantTrade", "Model.sqlite", "Model.xcdatamodel-contents.xml"),
                        ("EasyLife", "EasyLife-1.5.0.sqlite", "EasyLife-1.5.0.xcdatamodel-contents.xml"),
                        ("MigrationRevised", "CoreDataMigration_Example_3.sqlite", "v3.xcdatamodel-contents.xml")]
        for (folder, store, modelFile) in fixtures {
            let copies = directory.appendingPathComponent(folder)
            try FileManager.default.createDirectory(at: copies, withIntermediateDirectories: true)
            let url = try Fixtures.copy(folder, store, into: copies)
            let xml = try String(contentsOf: Fixtures.directory.appendingPathComponent(folder).appendingPathComponent(modelFile), encoding: .utf8)
            let original = try ManagedObjectModel(contentsOf: Fixtures.directory.appendingPathComponent(folder).appendingPathComponent(modelFile))
            var before: [String: Int] = [:]
            var values: [String: [String?]] = [:]
            var links: [String: Int] = [:]
            let renamedFile = copies.appendingPathComponent("changed.xml")
            try Data(changed(xml).utf8).write(to: renamedFile)
            let model = try ManagedObjectModel(contentsOf: renamedFile)
            do {
                let container = try PersistentContainer(name: folder, model: original, storeURL: url, options: [.readOnly])
                for entity in original.entities {
                    let rows = try objects(entity.name, in: container.viewContext).filter { $0.entity.name == entity.name }
                    before[entity.name] = rows.count
                    if let renamed = model.entitiesByName[entity.name]?.attributes.first(where: { $0.fileDetails.renamingIdentifier != nil }),
                       renamed.entity === model.entitiesByName[entity.name] {
                        let old = try XCTUnwrap(renamed.fileDetails.renamingIdentifier)
                        values[entity.name] = try rows.map { try $0.checkedValue(forKey: old) as? String }.sorted { ($0 ?? "") < ($1 ?? "") }
                    }
                    for relationship in entity.relationships where !relationship.isToMany {
                        links["\(entity.name).\(relationship.name)"] = try rows.filter { try $0.checkedValue(forKey: relationship.name) != nil }.count
                    }
                }
            }
            XCTAssertFalse(values.isEmpty, "\(folder): some attribute was renamed")
            XCTAssertTrue(try PersistentStoreCoordinator.requiresMigration(model: model, storeURL: url), folder)
            let container = try PersistentContainer(name: folder, model: model, storeURL: url)
            for entity in model.entities {
                let rows = try objects(entity.name, in: container.viewContext).filter { $0.entity.name == entity.name }
                XCTAssertEqual(rows.count, before[entity.name], "\(folder) \(entity.name)")
                XCTAssertTrue(try rows.allSatisfy { try $0.checkedValue(forKey: "migrationNote") == nil }, "\(folder) \(entity.name)")
                if let expected = values[entity.name],
                   let renamed = entity.attributes.first(where: { $0.fileDetails.renamingIdentifier != nil && $0.entity === entity }) {
                    let migrated = try rows.map { try $0.checkedValue(forKey: renamed.name) as? String }.sorted { ($0 ?? "") < ($1 ?? "") }
                    XCTAssertEqual(migrated, expected, "\(folder) \(entity.name).\(renamed.name)")
                }
            }
            for (key, count) in links {
                let parts = key.split(separator: ".").map(String.init)
                let rows = try objects(parts[0], in: container.viewContext).filter { $0.entity.name == parts[0] }
                XCTAssertEqual(try rows.filter { try $0.checkedValue(forKey: parts[1]) != nil }.count, count, "\(folder) \(key)")
            }
            XCTAssertFalse(try PersistentStoreCoordinator.requiresMigration(model: model, storeURL: url), folder)
            XCTAssertEqual(try SQLiteFile(url).rows("PRAGMA integrity_check"), [[.text("ok")]], folder)
        }
    }
}
