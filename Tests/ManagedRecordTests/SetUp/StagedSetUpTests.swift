import Foundation
import ManagedRecord
import XCTest

/// `ManagedRecord.setUp(..., stagedMigration:)` runs a custom stage, and `deleteStore`
/// (which opens the store again) keeps the stages.
final class StagedSetUpTests: RecordTestCase {
    private var gadgets: URL { folder.appendingPathComponent("Gadgets.sqlite") }

    func testSetUpRunsTheCustomStageOfAStagedMigration() throws {
        do {
            let container = try PersistentContainer(name: "Seed", entities: [Gadget.self], storeURL: gadgets)
            for label in ["Phone", "Laptop"] { Gadget(context: container.viewContext).label = label }
            try container.viewContext.save()
            container.persistentStoreCoordinator.close()
        }
        let stage = MigrationStage.custom(from: try ManagedObjectModel(entities: [Gadget.self]), to: try ManagedObjectModel(entities: [GadgetV2.self]),
                                          didMigrate: { context, old in
            let weights = Dictionary(uniqueKeysWithValues: try old.fetch(FetchRequest<Gadget>()).map { ($0.label, Double($0.label.count)) })
            for gadget in try context.fetch(FetchRequest<GadgetV2>()) { gadget.weight = weights[gadget.label] ?? 0 }
        })
        try ManagedRecord.setUp(model: "Gadgets", entities: [GadgetV2.self], storeURL: gadgets, stagedMigration: StagedMigrationManager([stage]))
        defer { ManagedRecord.tearDown(model: "Gadgets") }
        XCTAssertTrue(try GadgetV2.doesRequireMigration(), "setUp migrated a version-1 store")
        XCTAssertEqual(try GadgetV2.fetchAll().sorted { $0.label < $1.label }.map(\.weight), [6, 5], "the stage computed each weight from the old label")
    }
}
