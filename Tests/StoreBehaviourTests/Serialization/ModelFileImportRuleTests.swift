import Foundation
import ObjectGraph
import Testing

/// MagicalRecord's import rules in a model file's user info, on both stores: the lookups by
/// an entity's and a relationship's `relatedByAttribute` are queries the store answers, and
/// the values the rules make (a date in its own format, a number as text) are stored as
/// they are. The model and records are MagicalRecord's (Tests/Fixtures/MagicalRecordImport,
/// with its origin note); ObjectGraphTests' `MagicalRecordModelImportTests` has the rest.
@Suite("Import rules in a model file's user info", .onOwnThreads)
struct ModelFileImportRuleTests {
    private static var folder: URL {
        var folder = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
        while folder.lastPathComponent != "Tests", folder.pathComponents.count > 1 { folder = folder.deletingLastPathComponent() }
        return folder.appendingPathComponent("Fixtures/MagicalRecordImport", isDirectory: true)
    }

    private func container(_ kind: StoreKind) throws -> PersistentContainer {
        let model = try ManagedObjectModel(contentsOf: Self.folder.appendingPathComponent("TestModel.xcdatamodeld"))
        return try PersistentContainer(name: "MagicalRecordImport", model: model, store: kind.newStore().location, options: kind.containerOptions)
    }

    private func records(_ name: String) throws -> Data { try Data(contentsOf: Self.folder.appendingPathComponent(name + ".json")) }

    private func all(_ entity: String, _ context: ManagedObjectContext) throws -> [ManagedObject] {
        try context.fetch(FetchRequest<ManagedObject>(entityName: entity))
    }

    @Test("Dates in their own format, numbers as text, and updates by the entity's relatedByAttribute", arguments: StoreKind.allCases)
    func valuesAndEntityMatching(_ kind: StoreKind) throws {
        let container = try container(kind)
        let context = container.newBackgroundContext()
        try context.performAndWait {
            try context.importJSON(records("SingleEntityWithNoRelationships"), entityName: "SingleEntityWithNoRelationships")
            try context.importJSON(Data(#"{"stringTestAttribute": "This is a test value", "int16TestAttribute": 7}"#.utf8),
                                   entityName: "SingleEntityWithNoRelationships")
            let objects = try all("SingleEntityWithNoRelationships", context)
            #expect(objects.count == 1)
            let entity = try #require(objects.first)
            #expect(entity.value(forKey: "int16TestAttribute") as? Int16 == 7)
            #expect(entity.value(forKey: "numberAsStringTestAttribute") as? String == "10248909829")
            // 2011-08-05 01:56:04 UTC, from "8/5/2011 1-56-04" and the format "M/d/yyyy H-mm-ss".
            #expect(entity.value(forKey: "dateWithCustomFormat") as? Date == Date(timeIntervalSince1970: 1_312_509_364))
            #expect(entity.value(forKey: "unixTime13TestAttribute") as? Date == Date(timeIntervalSince1970: 1_388_349_427.543))
        }
    }

    @Test("Nested records and keys are found by their relationship's relatedByAttribute", arguments: StoreKind.allCases)
    func relationshipMatching(_ kind: StoreKind) throws {
        let container = try container(kind)
        let context = container.newBackgroundContext()
        try context.performAndWait {
            try context.importJSON(records("SingleEntityRelatedToManyMappedEntitiesUsingMappedPrimaryKey"),
                                   entityName: "SingleEntityRelatedToManyMappedEntitiesUsingMappedPrimaryKey")
            #expect(try all("MappedEntity", context).count == 4)
            try context.importJSON(Data(#"{"testPrimaryKey": 1, "mappedEntities": [1, 3]}"#.utf8),
                                   entityName: "SingleEntityRelatedToManyMappedEntitiesUsingMappedPrimaryKey")
            let owner = try #require(try all("SingleEntityRelatedToManyMappedEntitiesUsingMappedPrimaryKey", context).first)
            let ids = ((owner.value(forKey: "mappedEntities") as? Set<ManagedObject>) ?? []).compactMap { $0.value(forKey: "testMappedEntityID") as? Int64 }
            #expect(Set(ids) == [1, 3])
            #expect(try all("MappedEntity", context).count == 4)

            try context.importJSON(records("SingleRelatedEntity"), entityName: "SingleRelatedEntity")
            try context.importJSON(records("SingleRelatedEntity"), entityName: "SingleRelatedEntity")
            #expect(try all("ConcreteRelatedEntity", context).count == 3)
        }
    }
}
