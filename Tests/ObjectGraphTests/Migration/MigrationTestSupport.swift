import Foundation
@testable import ObjectGraph
import XCTest

/// Helpers for migration tests: the bytes of a store's files (to prove a failed migration
/// left them alone), leftover files, and models read from model-file text.
extension StoreTestCase {
    /// The store file and its `-wal`, byte for byte (nil for a file that does not exist).
    func storeBytes(_ url: URL) -> [Data?] {
        ["", "-wal"].map { FileManager.default.contents(atPath: url.path + $0) }
    }

    /// Files in the store's folder whose names say they are a migration's work files.
    func migrationLeftovers(_ url: URL) throws -> [String] {
        try FileManager.default.contentsOfDirectory(atPath: url.deletingLastPathComponent().path).filter { $0.contains("migrating") }
    }

    /// A model read from model-file XML with `entities` inside `<model>`.
    func fileModel(_ entities: String) throws -> ManagedObjectModel {
        let file = directory.appendingPathComponent("model-\(UUID().uuidString).xml")
        try Data("""
            <?xml version="1.0" encoding="UTF-8" standalone="yes"?>
            <model type="com.apple.IDECoreDataModeler.DataModel" documentVersion="1.0" systemVersion="1" minimumToolsVersion="Automatic" sourceLanguage="Swift" userDefinedModelVersionIdentifier="">
            \(entities)
            </model>
            """.utf8).write(to: file)
        return try ManagedObjectModel(contentsOf: file)
    }

    /// A container on `url` (this test's store by default) whose migration may drop what the
    /// model no longer has: LightweightMigrationTests' version 2 drops `obsolete` and
    /// `Crate` on purpose.
    func makeDroppingContainer(_ entities: [ManagedObject.Type], url: URL? = nil) throws -> PersistentContainer {
        try PersistentContainer(name: "Test", entities: entities, storeURL: url ?? storeURL, options: [.allowsDroppingData])
    }

    /// A coordinator whose migration uses `migrator` (limits and hooks for tests).
    func openCoordinator(_ model: ManagedObjectModel, url: URL? = nil, migrator: StoreMigrator) throws -> PersistentStoreCoordinator {
        try PersistentStoreCoordinator(model: model, storeURL: url ?? storeURL, migrator: migrator)
    }

    /// Every object of entity `name`, by key.
    func objects(_ name: String, in context: ManagedObjectContext, sortedBy key: String? = nil) throws -> [ManagedObject] {
        var request = FetchRequest<ManagedObject>(entityName: name)
        if let key { request.sortDescriptors = [SortKey(key)] }
        return try context.fetch(request)
    }

    func assertStoreIntegrity(_ url: URL, file: StaticString = #filePath, line: UInt = #line) throws {
        XCTAssertEqual(try SQLiteFile(url).rows("PRAGMA integrity_check"), [[.text("ok")]], file: file, line: line)
        XCTAssertEqual(try SQLiteFile(url).rows("PRAGMA foreign_key_check"), [], file: file, line: line)
    }
}
