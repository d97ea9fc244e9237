import Foundation
import ObjectGraph

// Staged migration: three versions of a model in Swift, a forecast of what migrating would
// do (and which values would not convert), then the migration with custom stages: one that
// cleans data before the next step, one that splits an attribute in two.
// Its own model and store, Contacts.sqlite.

/// Version 1: a full name, a phone, visits counted as text.
private final class ContactV1: ManagedObject {
    override class var entityName: String { "Contact" }
    @Attribute var fullName: String = ""
    @Attribute var phone: String = ""
    @Attribute var visits: String = ""
}

/// Version 2: `phone` renamed `telephone`, `visits` a number.
private final class ContactV2: ManagedObject {
    override class var entityName: String { "Contact" }
    @Attribute var fullName: String = ""
    @Attribute(originalName: "phone") var telephone: String = ""
    @Attribute var visits: Int = 0
}

/// Version 3: `fullName` split into `firstName` and `lastName`.
private final class ContactV3: ManagedObject {
    override class var entityName: String { "Contact" }
    @Attribute var firstName: String = ""
    @Attribute var lastName: String = ""
    @Attribute var telephone: String = ""
    @Attribute var visits: Int = 0
}

extension DemoSection {
    static let stagedMigration = DemoSection("staged", "a staged migration over three versions, its forecast first, with custom stages") { demo in
        let url = demo.folder.appendingPathComponent("Contacts.sqlite")
        try migrateContacts(storeURL: url)
        demo.shell("fetch", url.path, "Contact", "TRUEPREDICATE", "--sort", "lastName")
    }
}

@MainActor
private func migrateContacts(storeURL url: URL) throws {
    step("A store written with version 1: fullName, phone, and visits as text.")
    do {
        let container = try PersistentContainer(name: "Contacts", entities: [ContactV1.self], storeURL: url)
        for (name, phone, visits) in [("Ada Lovelace", "555-0101", "3"), ("Alan Turing", "555-0102", "12"), ("Grace Hopper", "555-0103", "lots")] {
            let contact = ContactV1(context: container.viewContext)
            contact.fullName = name; contact.phone = phone; contact.visits = visits
        }
        try container.viewContext.save()
        container.persistentStoreCoordinator.close()
        say("3 contacts saved; Grace's visits are \"lots\"")
    }
    let v1 = try ManagedObjectModel(entities: [ContactV1.self])
    let v2 = try ManagedObjectModel(entities: [ContactV2.self])
    let v3 = try ManagedObjectModel(entities: [ContactV3.self])
    let split = MigrationStage.custom(from: v2, to: v3, label: "split fullName", didMigrate: { context, old in
        let coordinator = context.persistentStoreCoordinator
        for contact in try old.fetch(FetchRequest<ContactV2>()) {   // version 2, read-only: fullName is still there
            let id = coordinator.managedObjectID(forURIRepresentation: contact.objectID.uriRepresentation)!
            let new = try context.existingObject(with: id) as! ContactV3
            let parts = contact.fullName.split(separator: " ", maxSplits: 1)
            new.firstName = parts.first.map(String.init) ?? ""
            new.lastName = parts.count > 1 ? String(parts[1]) : ""
        }
    })
    let plain = StagedMigrationManager([.lightweight(from: v1, to: v2, label: "rename phone, visits as a number"), split])

    step("The forecast: a rehearsal on a copy beside the store, which changes nothing.")
    let before = FileManager.default.contents(atPath: url.path)
    let forecast = try PersistentStoreCoordinator.migrationForecast(model: v3, storeURL: url, stagedMigration: plain)
    describe(forecast)
    let failures = forecast.steps.flatMap(\.failures)
    expect(!forecast.wouldSucceed, "the forecast says the migration would fail")
    expect(failures.map { "\($0.entity).\($0.property) \($0.value)" } == ["Contact.visits \"lots\""],
           "the one value that would not convert is Grace's visits: \(failures)")
    expect(FileManager.default.contents(atPath: url.path) == before, "the forecast left the store as it was")
    say("the store file is unchanged: yes")

    step("Add a custom stage within version 1 that cleans the value, and ask again.")
    let clean = MigrationStage.custom(from: v1, to: v1, label: "clean visits", willMigrate: { context in
        for contact in try context.fetch(FetchRequest<ContactV1>()) where Int(contact.visits.trimmingCharacters(in: .whitespaces)) == nil {
            contact.visits = "0"                     // saved when the handler returns
        }
    })
    let stages = StagedMigrationManager([clean, .lightweight(from: v1, to: v2, label: "rename phone, visits as a number"), split])
    let second = try PersistentStoreCoordinator.migrationForecast(model: v3, storeURL: url, stagedMigration: stages)
    describe(second)
    say("(a stage within one version is no step of its own: it shows as the failure gone)")
    expect(second.wouldSucceed, "with the cleaning stage the migration would succeed")
    let renames = second.steps.flatMap(\.propertiesRenamed).map(\.description)
    let conversions = second.steps.flatMap(\.propertiesConverted).map(\.property)
    expect(renames.contains { $0.contains("phone") && $0.contains("telephone") } && conversions.contains { $0.contains("visits") },
           "the forecast names the rename and the conversion: \(renames) \(conversions)")

    step("Migrate: opening the store with version 3 runs the three stages in order.")
    let container = try PersistentContainer(name: "Contacts", model: v3, location: .file(url), stagedMigration: stages,
                                            migrationProgress: { progress in
        if progress.entity == nil { say("progress: \(progress.completedRows) of \(progress.totalRows) rows, done") }
    })
    let contacts = try container.viewContext.fetch(FetchRequest<ContactV3>(sortDescriptors: [SortKey("lastName")]))
    for contact in contacts {
        say("\(contact.firstName) | \(contact.lastName) | \(contact.telephone) | visits \(contact.visits)")
    }
    expect(contacts.map { "\($0.firstName) \($0.lastName)" } == ["Grace Hopper", "Ada Lovelace", "Alan Turing"], "fullName was split")
    expect(contacts.map(\.telephone) == ["555-0103", "555-0101", "555-0102"], "phone became telephone, values kept")
    expect(contacts.map(\.visits) == [0, 3, 12], "visits are numbers; \"lots\" was cleaned to 0 first")
    let again = try PersistentStoreCoordinator.requiresMigration(model: v3, storeURL: url)
    say("requiresMigration(model: v3) afterwards = \(again)")
    expect(!again, "the store is at version 3")
    container.persistentStoreCoordinator.close()
}

/// Prints a forecast: per step what would change, and every value that would not convert.
private func describe(_ forecast: MigrationForecast) {
    for step in forecast.steps {
        say("step \"\(step.label)\"\(step.isCustom ? " (custom)" : ""): \(step.rowsTouched) rows")
        if !step.propertiesRenamed.isEmpty { say("  renamed: \(step.propertiesRenamed.map(\.description).joined(separator: ", "))") }
        if !step.propertiesConverted.isEmpty { say("  converted: \(step.propertiesConverted.map(\.description).joined(separator: ", "))") }
        if !step.propertiesAdded.isEmpty { say("  added: \(step.propertiesAdded.joined(separator: ", "))") }
        if !step.propertiesRemoved.isEmpty { say("  removed: \(step.propertiesRemoved.joined(separator: ", "))") }
        for failure in step.failures { say("  would not convert: \(failure)") }
    }
    if let stoppedBy = forecast.stoppedBy { say("would stop: \(stoppedBy)") }
    say("wouldSucceed = \(forecast.wouldSucceed), room needed beside the store: \(forecast.bytesNeeded) bytes")
}
