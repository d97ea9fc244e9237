import Foundation
@testable import ObjectGraph
import XCTest

// Three versions of a contact: version 2 renames `phone` and adds `starred` (a lightweight
// stage), version 3 splits `fullName` into `firstName` and `lastName` (a custom stage).
final class ContactV1: ManagedObject {
    override class var entityName: String { "Contact" }
    @Attribute var fullName: String = ""
    @Attribute var phone: String = ""
}

final class ContactV2: ManagedObject {
    override class var entityName: String { "Contact" }
    @Attribute var fullName: String = ""
    @Attribute(originalName: "phone") var telephone: String = ""
    @Attribute var starred: Bool = false
}

final class ContactV3: ManagedObject {
    override class var entityName: String { "Contact" }
    @Attribute var firstName: String = ""
    @Attribute var lastName: String = ""
    @Attribute var telephone: String = ""
    @Attribute var starred: Bool = false
}

/// Staged migrations (``StagedMigrationManager``): lightweight and custom stages in order,
/// from Swift models and model-file bundles, each stage all or nothing.
final class StagedMigrationTests: StoreTestCase {
    private struct Refused: Error {}

    private func version(_ classes: [ManagedObject.Type]) throws -> ManagedObjectModel {
        try ManagedObjectModel(entities: classes)
    }

    private func writeVersion1(_ names: [String]) throws {
        let container = try makeContainer([ContactV1.self])
        for (index, name) in names.enumerated() {
            let contact = ContactV1(context: container.viewContext)
            contact.fullName = name
            contact.phone = "555-\(index)"
        }
        try container.viewContext.save()
        container.persistentStoreCoordinator.close()
    }

    /// The custom stage of version 2 to 3: `willMigrate` trims the names at version 2 (and
    /// its saved change is what the copy carries), `didMigrate` reads each old contact's
    /// `fullName` from the store at version 2 and writes the new contact's two names.
    private func splittingStage(from v2: ManagedObjectModel, to v3: ManagedObjectModel, ran: Locked<[String]>? = nil,
                                failing: Bool = false) -> MigrationStage {
        .custom(from: v2, to: v3, label: "split fullName", willMigrate: { context in
            ran?.withLock { $0.append("willMigrate") }
            for contact in try context.fetch(FetchRequest<ContactV2>()) {
                contact.fullName = contact.fullName.trimmingCharacters(in: .whitespaces)
            }
        }, didMigrate: { context, old in
            ran?.withLock { $0.append("didMigrate") }
            for contact in try old.fetch(FetchRequest<ContactV2>()) {
                guard let id = context.persistentStoreCoordinator.managedObjectID(forURIRepresentation: contact.objectID.uriRepresentation),
                      let new = try context.existingObject(with: id) as? ContactV3 else { throw Refused() }
                let parts = contact.fullName.split(separator: " ", maxSplits: 1)
                new.firstName = parts.first.map(String.init) ?? ""
                new.lastName = parts.count > 1 ? String(parts[1]) : ""
            }
            if failing { throw Refused() }
        })
    }

    private func assertVersion3(_ container: PersistentContainer, file: StaticString = #filePath, line: UInt = #line) throws {
        let contacts = try container.viewContext.fetch(FetchRequest<ContactV3>(sortDescriptors: [SortKey("telephone")]))
        XCTAssertEqual(contacts.map(\.firstName), ["Ada", "Grace", "Plato"], file: file, line: line)
        XCTAssertEqual(contacts.map(\.lastName), ["Lovelace", "Brewster Hopper", ""], file: file, line: line)
        XCTAssertEqual(contacts.map(\.telephone), ["555-0", "555-1", "555-2"], "the lightweight stage's rename carried the values", file: file, line: line)
        XCTAssertEqual(contacts.map(\.starred), [false, false, false], file: file, line: line)
    }

    func testAThreeVersionChainWithACustomStageSplitsFullName() throws {
        try writeVersion1(["Ada Lovelace", "Grace Brewster Hopper", "  Plato "])
        let (v1, v2, v3) = (try version([ContactV1.self]), try version([ContactV2.self]), try version([ContactV3.self]))
        let ran = Locked<[String]>([])
        let stages = StagedMigrationManager([.lightweight(from: v1, to: v2), splittingStage(from: v2, to: v3, ran: ran)])
        let container = try PersistentContainer(name: "Test", model: v3, location: .file(storeURL), stagedMigration: stages)
        try assertVersion3(container)
        XCTAssertEqual(ran.withLock { $0 }, ["willMigrate", "didMigrate"])
        XCTAssertFalse(try PersistentStoreCoordinator.requiresMigration(model: v3, storeURL: storeURL))
        XCTAssertEqual(try migrationLeftovers(storeURL), [])
        container.persistentStoreCoordinator.close()
        try assertStoreIntegrity(storeURL)
    }

    func testAStoreAtTheMiddleVersionRunsOnlyTheStagesAfterIt() throws {
        try writeVersion1(["Ada Lovelace", "Grace Brewster Hopper", "Plato"])
        let (v1, v2, v3) = (try version([ContactV1.self]), try version([ContactV2.self]), try version([ContactV3.self]))
        try PersistentContainer(name: "Test", model: v2, location: .file(storeURL)).persistentStoreCoordinator.close()
        let ran = Locked<[String]>([])
        let first = MigrationStage.custom(from: v1, to: v2, willMigrate: { _ in ran.withLock { $0.append("v1 to v2") } })
        let container = try PersistentContainer(name: "Test", model: v3, location: .file(storeURL),
                                                stagedMigration: StagedMigrationManager([first, splittingStage(from: v2, to: v3, ran: ran)]))
        try assertVersion3(container)
        XCTAssertEqual(ran.withLock { $0 }, ["willMigrate", "didMigrate"], "the stage from version 1 does not run for a store at version 2")
    }

    func testAHandlerThatThrowsLeavesTheStoreWhollyAtTheStageSourceVersionAndTheNextOpenResumes() throws {
        try writeVersion1(["Ada Lovelace", "Grace Brewster Hopper", "Plato"])
        let (v1, v2, v3) = (try version([ContactV1.self]), try version([ContactV2.self]), try version([ContactV3.self]))
        let failing = StagedMigrationManager([.lightweight(from: v1, to: v2), splittingStage(from: v2, to: v3, failing: true)])
        XCTAssertThrowsError(try PersistentContainer(name: "Test", model: v3, location: .file(storeURL), stagedMigration: failing)) { error in
            XCTAssertTrue(error is Refused, "the handler's own error comes out: \(error)")
        }
        XCTAssertFalse(try PersistentStoreCoordinator.requiresMigration(model: v2, storeURL: storeURL), "the lightweight stage completed: the store is at version 2")
        XCTAssertEqual(try migrationLeftovers(storeURL), [], "the failed stage's copies are removed")
        try assertStoreIntegrity(storeURL)

        let working = StagedMigrationManager([.lightweight(from: v1, to: v2), splittingStage(from: v2, to: v3)])
        let container = try PersistentContainer(name: "Test", model: v3, location: .file(storeURL), stagedMigration: working)
        try assertVersion3(container)
    }

    /// Opening with `stages` and `model` is refused with `.invalidStages` of `kind` at
    /// `stage` before anything is written: the store is byte for byte as it was, at version 1.
    private func assertRefused(_ stages: [MigrationStage], model: ManagedObjectModel, kind: MigrationError.StageChainProblem.Kind,
                               stage: Int?, expected: Data?, found: Data?, line: UInt = #line) throws {
        let v1 = try version([ContactV1.self])
        let before = storeBytes(storeURL)
        XCTAssertThrowsError(try PersistentContainer(name: "Test", model: model, location: .file(storeURL),
                                                     stagedMigration: StagedMigrationManager(stages)), line: line) { error in
            let problem = (error as? MigrationError)?.stageChain
            XCTAssertEqual((error as? MigrationError)?.code, .invalidStages, "\(error)", line: line)
            XCTAssertEqual(problem?.kind, kind, "\(error)", line: line)
            XCTAssertEqual(problem?.stage, stage, "\(error)", line: line)
            XCTAssertEqual(problem?.expectedVersionHash, expected, "\(error)", line: line)
            XCTAssertEqual(problem?.foundVersionHash, found, "\(error)", line: line)
        }
        XCTAssertEqual(storeBytes(storeURL), before, "nothing was written", line: line)
        XCTAssertFalse(try PersistentStoreCoordinator.requiresMigration(model: v1, storeURL: storeURL), "the store is still at version 1", line: line)
        XCTAssertEqual(try migrationLeftovers(storeURL), [], line: line)
    }

    func testStagesThatStopBeforeTheModelAreRefusedBeforeTheFirstStageRuns() throws {
        // Before: the stage ran (the store at version 2), then the inferred step to version 3 was refused as wouldDropData.
        try writeVersion1(["Ada Lovelace", "Grace Brewster Hopper", "Plato"])
        let (v1, v2, v3) = (try version([ContactV1.self]), try version([ContactV2.self]), try version([ContactV3.self]))
        try assertRefused([.lightweight(from: v1, to: v2)], model: v3, kind: .doesNotEndAtModel, stage: 0,
                          expected: v3.versionHash, found: v2.versionHash)
    }

    func testAForkIsRefusedBeforeTheFirstStageRuns() throws {
        // Before: [v1→v2, v1→v3] committed the first stage, then failed with wouldDropData blaming an incomplete model.
        try writeVersion1(["Ada Lovelace", "Plato"])
        let (v1, v2, v3) = (try version([ContactV1.self]), try version([ContactV2.self]), try version([ContactV3.self]))
        try assertRefused([.lightweight(from: v1, to: v2), .lightweight(from: v1, to: v3)], model: v3, kind: .fork, stage: 1,
                          expected: v2.versionHash, found: v1.versionHash)
    }

    func testAStagePastTheAppsModelIsRefusedSoTheStoreNeverGetsNewerThanTheApp() throws {
        // Before: a stage v1→v3 with the app at v2 left the store at v3.
        try writeVersion1(["Ada Lovelace", "Plato"])
        let (v1, v2, v3) = (try version([ContactV1.self]), try version([ContactV2.self]), try version([ContactV3.self]))
        try assertRefused([.lightweight(from: v1, to: v3)], model: v2, kind: .doesNotEndAtModel, stage: 0,
                          expected: v2.versionHash, found: v3.versionHash)
    }

    func testAGapAnEmptyListAndAChainThatMissesTheStoresVersionAreRefused() throws {
        try writeVersion1(["Ada Lovelace", "Plato"])
        let (v1, v2, v3) = (try version([ContactV1.self]), try version([ContactV2.self]), try version([ContactV3.self]))
        let store = v1.versionHash
        try assertRefused([.lightweight(from: v1, to: v1, label: "same"), .lightweight(from: v2, to: v3)], model: v3, kind: .gap, stage: 1,
                          expected: v1.versionHash, found: v2.versionHash)
        try assertRefused([], model: v3, kind: .noStages, stage: nil, expected: v3.versionHash, found: store)
        try assertRefused([.lightweight(from: v2, to: v3)], model: v3, kind: .storeVersionNotInChain, stage: nil,
                          expected: v2.versionHash, found: store)
        try assertRefused([.lightweight(from: v1, to: v2), .lightweight(from: v2, to: v1), .lightweight(from: v1, to: v3)], model: v3,
                          kind: .cycle, stage: 1, expected: v1.versionHash, found: v1.versionHash)
        // The same store migrates with the chain itself, and a list given without stages (nil) stays a lightweight migration.
        let container = try PersistentContainer(name: "Test", model: v2, location: .file(storeURL),
                                                stagedMigration: StagedMigrationManager([.lightweight(from: v1, to: v2)]))
        XCTAssertEqual(try container.viewContext.count(for: FetchRequest<ContactV2>()), 2)
    }

    func testACustomStageWithinOneVersionFixesDataBeforeTheNextStage() throws {
        try writeVersion1(["Ada Lovelace", "Grace Brewster Hopper", "Plato"])
        let (v1, v2) = (try version([ContactV1.self]), try version([ContactV2.self]))
        let prefix = MigrationStage.custom(from: v1, to: v1, label: "prefix phones", willMigrate: { context in
            for contact in try context.fetch(FetchRequest<ContactV1>()) { contact.phone = "+1 " + contact.phone }
        })
        let container = try PersistentContainer(name: "Test", model: v2, location: .file(storeURL),
                                                stagedMigration: StagedMigrationManager([prefix, .lightweight(from: v1, to: v2)]))
        let contacts = try container.viewContext.fetch(FetchRequest<ContactV2>(sortDescriptors: [SortKey("telephone")]))
        XCTAssertEqual(contacts.map(\.telephone), ["+1 555-0", "+1 555-1", "+1 555-2"], "the stage ran once, then the next stage carried its values")
        XCTAssertEqual(try migrationLeftovers(storeURL), [])
    }

    // MARK: Model-file bundles

    private func contactEntity(_ attributes: String) -> String {
        """
        <entity name="Contact" representedClassName="Contact" syncable="YES">
        \(attributes)
        </entity>
        """
    }

    /// A bundle of three versions: `phone` renamed to `telephone` in version 2, `fullName`
    /// split in version 3.
    private func contactBundle() throws -> URL {
        let bundle = directory.appendingPathComponent("Contacts.xcdatamodeld")
        let versions = [
            #"<attribute name="fullName" optional="YES" attributeType="String"/><attribute name="phone" optional="YES" attributeType="String"/>"#,
            #"<attribute name="fullName" optional="YES" attributeType="String"/><attribute name="telephone" optional="YES" attributeType="String" elementID="phone"/>"#,
            #"<attribute name="firstName" optional="YES" attributeType="String"/><attribute name="lastName" optional="YES" attributeType="String"/><attribute name="telephone" optional="YES" attributeType="String"/>"#,
        ]
        for (index, attributes) in versions.enumerated() {
            let folder = bundle.appendingPathComponent(index == 0 ? "Contacts.xcdatamodel" : "Contacts \(index + 1).xcdatamodel")
            try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
            try Data("""
                <?xml version="1.0" encoding="UTF-8" standalone="yes"?>
                <model type="com.apple.IDECoreDataModeler.DataModel" documentVersion="1.0" systemVersion="1" minimumToolsVersion="Automatic" sourceLanguage="Swift" userDefinedModelVersionIdentifier="">
                \(contactEntity(attributes))
                </model>
                """.utf8).write(to: folder.appendingPathComponent("contents"))
        }
        return bundle
    }

    func testABundleChainRunsItsLightweightVersionsThenTheCustomStage() throws {
        let bundle = try contactBundle()
        let versions = try ManagedObjectModel.versions(contentsOf: bundle).models.map(\.model)
        do {
            let container = try PersistentContainer(name: "Test", model: versions[0], location: .file(storeURL))
            for (name, phone) in [("Ada Lovelace", "1"), ("Plato", "2")] {
                let contact = try container.viewContext.insertNewObject(forEntityName: "Contact")
                try contact.setValue(name, forKey: "fullName")
                try contact.setValue(phone, forKey: "phone")
            }
            try container.viewContext.save()
            container.persistentStoreCoordinator.close()
        }
        let split = MigrationStage.custom(from: versions[1], to: versions[2], didMigrate: { context, old in
            var request = FetchRequest<ManagedObject>(entityName: "Contact")
            request.sortDescriptors = [SortKey("telephone")]
            let newContacts = try context.fetch(request)
            let oldContacts = try old.fetch(request)
            for (new, old) in zip(newContacts, oldContacts) {
                let parts = (try old.checkedValue(forKey: "fullName") as? String ?? "").split(separator: " ", maxSplits: 1)
                try new.setValue(parts.first.map(String.init), forKey: "firstName")
                try new.setValue(parts.count > 1 ? String(parts[1]) : nil, forKey: "lastName")
            }
        })
        let model = try ManagedObjectModel(contentsOf: bundle)
        let container = try PersistentContainer(name: "Test", model: model, location: .file(storeURL),
                                                stagedMigration: StagedMigrationManager([split]))
        let contacts = try objects("Contact", in: container.viewContext, sortedBy: "telephone")
        XCTAssertEqual(try contacts.map { try $0.checkedValue(forKey: "telephone") as? String }, ["1", "2"], "version 2's rename ran before the stage")
        XCTAssertEqual(try contacts.map { try $0.checkedValue(forKey: "firstName") as? String }, ["Ada", "Plato"])
        XCTAssertEqual(try contacts.map { try $0.checkedValue(forKey: "lastName") as? String }, ["Lovelace", nil])
    }
}
