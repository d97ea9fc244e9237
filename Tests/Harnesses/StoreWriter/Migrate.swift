import Foundation
import ObjectGraph
import ObjectGraphPostgres

// `StoreWriter <sqlite|postgres> <path or URL> migrate <log file> [kill point]`: opens a store
// of contacts at version 1 with version 3 and the stages of StoreBehaviourTests' staged
// chain (a lightweight stage, then a custom one splitting `fullName`), for the tests of
// processes migrating one store (StoreMigrationProcessTests).
//
// The process appends "start <pid>" to the log file before it opens the store, "opened <pid>"
// once it is open, and each handler of the custom stage "<handler> <pid>", so the test sees
// how many processes ran them and in which order. With the kill point `pair`, `willMigrate`
// first waits (10 s at most) until two processes have started, so the other one is opening
// the store while this one migrates it. With another kill point the process kills itself
// (SIGKILL) there: `stage1` at the first rows the lightweight stage copies, `willMigrate`
// after its changes, `didMigrate` after the split (neither saved).
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
    // O_APPEND: the processes write the log at once, and each line must land whole at its end.
    @Sendable func record(_ handler: String) {
        let descriptor = open(log, O_WRONLY | O_APPEND)
        guard descriptor >= 0 else { return }
        let line = Array("\(handler) \(pid)\n".utf8)
        _ = line.withUnsafeBytes { write(descriptor, $0.baseAddress, $0.count) }
        close(descriptor)
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
                if killPoint == "pair" { waitForTwoStarts(log: log) }
                record("willMigrate")
                for contact in try context.fetch(FetchRequest<ContactV2>()) { contact.starred = true }
                reach("willMigrate")
                Thread.sleep(forTimeInterval: 0.5)
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
        record("start")
        let container = try PersistentContainer(name: "Contacts", model: v3, location: try location(kind: kind, place: place),
                                                stagedMigration: stages, migrationProgress: { progress in
            if progress.entity != nil { reach("stage1") }
        })
        record("opened")
        let contacts = try container.viewContext.fetch(FetchRequest<ContactV3>(sortDescriptors: [SortKey("telephone")]))
        print("store writer migrate ok: \(contacts.map(\.firstName).joined(separator: ",")) starred=\(contacts.filter(\.starred).count)")
        exit(0)
    } catch {
        print("store writer migrate FAILED: \(error)")
        exit(1)
    }
}

/// Waits until the log holds two "start" lines (10 s at most).
func waitForTwoStarts(log: String) {
    let deadline = Date().addingTimeInterval(10)
    while Date() < deadline {
        let text = (try? String(contentsOfFile: log, encoding: .utf8)) ?? ""
        if text.split(separator: "\n").filter({ $0.hasPrefix("start ") }).count >= 2 { return }
        usleep(10_000)
    }
}
