import CSQLite
import Foundation
import ObjectGraph
import XCTest

/// Transformable attributes of model-file models run the transformer registered under the
/// name the file gives, and show their stored `Data` when none is registered.
final class AttributeValueTransformerTests: StoreTestCase {
    /// Tags as comma-separated UTF-8 text; anything but `[String]` is refused.
    private struct CommaSeparated: AttributeValueTransformer {
        func transformedValue(_ value: Any) -> Data? {
            (value as? [String]).map { Data($0.joined(separator: ",").utf8) }
        }
        func reverseTransformedValue(_ data: Data) -> Any? {
            String(data: data, encoding: .utf8).map { $0.split(separator: ",").map(String.init) }
        }
    }

    private var transformerName = ""

    override func setUpWithError() throws {
        try super.setUpWithError()
        // A name of this test's own: the registry is process-wide.
        transformerName = "Tags-\(UUID().uuidString)"
    }

    override func tearDownWithError() throws {
        AttributeValueTransformers.unregister(name: transformerName)
        try super.tearDownWithError()
    }

    private func model(transformerAttribute: String) throws -> ManagedObjectModel {
        let file = directory.appendingPathComponent("contents")
        try """
        <?xml version="1.0" encoding="UTF-8" standalone="yes"?>
        <model type="com.apple.IDECoreDataModeler.DataModel" documentVersion="1.0">
            <entity name="Note" syncable="YES">
                <attribute name="title" optional="YES" attributeType="String"/>
                <attribute name="tags" optional="YES" attributeType="Transformable" \(transformerAttribute)/>
            </entity>
        </model>
        """.write(to: file, atomically: true, encoding: .utf8)
        return try ManagedObjectModel(contentsOf: file)
    }

    private func storedBytes() throws -> Data? {
        let file = try SQLiteFile(storeURL, readOnly: true)
        guard case .blob(let data)? = try file.rows("SELECT ZTAGS FROM ZNOTE").first?.first else { return nil }
        return data
    }

    func testARegisteredTransformerIsUsedForReadsAndWritesAndTheStoreHoldsItsData() throws {
        AttributeValueTransformers.register(CommaSeparated(), forName: transformerName)
        let model = try model(transformerAttribute: "valueTransformerName=\"\(transformerName)\"")
        do {
            let container = try PersistentContainer(name: "Notes", model: model, storeURL: storeURL)
            let note = try container.viewContext.insertNewObject(forEntityName: "Note")
            try note.setValue(["red", "blue"], forKey: "tags")
            XCTAssertEqual(note.value(forKey: "tags") as? [String], ["red", "blue"])
            try container.viewContext.save()
            container.persistentStoreCoordinator.close()
        }
        XCTAssertEqual(try storedBytes(), Data("red,blue".utf8), "the store holds what the transformer made")

        let container = try PersistentContainer(name: "Notes", model: model, storeURL: storeURL)
        let note = try XCTUnwrap(container.viewContext.fetch(FetchRequest<ManagedObject>(entityName: "Note")).first)
        XCTAssertEqual(note.value(forKey: "tags") as? [String], ["red", "blue"], "read back through the transformer")

        XCTAssertThrowsError(try note.setValue(42, forKey: "tags"), "a value the transformer does not take") { error in
            XCTAssertEqual((error as? KeyValueError)?.code, .typeMismatch, "\(error)")
            XCTAssertTrue("\(error)".contains("tags"), "the error names the key: \(error)")
        }
        XCTAssertEqual(note.value(forKey: "tags") as? [String], ["red", "blue"], "a refused value leaves the object as it was")
        XCTAssertFalse(note.hasChanges)

        try note.setValue(nil, forKey: "tags")
        XCTAssertNil(note.value(forKey: "tags"))
    }

    func testWithoutARegisteredTransformerTheStoredDataIsShownAsItIs() throws {
        let model = try model(transformerAttribute: "valueTransformerName=\"\(transformerName)\"")
        let container = try PersistentContainer(name: "Notes", model: model, storeURL: storeURL)
        let note = try container.viewContext.insertNewObject(forEntityName: "Note")
        try note.setValue(Data("a,b".utf8), forKey: "tags")
        XCTAssertEqual(note.value(forKey: "tags") as? Data, Data("a,b".utf8))
        XCTAssertThrowsError(try note.setValue(["a", "b"], forKey: "tags"), "only Data without a transformer")

        AttributeValueTransformers.register(CommaSeparated(), forName: transformerName)
        XCTAssertEqual(note.value(forKey: "tags") as? [String], ["a", "b"], "registered later, used from the next read")
        AttributeValueTransformers.unregister(name: transformerName)
        XCTAssertEqual(note.value(forKey: "tags") as? Data, Data("a,b".utf8), "unregistered: Data again")
    }

    func testAnAttributeNamingNoTransformerUsesCoreDatasDefaultName() throws {
        let model = try model(transformerAttribute: "")
        let container = try PersistentContainer(name: "Notes", model: model, storeURL: storeURL)
        let note = try container.viewContext.insertNewObject(forEntityName: "Note")
        try note.setValue(Data("x,y".utf8), forKey: "tags")
        AttributeValueTransformers.register(CommaSeparated(), forName: AttributeValueTransformers.defaultName)
        defer { AttributeValueTransformers.unregister(name: AttributeValueTransformers.defaultName) }
        XCTAssertEqual(note.value(forKey: "tags") as? [String], ["x", "y"])
    }
}
