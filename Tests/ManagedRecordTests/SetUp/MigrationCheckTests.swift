import Foundation
import ManagedRecord
import XCTest

/// `doesRequireMigration` as Core Data answers it: false for a store the model wrote, true
/// for a store of another version that `setUp` found (and migrated) — including a seed store
/// copied in at setUp, and never for the fresh store `deleteStore` leaves.
final class MigrationCheckTests: RecordTestCase {
    private var gadgets: URL { folder.appendingPathComponent("Gadgets.sqlite") }

    /// A store of the version-1 Gadget model at `url`, with one gadget.
    private func writeVersion1(at url: URL) throws {
        let container = try PersistentContainer(name: "Seed", entities: [Gadget.self], storeURL: url)
        Gadget(context: container.viewContext).label = "Phone"
        try container.viewContext.save()
    }

    func testAfterDeleteStoreTheFreshStoreNeedsNoMigration() throws {
        try writeVersion1(at: gadgets)
        try ManagedRecord.setUp(model: "Gadgets", entities: [GadgetV2.self], storeURL: gadgets)
        XCTAssertTrue(try GadgetV2.doesRequireMigration(), "setUp migrated a version-1 store")
        try GadgetV2.deleteStore()
        XCTAssertFalse(try GadgetV2.doesRequireMigration(), "the new store was written by this model")
        XCTAssertEqual(try GadgetV2.count(), 0)
    }

    func testASeedStoreOfAnotherVersionNeedsMigrationAndIsMigrated() throws {
        let seed = folder.appendingPathComponent("Seed.sqlite")
        try writeVersion1(at: seed)
        try ManagedRecord.setUp(model: "Gadgets", entities: [GadgetV2.self], storeURL: gadgets, seedStore: seed)
        XCTAssertTrue(try GadgetV2.doesRequireMigration(), "the copied seed was of version 1")
        XCTAssertEqual(try GadgetV2.fetchAll().map(\.label), ["Phone"])
        XCTAssertFalse(try ManagedRecord.doesRequireMigration(entities: [GadgetV2.self], storeURL: gadgets), "the file is migrated now")
        try GadgetV2.deleteStore()
        XCTAssertTrue(try GadgetV2.doesRequireMigration(), "deleteStore copied the version-1 seed in again")
        XCTAssertEqual(try GadgetV2.fetchAll().map(\.label), ["Phone"])
    }

    func testASeedStoreOfThisVersionNeedsNone() throws {
        let seed = folder.appendingPathComponent("Seed.sqlite")
        try writeVersion1(at: seed)
        try ManagedRecord.setUp(model: "Gadgets", entities: [Gadget.self], storeURL: gadgets, seedStore: seed)
        XCTAssertFalse(try Gadget.doesRequireMigration())
        try Gadget.deleteStore()
        XCTAssertFalse(try Gadget.doesRequireMigration())
    }
}
