import Foundation
import ObjectGraph
import XCTest

/// `ManagedObjectModel(contentsOf:)`: Xcode model files (`.xcdatamodeld` bundles,
/// `.xcdatamodel` folders, bare `contents` XML) read into the same descriptions Swift
/// classes give.
final class ModelFileTests: StoreTestCase {
    static let everything = """
    <?xml version="1.0" encoding="UTF-8" standalone="yes"?>
    <model type="com.apple.IDECoreDataModeler.DataModel" documentVersion="1.0" userDefinedModelVersionIdentifier="shop-7">
        <entity name="Item" representedClassName=".Item" isAbstract="YES" elementID="Thing" versionHashModifier="v2" syncable="YES">
            <attribute name="i16" attributeType="Integer 16" defaultValueString="-3" usesScalarValueType="YES"/>
            <attribute name="i32" optional="YES" attributeType="Integer 32" defaultValueString="70000"/>
            <attribute name="i64" optional="YES" attributeType="Integer 64" elementID="count" versionHashModifier="m"/>
            <attribute name="price" optional="YES" attributeType="Decimal" defaultValueString="12.34"/>
            <attribute name="weight" optional="YES" attributeType="Double" defaultValueString="1.5"/>
            <attribute name="ratio" optional="YES" attributeType="Float"/>
            <attribute name="title" attributeType="String" defaultValueString="untitled">
                <userInfo>
                    <entry key="hint" value="shown in lists"/>
                </userInfo>
            </attribute>
            <attribute name="active" optional="YES" attributeType="Boolean" defaultValueString="YES"/>
            <attribute name="added" optional="YES" attributeType="Date" defaultDateTimeInterval="100"/>
            <attribute name="photo" optional="YES" attributeType="Binary" allowsExternalBinaryDataStorage="YES"/>
            <attribute name="code" optional="YES" attributeType="UUID" defaultValueString="FEFE4176-912D-429F-9C83-662FFF641115"/>
            <attribute name="link" optional="YES" attributeType="URI"/>
            <attribute name="colour" optional="YES" attributeType="Transformable" valueTransformerName="NSSecureUnarchiveFromData" customClassName="UIColor"/>
            <attribute name="scratch" optional="YES" transient="YES" attributeType="String"/>
            <attribute name="searchTitle" optional="YES" attributeType="String" derived="YES" derivationExpression="lowercase:(title)"/>
            <relationship name="shelf" optional="YES" maxCount="1" deletionRule="Nullify" destinationEntity="Shelf" inverseName="items" inverseEntity="Shelf"/>
            <relationship name="tags" optional="YES" toMany="YES" minCount="1" maxCount="5" deletionRule="No Action" destinationEntity="Tag" inverseName="items" inverseEntity="Tag"/>
            <userInfo>
                <entry key="owner" value="shop"/>
            </userInfo>
            <uniquenessConstraints>
                <uniquenessConstraint>
                    <constraint value="title"/>
                    <constraint value="i16"/>
                </uniquenessConstraint>
            </uniquenessConstraints>
            <fetchIndex name="byTitle">
                <fetchIndexElement property="title" type="Binary" order="descending"/>
            </fetchIndex>
        </entity>
        <entity name="Book" parentEntity="Item" syncable="YES">
            <attribute name="pages" optional="YES" attributeType="Integer 32"/>
        </entity>
        <entity name="Shelf" syncable="YES">
            <attribute name="label" optional="YES" attributeType="String"/>
            <relationship name="items" optional="YES" toMany="YES" ordered="YES" deletionRule="Cascade" destinationEntity="Item" inverseName="shelf" inverseEntity="Item"/>
            <relationship name="room" maxCount="1" deletionRule="Deny" destinationEntity="Room"/>
        </entity>
        <entity name="Room" syncable="YES">
            <attribute name="name" optional="YES" attributeType="String"/>
        </entity>
        <entity name="Tag" syncable="YES">
            <attribute name="name" optional="YES" attributeType="String"/>
            <relationship name="items" optional="YES" toMany="YES" deletionRule="Nullify" destinationEntity="Item" inverseName="tags" inverseEntity="Item"/>
        </entity>
        <elements>
            <element name="Item" positionX="0" positionY="0" width="128" height="90"/>
        </elements>
    </model>
    """

    private func write(_ text: String, to name: String = "contents") throws -> URL {
        let url = directory.appendingPathComponent(name)
        try FileManager.default.createDirectory(at: url.deletingLastPathComponent(), withIntermediateDirectories: true)
        try Data(text.utf8).write(to: url)
        return url
    }

    func testABareContentsFileGivesEveryAttributeTypeAndFlag() throws {
        let model = try ManagedObjectModel(contentsOf: write(Self.everything))
        XCTAssertEqual(model.entities.map(\.name), ["Item", "Book", "Room", "Shelf", "Tag"])
        XCTAssertEqual(model.versionIdentifiers, ["shop-7"])
        let item = try XCTUnwrap(model.entitiesByName["Item"])
        XCTAssertTrue(item.isAbstract)
        XCTAssertTrue(item.managedClass == ManagedObject.self)
        XCTAssertEqual(item.fileDetails.className, ".Item")
        XCTAssertEqual(item.fileDetails.renamingIdentifier, "Thing")
        XCTAssertEqual(item.fileDetails.versionHashModifier, "v2")
        XCTAssertEqual(item.fileDetails.userInfo, ["owner": "shop"])
        XCTAssertEqual(item.fileDetails.uniquenessConstraints, [["title", "i16"]])
        XCTAssertEqual(item.fileDetails.fetchIndexes, [FetchIndexDescription(name: "byTitle", elements: [.init(property: "title", ascending: false)])])

        func attribute(_ name: String) throws -> AttributeDescription { try XCTUnwrap(item.property(named: name) as? AttributeDescription) }
        let types: [String: AttributeType] = [
            "i16": .integer16, "i32": .integer32, "i64": .integer64, "price": .decimal, "weight": .double, "ratio": .float,
            "title": .string, "active": .boolean, "added": .date, "photo": .binary, "code": .uuid, "link": .uri, "colour": .transformable,
        ]
        for (name, type) in types { XCTAssertEqual(try attribute(name).attributeType, type, name) }
        XCTAssertFalse(try attribute("i16").isOptional)
        XCTAssertTrue(try attribute("i32").isOptional)
        XCTAssertTrue(try attribute("scratch").isTransient)
        XCTAssertEqual(try attribute("i64").fileDetails.renamingIdentifier, "count")
        XCTAssertEqual(try attribute("i64").fileDetails.versionHashModifier, "m")
        XCTAssertEqual(try attribute("title").fileDetails.userInfo, ["hint": "shown in lists"])
        XCTAssertEqual(try attribute("colour").fileDetails.valueTransformerName, "NSSecureUnarchiveFromData")
        XCTAssertEqual(try attribute("colour").fileDetails.customClassName, "UIColor")
        XCTAssertEqual(try attribute("searchTitle").fileDetails.derivationExpression, "lowercase:(title)")

        let tags = try XCTUnwrap(item.property(named: "tags") as? RelationshipDescription)
        XCTAssertEqual(tags.kind, .toMany)
        XCTAssertEqual(tags.deleteRule, .noAction)
        XCTAssertEqual(tags.fileDetails.minCount, 1)
        XCTAssertEqual(tags.fileDetails.maxCount, 5)
        XCTAssertEqual(tags.inverseRelationship?.name, "items")
        let shelf = try XCTUnwrap(model.entitiesByName["Shelf"])
        let items = try XCTUnwrap(shelf.property(named: "items") as? RelationshipDescription)
        XCTAssertTrue(items.isOrdered)
        XCTAssertEqual(items.deleteRule, .cascade)
        XCTAssertTrue(items.inverseRelationship === item.property(named: "shelf"))
        let room = try XCTUnwrap(shelf.property(named: "room") as? RelationshipDescription)
        XCTAssertEqual(room.deleteRule, .deny)
        XCTAssertFalse(room.isOptional, "a to-one without optional=YES is required")

        let book = try XCTUnwrap(model.entitiesByName["Book"])
        XCTAssertTrue(book.superentity === item)
        XCTAssertNotNil(book.property(named: "title"), "inherited")
    }

    func testDefaultValuesFromTheFileFillNewObjects() throws {
        let model = try ManagedObjectModel(contentsOf: write(Self.everything))
        let container = try PersistentContainer(name: "Shop", model: model, storeURL: directory.appendingPathComponent("Shop.sqlite"))
        let book = try container.viewContext.insertNewObject(forEntityName: "Book")
        XCTAssertEqual(try book.checkedValue(forKey: "i16") as? Int16, -3)
        XCTAssertEqual(try book.checkedValue(forKey: "i32") as? Int32, 70000)
        XCTAssertNil(try book.checkedValue(forKey: "i64"))
        XCTAssertEqual(try book.checkedValue(forKey: "price") as? Decimal, Decimal(string: "12.34"))
        XCTAssertEqual(try book.checkedValue(forKey: "weight") as? Double, 1.5)
        XCTAssertEqual(try book.checkedValue(forKey: "title") as? String, "untitled")
        XCTAssertEqual(try book.checkedValue(forKey: "active") as? Bool, true)
        XCTAssertEqual(try book.checkedValue(forKey: "added") as? Date, Date(timeIntervalSinceReferenceDate: 100))
        XCTAssertEqual(try book.checkedValue(forKey: "code") as? UUID, UUID(uuidString: "FEFE4176-912D-429F-9C83-662FFF641115"))
    }

    func testABundlePicksTheCurrentVersionAndReadsEveryVersion() throws {
        let bundle = directory.appendingPathComponent("Blog.xcdatamodeld")
        for version in 1...4 {
            let source = Fixtures.directory.appendingPathComponent("MigrationRevised/v\(version).xcdatamodel-contents.xml")
            _ = try write(String(contentsOf: source, encoding: .utf8), to: "Blog.xcdatamodeld/Blog \(version).xcdatamodel/contents")
        }
        // Without .xccurrentversion: the last version in numeric name order.
        let last = try ManagedObjectModel(contentsOf: bundle)
        XCTAssertNotNil(last.entitiesByName["Post"]?.property(named: "softDeleted"), "version 4 is current")

        let marker = try PropertyListSerialization.data(fromPropertyList: ["_XCCurrentVersionName": "Blog 2.xcdatamodel"], format: .xml, options: 0)
        try marker.write(to: bundle.appendingPathComponent(".xccurrentversion"))
        let second = try ManagedObjectModel(contentsOf: bundle)
        XCTAssertEqual(second.entitiesByName["Post"]?.property(named: "hexColor")?.fileDetails.renamingIdentifier, "color")
        XCTAssertNil(second.entitiesByName["Section"])

        let all = try ManagedObjectModel.versions(contentsOf: bundle)
        XCTAssertEqual(all.models.map(\.name), ["Blog 1", "Blog 2", "Blog 3", "Blog 4"])
        XCTAssertEqual(all.current, 1)
        XCTAssertNotNil(all.models[2].model.entitiesByName["Section"])

        // One .xcdatamodel folder.
        let folder = try ManagedObjectModel(contentsOf: bundle.appendingPathComponent("Blog 3.xcdatamodel"))
        XCTAssertEqual(folder.entities.map(\.name), ["Post", "Section"])

        // A broken version anywhere in the bundle is reported, naming its file.
        _ = try write("<model><entity name=\"Post\"><attribute name=\"x\"/></entity></model>", to: "Blog.xcdatamodeld/Blog 1.xcdatamodel/contents")
        XCTAssertThrowsError(try ManagedObjectModel(contentsOf: bundle)) { error in
            let error = error as? ModelError
            XCTAssertEqual(error?.code, .invalidModelFile)
            XCTAssertEqual(error?.file?.deletingLastPathComponent().lastPathComponent, "Blog 1.xcdatamodel")
            XCTAssertEqual(error?.element, "<attribute name=\"x\"> (line 1)")
        }
    }

    func testMalformedAndUnsupportedFilesAreModelErrorsNamingFileElementAndProblem() throws {
        func failure(_ text: String) throws -> ModelError {
            let url = try write(text, to: "case-\(UUID().uuidString)/contents")
            do {
                _ = try ManagedObjectModel(contentsOf: url)
            } catch let error as ModelError {
                XCTAssertEqual(error.file, url)
                return error
            }
            XCTFail("no error for \(text)")
            throw CocoaError(.featureUnsupported)
        }
        let notXML = try failure("<model><entity name=\"A\"></model>")
        XCTAssertEqual(notXML.code, .invalidModelFile)
        XCTAssertTrue(notXML.message.contains("not well-formed XML"), notXML.message)

        let wrongRoot = try failure("<plist/>")
        XCTAssertTrue(wrongRoot.message.contains("not <model>"), wrongRoot.message)

        let badType = try failure("<model>\n<entity name=\"A\">\n<attribute name=\"a\" attributeType=\"Money\"/></entity></model>")
        XCTAssertEqual(badType.element, "<attribute name=\"a\"> (line 3)")
        XCTAssertTrue(badType.message.contains("\"Money\" is not supported"), badType.message)

        let badDefault = try failure("<model><entity name=\"A\"><attribute name=\"a\" attributeType=\"Integer 16\" defaultValueString=\"99999\"/></entity></model>")
        XCTAssertTrue(badDefault.message.contains("not a valid Integer 16"), badDefault.message)

        let badRule = try failure("<model><entity name=\"A\"><relationship name=\"r\" deletionRule=\"Explode\" destinationEntity=\"A\"/></entity></model>")
        XCTAssertTrue(badRule.message.contains("Explode"), badRule.message)

        let unknownElement = try failure("<model><entity name=\"A\"><gadget name=\"g\"/></entity></model>")
        XCTAssertEqual(unknownElement.element, "<gadget name=\"g\"> (line 1)")

        let loop = try failure("<model><entity name=\"A\" parentEntity=\"B\"/><entity name=\"B\" parentEntity=\"A\"/></model>")
        XCTAssertTrue(loop.message.contains("loop"), loop.message)

        let badConstraint = try failure("<model><entity name=\"A\"><uniquenessConstraints><uniquenessConstraint><constraint value=\"nope\"/></uniquenessConstraint></uniquenessConstraints></entity></model>")
        XCTAssertTrue(badConstraint.message.contains("nope"), badConstraint.message)

        let unknownDestination = try failure("<model><entity name=\"A\"><relationship name=\"r\" destinationEntity=\"Z\"/></entity></model>")
        XCTAssertEqual(unknownDestination.code, .unknownDestination)

        let compiled = try failure("bplist00\u{1}\u{2}")
        XCTAssertTrue(compiled.message.contains("compiled model"), compiled.message)

        XCTAssertThrowsError(try ManagedObjectModel(contentsOf: directory.appendingPathComponent("Missing.xcdatamodeld"))) { error in
            XCTAssertEqual((error as? ModelError)?.code, .invalidModelFile)
        }
    }

    func testNamesThatWouldBreakSQLAreRefused() throws {
        for name in ["Car\"; DROP TABLE ZCAR; --", "Car;", "Ca r", "9Car", "Car'"] {
            let escaped = name.replacingOccurrences(of: "\"", with: "&quot;")
            for xml in ["<model><entity name=\"\(escaped)\"/></model>",
                        "<model><entity name=\"Car\"><attribute name=\"\(escaped)\" attributeType=\"String\"/></entity></model>",
                        "<model><entity name=\"Car\"><relationship name=\"\(escaped)\" destinationEntity=\"Car\"/></entity></model>"] {
                let url = try write(xml, to: "names-\(UUID().uuidString)/contents")
                XCTAssertThrowsError(try ManagedObjectModel(contentsOf: url), name) { error in
                    let error = error as? ModelError
                    XCTAssertEqual(error?.code, .invalidModelFile)
                    XCTAssertTrue(error?.message.contains("not a plain identifier") ?? false, "\(String(describing: error))")
                }
            }
        }
    }

    func testAFileModelRoundTripsThroughAStoreWithoutClasses() throws {
        let model = try ManagedObjectModel(contentsOf: write(Self.everything))
        let storeURL = directory.appendingPathComponent("Shop.sqlite")
        do {
            let container = try PersistentContainer(name: "Shop", model: model, storeURL: storeURL)
            let context = container.viewContext
            let room = try context.insertNewObject(forEntityName: "Room")
            let shelf = try context.insertNewObject(forEntityName: "Shelf")
            try shelf.setValue(room, forKey: "room")
            let book = try context.insertNewObject(forEntityName: "Book")
            try book.setValue("Dune", forKey: "title")
            try book.setValue(412, forKey: "pages")
            try book.setValue(URL(string: "https://example.com/dune"), forKey: "link")
            try book.setValue(Data([1, 2, 3]), forKey: "colour")
            try book.setValue(shelf, forKey: "shelf")
            let tag = try context.insertNewObject(forEntityName: "Tag")
            try tag.setValue(Set([book]), forKey: "items")
            try context.save()
        }
        let container = try PersistentContainer(name: "Shop", model: ManagedObjectModel(contentsOf: directory.appendingPathComponent("contents")), storeURL: storeURL)
        var request = FetchRequest<ManagedObject>(entityName: "Item")
        request.predicate = try FetchPredicate("shelf.room != nil AND ANY tags.name == nil")
        let found = try container.viewContext.fetch(request)
        XCTAssertEqual(found.count, 1)
        let book = try XCTUnwrap(found.first)
        XCTAssertEqual(book.entity.name, "Book")
        XCTAssertEqual(try book.checkedValue(forKey: "title") as? String, "Dune")
        XCTAssertEqual(try book.checkedValue(forKey: "pages") as? Int32, 412)
        XCTAssertEqual(try book.checkedValue(forKey: "colour") as? Data, Data([1, 2, 3]), "a transformable without a transformer is its Data")
        XCTAssertEqual(try book.checkedValue(forKey: "link") as? URL, URL(string: "https://example.com/dune"))
        XCTAssertEqual((try book.checkedValue(forKey: "tags") as? Set<ManagedObject>)?.count, 1)
    }
}
