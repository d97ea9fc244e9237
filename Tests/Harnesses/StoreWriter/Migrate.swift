import Foundation
import ObjectGraph
import ObjectGraphPostgres

// `StoreWriter <sqlite|postgres> <path or URL> migrate <log file> [kill point]`: opens a store
// of contacts at version 1 with version 3 and the stages of StoreBehaviourTests' staged
// chain (a lightweight stage, then a custom one splitting `fullName`), for the tests of
// processes migrating one store (StoreMigrationProcessTests).
//
// Each handler of the custom stage appends "<handler> <pid>" to the log file, so the test
// counts how many processes ran it; `willMigrate` then waits a second, so that another
// process opening the store meanwhile has to wait for the migration. With a kill point the
// process kills itself (SIGKILL) there: `stage1` at the first rows the lightweight stage
// copies, `willMigrate` after its changes, `didMigrate` after the split (neither saved).
//
// Prints `store writer migrate ok: <first names>`, or what went wrong (exit 1).

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

func migrateContacts(kind: String, place: String, log: String, killPoint: String?) -> Never {
    let pid = ProcessInfo.processInfo.processIdentifier
    @Sendable func record(_ handler: String) {
        guard let file = FileHandle(forWritingAtPath: log) else { return }
        file.seekToEndOfFile()
        file.write(Data("\(handler) \(pid)\n".utf8))
        try? file.close()
    }
    @Sendable func reach(_ point: String) {
        if point == killPoint { raise(SIGKILL) }
    }
    do {
        let (v1, v2, v3) = (try ManagedObjectModel(entities: [ContactV1.self]), try ManagedObjectModel(entities: [ContactV2.self]),
                            try ManagedObjectModel(entities: [ContactV3.self]))
        let stages = StagedMigrationManager([
            .lightweight(from: v1, to: v2),
            .custom(from: v2, to: v3, label: "split fullName", willMigrate: { context in
                record("willMigrate")
                for contact in try context.fetch(FetchRequest<ContactV2>()) { contact.starred = true }
                reach("willMigrate")
                Thread.sleep(forTimeInterval: 1)
            }, didMigrate: { context, old in
                record("didMigrate")
                for contact in try old.fetch(FetchRequest<ContactV2>()) {
                    guard let id = context.persistentStoreCoordinator.managedObjectID(forURIRepresentation: contact.objectID.uriRepresentation),
                          let new = try context.existingObject(with: id) as? ContactV3 else { throw Failure(description: "no contact at version 3") }
                    let parts = contact.fullName.split(separator: " ", maxSplits: 1)
                    new.firstName = parts.first.map(String.init) ?? ""
                    new.lastName = parts.count > 1 ? String(parts[1]) : ""
                }
                reach("didMigrate")
            }),
        ])
        let container = try PersistentContainer(name: "Contacts", model: v3, location: try location(kind: kind, place: place),
                                                stagedMigration: stages, migrationProgress: { progress in
            if progress.entity != nil { reach("stage1") }
        })
        let contacts = try container.viewContext.fetch(FetchRequest<ContactV3>(sortDescriptors: [SortKey("telephone")]))
        print("store writer migrate ok: \(contacts.map(\.firstName).joined(separator: ",")) starred=\(contacts.filter(\.starred).count)")
        exit(0)
    } catch {
        print("store writer migrate FAILED: \(error)")
        exit(1)
    }
}
