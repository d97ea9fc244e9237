import Foundation
import ObjectGraph

// Versions of a small library model for StoreMigrationTests, run on both stores.

final class MigBookV1: ManagedObject {
    override class var entityName: String { "Book" }
    @Attribute var title: String = ""
    @Attribute var count: Int = 0
    @Attribute var note: String? = nil
    @Attribute var obsolete: String = ""
    @Attribute var surname: String = ""
}

final class MigAuthorV1: ManagedObject {
    override class var entityName: String { "Author" }
    @Attribute var name: String = ""
}

/// Version 1 and one attribute with a default.
final class MigBookAdded: ManagedObject {
    override class var entityName: String { "Book" }
    @Attribute var title: String = ""
    @Attribute var count: Int = 0
    @Attribute var note: String? = nil
    @Attribute var obsolete: String = ""
    @Attribute var surname: String = ""
    @Attribute var added: Int = 5
}

/// Version 2: `count` narrowed, `note` required with a default, `surname` renamed,
/// `obsolete` removed, `added` new with a default, and a new relationship to Author.
final class MigBookV2: ManagedObject {
    override class var entityName: String { "Book" }
    @Attribute var title: String = ""
    @Attribute var count: Int16 = 0
    @Attribute var note: String = "none"
    @Attribute(originalName: "surname") var familyName: String = ""
    @Attribute var added: Int = 5
    @Relationship var author: MigAuthorV2?
}

final class MigAuthorV2: ManagedObject {
    override class var entityName: String { "Author" }
    @Attribute var name: String = ""
    @Relationship(inverse: \MigBookV2.$author) var books: Set<MigBookV2>
}

// Three versions of a contact for the staged chain (as ObjectGraphTests' StagedMigrationTests):
// version 2 renames `phone` and adds `starred`, version 3 splits `fullName`.

final class MigContactV1: ManagedObject {
    override class var entityName: String { "Contact" }
    @Attribute var fullName: String = ""
    @Attribute var phone: String = ""
}

final class MigContactV2: ManagedObject {
    override class var entityName: String { "Contact" }
    @Attribute var fullName: String = ""
    @Attribute(originalName: "phone") var telephone: String = ""
    @Attribute var starred: Bool = false
}

final class MigContactV3: ManagedObject {
    override class var entityName: String { "Contact" }
    @Attribute var firstName: String = ""
    @Attribute var lastName: String = ""
    @Attribute var telephone: String = ""
    @Attribute var starred: Bool = false
}

/// A model read from model-file XML with `entities` inside `<model>`.
func fileModel(_ entities: String) throws -> ManagedObjectModel {
    let file = TemporaryFolders.root.appendingPathComponent("model-\(UUID().uuidString).xml")
    try FileManager.default.createDirectory(at: TemporaryFolders.root, withIntermediateDirectories: true)
    try Data("""
        <?xml version="1.0" encoding="UTF-8" standalone="yes"?>
        <model type="com.apple.IDECoreDataModeler.DataModel" documentVersion="1.0" systemVersion="1" minimumToolsVersion="Automatic" sourceLanguage="Swift" userDefinedModelVersionIdentifier="">
        \(entities)
        </model>
        """.utf8).write(to: file)
    return try ManagedObjectModel(contentsOf: file)
}

/// An `.xcdatamodeld` bundle of `versions` (each the entities inside `<model>`), the last
/// current, read as its current version with the others as its earlier versions.
func bundleModel(_ versions: [String]) throws -> ManagedObjectModel {
    let bundle = TemporaryFolders.root.appendingPathComponent("Model-\(UUID().uuidString).xcdatamodeld")
    for (index, entities) in versions.enumerated() {
        let folder = bundle.appendingPathComponent("Model \(index + 1).xcdatamodel")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        try Data("""
            <?xml version="1.0" encoding="UTF-8" standalone="yes"?>
            <model type="com.apple.IDECoreDataModeler.DataModel" documentVersion="1.0" systemVersion="1" minimumToolsVersion="Automatic" sourceLanguage="Swift" userDefinedModelVersionIdentifier="">
            \(entities)
            </model>
            """.utf8).write(to: folder.appendingPathComponent("contents"))
    }
    let current = try PropertyListSerialization.data(fromPropertyList: ["_XCCurrentVersionName": "Model \(versions.count).xcdatamodel"], format: .xml, options: 0)
    try current.write(to: bundle.appendingPathComponent(".xccurrentversion"))
    return try ManagedObjectModel(contentsOf: bundle)
}
