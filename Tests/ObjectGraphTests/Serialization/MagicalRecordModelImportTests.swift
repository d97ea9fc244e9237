import Foundation
import ObjectGraph
import XCTest

/// MagicalRecord's import rules kept in a model file's user info (`mappedKeyName` with key
/// paths and fallbacks, `relatedByAttribute` per entity and per relationship, `dateFormat`,
/// `useDefaultValueWhenNotPresent`, `excludeFromImport`), on MagicalRecord's own test model
/// and records (Tests/Fixtures/MagicalRecordImport, with its origin note). The expectations
/// are those of MagicalRecord's `Tests/DataImport/*Tests.m`.
final class MagicalRecordModelImportTests: StoreTestCase {
    private var container: PersistentContainer!
    private var context: ManagedObjectContext { container.viewContext }

    override func setUpWithError() throws {
        try super.setUpWithError()
        let model = try ManagedObjectModel(contentsOf: Self.fixture("TestModel.xcdatamodeld"))
        container = try PersistentContainer(name: "MagicalRecordImport", model: model, storeURL: storeURL)
    }

    override func tearDownWithError() throws {
        container = nil
        try super.tearDownWithError()
    }

    private static func fixture(_ name: String) -> URL {
        Fixtures.directory.appendingPathComponent("MagicalRecordImport").appendingPathComponent(name)
    }

    private func fixtureData(_ name: String) throws -> Data { try Data(contentsOf: Self.fixture(name + ".json")) }

    private func all(_ entity: String) throws -> [ManagedObject] {
        try context.fetch(FetchRequest<ManagedObject>(entityName: entity))
    }

    private func only(_ entity: String, file: StaticString = #filePath, line: UInt = #line) throws -> ManagedObject {
        let objects = try all(entity)
        XCTAssertEqual(objects.count, 1, "\(entity): \(objects)", file: file, line: line)
        return try XCTUnwrap(objects.first, file: file, line: line)
    }

    private func utc(_ text: String) throws -> Date {
        try XCTUnwrap(ISO8601DateFormatter().date(from: text), text)
    }

    @discardableResult
    private func importing(_ text: String, as entity: String, options: JSONImportOptions = JSONImportOptions()) throws -> JSONImportReport {
        try context.importJSON(Data(text.utf8), entityName: entity, options: options)
    }

    // MARK: ImportSingleEntityWithNoRelationshipsTests

    func testSingleEntityWithNoRelationshipsImportsAsMagicalRecordDoes() throws {
        try context.importJSON(fixtureData("SingleEntityWithNoRelationships"), entityName: "SingleEntityWithNoRelationships")
        let entity = try only("SingleEntityWithNoRelationships")
        XCTAssertEqual(entity.value(forKey: "stringTestAttribute") as? String, "This is a test value")
        XCTAssertEqual(entity.value(forKey: "int16TestAttribute") as? Int16, 256)
        XCTAssertEqual(entity.value(forKey: "int32TestAttribute") as? Int32, 32)
        XCTAssertEqual(entity.value(forKey: "int64TestAttribute") as? Int64, 42)
        XCTAssertEqual(entity.value(forKey: "decimalTestAttribute") as? Decimal, Decimal(string: "1.2"))
        XCTAssertEqual(entity.value(forKey: "doubleTestAttribute") as? Double, 124.3)
        XCTAssertEqual(entity.value(forKey: "floatTestAttribute") as? Float, 10_000_000_000)
        XCTAssertEqual(entity.value(forKey: "booleanTestAttribute") as? Bool, false)
        XCTAssertEqual(entity.value(forKey: "booleanAsStringTestAttribute") as? Bool, true)
        // mappedKeyName: the record's "mappedAttributeWithStringValue".
        XCTAssertEqual(entity.value(forKey: "mappedStringAttribute") as? String, "Mapped value")
        XCTAssertNil(entity.value(forKey: "nullTestAttribute"))
        // A number for a String attribute: its exact text.
        XCTAssertEqual(entity.value(forKey: "numberAsStringTestAttribute") as? String, "10248909829")
        XCTAssertEqual(entity.value(forKey: "notInJsonAttribute") as? String, "Set From Core Data Model Editor")
        XCTAssertEqual(entity.value(forKey: "dateTestAttribute") as? Date, try utc("2011-07-23T22:30:40Z"))
        // dateFormat "M/d/yyyy H-mm-ss", read in UTC: "8/5/2011 1-56-04".
        XCTAssertEqual(entity.value(forKey: "dateWithCustomFormat") as? Date, try utc("2011-08-05T01:56:04Z"))
        XCTAssertEqual(entity.value(forKey: "unixTimeTestAttribute") as? Date, Date(timeIntervalSince1970: 1_388_349_428))
        // dateFormat "UnixTime": milliseconds.
        XCTAssertEqual(entity.value(forKey: "unixTime13TestAttribute") as? Date, Date(timeIntervalSince1970: 1_388_349_427.543))
    }

    func testADateThatDoesNotMatchTheAttributesFormatIsAnErrorNamingKeyValueAndFormat() throws {
        XCTAssertThrowsError(try importing(#"{"stringTestAttribute": "a", "dateWithCustomFormat": "2011/08/05 01:56"}"#, as: "SingleEntityWithNoRelationships")) { error in
            let failure = error as? JSONImportError
            XCTAssertEqual(failure?.code, .wrongType, "\(error)")
            XCTAssertEqual(failure?.key, "dateWithCustomFormat")
            XCTAssertTrue(failure?.message.contains("\"2011/08/05 01:56\"") == true, "\(error)")
            XCTAssertTrue(failure?.message.contains("M/d/yyyy H-mm-ss") == true, "\(error)")
        }
        XCTAssertEqual(try all("SingleEntityWithNoRelationships").count, 0, "nothing imported")
        // Trailing text is no match either.
        XCTAssertThrowsError(try importing(#"{"stringTestAttribute": "a", "dateWithCustomFormat": "8/5/2011 1-56-04 and more"}"#, as: "SingleEntityWithNoRelationships"))
        // An ISO 8601 date (what export writes) still reads as itself.
        try importing(#"{"stringTestAttribute": "a", "dateWithCustomFormat": "2011-08-05T01:56:04Z"}"#, as: "SingleEntityWithNoRelationships")
        XCTAssertEqual(try only("SingleEntityWithNoRelationships").value(forKey: "dateWithCustomFormat") as? Date, try utc("2011-08-05T01:56:04Z"))
    }

    func testANumberForAStringAttributeKeepsItsExactDigitsAndNothingRounds() throws {
        try importing(#"[{"stringTestAttribute": "a", "numberAsStringTestAttribute": 123456789012345678901234567890},"#
                      + #" {"stringTestAttribute": "b", "numberAsStringTestAttribute": 1.50},"#
                      + #" {"stringTestAttribute": "c", "numberAsStringTestAttribute": -0.0}]"#, as: "SingleEntityWithNoRelationships")
        let texts = try Dictionary(uniqueKeysWithValues: all("SingleEntityWithNoRelationships").map {
            ($0.value(forKey: "stringTestAttribute") as! String, $0.value(forKey: "numberAsStringTestAttribute") as? String)
        })
        XCTAssertEqual(texts, ["a": "123456789012345678901234567890", "b": "1.50", "c": "-0.0"])
        // A boolean is no number: refused. A fraction for an integer still is an error.
        XCTAssertThrowsError(try importing(#"{"stringTestAttribute": "d", "numberAsStringTestAttribute": true}"#, as: "SingleEntityWithNoRelationships")) {
            XCTAssertEqual(($0 as? JSONImportError)?.code, .wrongType)
        }
        XCTAssertThrowsError(try importing(#"{"stringTestAttribute": "d", "int16TestAttribute": 4.5}"#, as: "SingleEntityWithNoRelationships")) {
            XCTAssertEqual(($0 as? JSONImportError)?.key, "int16TestAttribute")
        }
    }

    func testEntityRelatedByAttributeUpdatesAndUseDefaultValueWhenNotPresentResets() throws {
        try importing(#"{"stringTestAttribute": "one", "resetWhenAbsentAttribute": "given", "serverOnlyAttribute": "x", "int16TestAttribute": 1}"#,
                      as: "SingleEntityWithNoRelationships")
        var entity = try only("SingleEntityWithNoRelationships")
        XCTAssertEqual(entity.value(forKey: "resetWhenAbsentAttribute") as? String, "given")
        XCTAssertNil(entity.value(forKey: "serverOnlyAttribute"), "excludeFromImport")
        // The same relatedByAttribute value (the entity's user info): the object is updated,
        // and the absent attribute with useDefaultValueWhenNotPresent gets its default back.
        let report = try importing(#"{"stringTestAttribute": "one", "int16TestAttribute": 2}"#, as: "SingleEntityWithNoRelationships")
        XCTAssertEqual(report.updated.count, 1)
        XCTAssertEqual(report.ignoredKeys, [:])
        entity = try only("SingleEntityWithNoRelationships")
        XCTAssertEqual(entity.value(forKey: "int16TestAttribute") as? Int16, 2)
        XCTAssertEqual(entity.value(forKey: "resetWhenAbsentAttribute") as? String, "Reset From Core Data Model Editor")
    }

    // MARK: ImportSingleEntityRelatedToMappedEntityWithNestedMappedAttributesTests

    func testANestedKeyPathIsReadAndWrittenBack() throws {
        try context.importJSON(fixtureData("SingleEntityRelatedToMappedEntityWithNestedMappedAttributes"),
                               entityName: "SingleEntityRelatedToMappedEntityWithNestedMappedAttributes")
        let mapped = try only("MappedEntity")
        XCTAssertEqual(mapped.value(forKey: "mappedEntityID") as? Int16, 42)
        XCTAssertEqual(mapped.value(forKey: "nestedAttribute") as? String, "this is a nested value")

        let exported = try context.exportJSONObjects(FetchRequest<ManagedObject>(entityName: "MappedEntity"))
        XCTAssertEqual(exported.count, 1)
        XCTAssertEqual((exported[0]["attributeValue"] as? [String: Any])?["nestedValue"] as? String, "this is a nested value")
        XCTAssertNil(exported[0]["nestedAttribute"])
        XCTAssertEqual(exported[0]["id"] as? Int, 0, "testMappedEntityID under its mappedKeyName")
    }

    func testAKeyPathThroughAValueThatIsNoObjectIsAnError() throws {
        XCTAssertThrowsError(try importing(#"{"id": 7, "attributeValue": "flat"}"#, as: "MappedEntity")) { error in
            XCTAssertEqual((error as? JSONImportError)?.code, .wrongType, "\(error)")
            XCTAssertEqual((error as? JSONImportError)?.key, "attributeValue.nestedValue")
        }
        // A missing or null step is no value: the attribute is left as it is.
        try importing(#"[{"id": 7, "attributeValue": null}, {"id": 8, "attributeValue": {}}]"#, as: "MappedEntity")
        XCTAssertEqual(try all("MappedEntity").compactMap { $0.value(forKey: "nestedAttribute") }.count, 0)
    }

    // MARK: ImportSingleEntityRelatedToMappedEntityWithSecondaryMappingsTests

    func testTheFirstMappedKeyNameFallbackPresentWins() throws {
        try context.importJSON(fixtureData("SingleEntityRelatedToMappedEntityWithSecondaryMappings"),
                               entityName: "SingleEntityRelatedToMappedEntityWithSecondaryMappings")
        let entity = try only("SingleEntityRelatedToMappedEntityWithSecondaryMappings")
        XCTAssertEqual(entity.value(forKey: "secondaryMappedAttribute") as? String, "This attribute was set from the sample json file")
        let related = try XCTUnwrap(entity.value(forKey: "mappedRelationship") as? ManagedObject)
        XCTAssertEqual(related.value(forKey: "testMappedEntityID") as? Int64, 85)

        try importing(#"{"getting_warmer": "one", "actualMappedKey": "two"}"#, as: "SingleEntityRelatedToMappedEntityWithSecondaryMappings")
        try importing(#"{"no_in_use": "three", "getting_warmer": "four"}"#, as: "SingleEntityRelatedToMappedEntityWithSecondaryMappings")
        let values = try Set(all("SingleEntityRelatedToMappedEntityWithSecondaryMappings").compactMap { $0.value(forKey: "secondaryMappedAttribute") as? String })
        XCTAssertEqual(values, ["This attribute was set from the sample json file", "one", "three"])
    }

    // MARK: ImportSingleEntityRelatedToMappedEntityUsingMappedPrimaryKeyTests

    func testARelationshipsRelatedByAttributeFindsTheExistingObject() throws {
        try importing(#"{"id": 42, "sampleAttribute": "before"}"#, as: "MappedEntity")
        try context.importJSON(fixtureData("SingleEntityRelatedToMappedEntityUsingMappedPrimaryKey"),
                               entityName: "SingleEntityRelatedToMappedEntityUsingMappedPrimaryKey")
        let entity = try only("SingleEntityRelatedToMappedEntityUsingMappedPrimaryKey")
        let mapped = try only("MappedEntity")
        XCTAssertTrue(entity.value(forKey: "mappedEntity") as? ManagedObject === mapped)
        XCTAssertEqual(mapped.value(forKey: "sampleAttribute") as? String, "This attribute was set from the sample json file")
        XCTAssertEqual(mapped.value(forKey: "testMappedEntityID") as? Int64, 42)
        // A key alone (MagicalRecord's "list of primary keys") names it by the relationship's attribute.
        try importing(#"{"someRandomAttributeName": 42}"#, as: "SingleEntityRelatedToMappedEntityUsingMappedPrimaryKey")
        XCTAssertEqual(try all("SingleEntityRelatedToMappedEntityUsingMappedPrimaryKey").filter { $0.value(forKey: "mappedEntity") as? ManagedObject === mapped }.count, 2)
        XCTAssertEqual(try all("MappedEntity").count, 1)
    }

    // MARK: ImportSingleEntityRelatedToManyMappedEntitiesUsingMappedPrimaryKeyTests

    func testAToManyRelationshipsRelatedByAttributeMakesEachObjectOnce() throws {
        try context.importJSON(fixtureData("SingleEntityRelatedToManyMappedEntitiesUsingMappedPrimaryKey"),
                               entityName: "SingleEntityRelatedToManyMappedEntitiesUsingMappedPrimaryKey")
        let entity = try only("SingleEntityRelatedToManyMappedEntitiesUsingMappedPrimaryKey")
        XCTAssertEqual((entity.value(forKey: "mappedEntities") as? Set<ManagedObject>)?.count, 4)
        XCTAssertEqual(try all("MappedEntity").count, 4)
        // Keys alone, by the relationship's attribute; the entity updated by its own.
        try importing(#"{"testPrimaryKey": 1, "mappedEntities": [1, 3]}"#, as: "SingleEntityRelatedToManyMappedEntitiesUsingMappedPrimaryKey")
        let updated = try only("SingleEntityRelatedToManyMappedEntitiesUsingMappedPrimaryKey")
        let ids = ((updated.value(forKey: "mappedEntities") as? Set<ManagedObject>) ?? []).compactMap { $0.value(forKey: "testMappedEntityID") as? Int64 }
        XCTAssertEqual(Set(ids), [1, 3])
    }

    // MARK: ImportSingleRelatedEntityTests

    func testAbstractAndConcreteDestinationsAreMatchedByTheRelationshipsAttribute() throws {
        try context.importJSON(fixtureData("SingleRelatedEntity"), entityName: "SingleRelatedEntity")
        try context.importJSON(fixtureData("SingleRelatedEntity"), entityName: "SingleRelatedEntity")
        XCTAssertEqual(try all("SingleRelatedEntity").count, 2, "the entity has no related-by attribute: each record inserts")
        XCTAssertEqual(try all("ConcreteRelatedEntity").count, 3, "the destinations are matched by their relationships' attributes")
    }

    // MARK: Code wins over the model file

    func testOptionsGivenInCodeWinOverTheModelsUserInfo() throws {
        var options = JSONImportOptions()
        options.mapping.keys["MappedEntity"] = ["testMappedEntityID": "identifier", "nestedAttribute": "deep.down.value"]
        options.mapping.relatedBy["MappedEntity"] = "mappedEntityID"
        options.mapping.dateFormats["SingleEntityWithNoRelationships"] = ["dateWithCustomFormat": "yyyy.MM.dd"]
        options.mapping.relationshipRelatedBy["SingleEntityRelatedToMappedEntityUsingMappedPrimaryKey"] = ["mappedEntity": "mappedEntityID"]
        try importing(#"[{"mappedEntityID": 5, "identifier": 50, "id": 99, "deep": {"down": {"value": "code"}}, "attributeValue": {"nestedValue": "model"}},"#
                      + #" {"mappedEntityID": 5, "sampleAttribute": "same object"}]"#, as: "MappedEntity", options: options)
        let mapped = try only("MappedEntity")
        XCTAssertEqual(mapped.value(forKey: "testMappedEntityID") as? Int64, 50)
        XCTAssertEqual(mapped.value(forKey: "nestedAttribute") as? String, "code")
        XCTAssertEqual(mapped.value(forKey: "sampleAttribute") as? String, "same object")

        try importing(#"{"someRandomAttributeName": 5}"#, as: "SingleEntityRelatedToMappedEntityUsingMappedPrimaryKey", options: options)
        XCTAssertTrue(try only("SingleEntityRelatedToMappedEntityUsingMappedPrimaryKey").value(forKey: "mappedEntity") as? ManagedObject === mapped)

        try importing(#"{"stringTestAttribute": "a", "dateWithCustomFormat": "2011.08.05"}"#, as: "SingleEntityWithNoRelationships", options: options)
        XCTAssertEqual(try only("SingleEntityWithNoRelationships").value(forKey: "dateWithCustomFormat") as? Date, try utc("2011-08-05T00:00:00Z"))

        // The export writes the code's key paths.
        var export = JSONExportOptions()
        export.mapping = options.mapping
        let written = try context.exportJSONObjects(FetchRequest<ManagedObject>(entityName: "MappedEntity"), options: export)
        XCTAssertEqual(((written[0]["deep"] as? [String: Any])?["down"] as? [String: Any])?["value"] as? String, "code")
        XCTAssertEqual(written[0]["identifier"] as? Int, 50)
    }

    func testUserInfoIsIgnoredWhenTheMappingSaysSo() throws {
        var options = JSONImportOptions()
        options.mapping.readsModelUserInfo = false
        let report = try importing(#"[{"id": 1, "testMappedEntityID": 2}, {"id": 1, "testMappedEntityID": 2}]"#, as: "MappedEntity", options: options)
        XCTAssertEqual(report.inserted.count, 2, "no related-by attribute without the user info")
        XCTAssertEqual(try all("MappedEntity").compactMap { $0.value(forKey: "testMappedEntityID") as? Int64 }, [2, 2])
    }

    func testAMappingWhereOneKeyIsInsideAnothersIsRefused() throws {
        var options = JSONImportOptions()
        options.mapping.keys["MappedEntity"] = ["sampleAttribute": "attributeValue"]
        XCTAssertThrowsError(try importing(#"{"id": 1}"#, as: "MappedEntity", options: options)) { error in
            XCTAssertEqual((error as? JSONImportError)?.code, .unknownKey, "\(error)")
            XCTAssertTrue("\(error)".contains("attributeValue.nestedValue"), "\(error)")
        }
        // The export refuses it too, rather than leave one of the two values out.
        try importing(#"{"id": 1, "sampleAttribute": "flat", "attributeValue": {"nestedValue": "deep"}}"#, as: "MappedEntity")
        XCTAssertThrowsError(try context.exportJSON(FetchRequest<ManagedObject>(entityName: "MappedEntity"),
                                                    options: JSONExportOptions(mapping: options.mapping))) { error in
            XCTAssertTrue(error is JSONExportError, "\(error)")
        }
        options.mapping.keys = [:]
        options.mapping.relationshipRelatedBy["SingleRelatedEntity"] = ["testConcreteToOneRelationship": "nothing"]
        XCTAssertThrowsError(try importing(#"{}"#, as: "SingleRelatedEntity", options: options)) { error in
            XCTAssertEqual((error as? JSONImportError)?.code, .unknownKey, "\(error)")
            XCTAssertTrue("\(error)".contains("'nothing'"), "\(error)")
        }
    }
}
