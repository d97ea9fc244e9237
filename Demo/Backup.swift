import Foundation
import ObjectGraph

// Backup and restore: a consistent copy of a store taken while it is open and in use, and
// that copy put back later, over the changes made since.

extension DemoSection {
    static let backup = DemoSection("backup", "an online backup of a store in use, changes after it, and a restore") { demo in
        let store = demo.folder.appendingPathComponent("Payroll.sqlite")
        let copy = demo.folder.appendingPathComponent("backups/Payroll-copy.sqlite")
        try backupAndRestore(store: store, copy: copy)
        demo.shell("backup", store.path, copy.deletingLastPathComponent().appendingPathComponent("Payroll-tonight.sqlite").path)
        demo.shell("restore", copy.path, store.path)
    }
}

@MainActor
private func backupAndRestore(store: URL, copy: URL) throws {
    step("A store in use: a container open on it, objects in its view context.")
    let container = try PersistentContainer(name: "Company", entities: demoEntities, storeURL: store)
    let view = container.viewContext
    for (first, last, salary) in [("Ann", "Lee", 91_000.0), ("Bob", "Moss", 64_000.0), ("Cy", "Diaz", 58_000.0)] {
        let employee = Employee(context: view)
        employee.firstName = first; employee.lastName = last; employee.age = 40; employee.salary = salary
    }
    try view.save()
    say("payroll: \(try payroll(view))")

    step("container.backup(to:) while the store stays open: one consistent snapshot, owner-only.")
    try container.backup(to: copy) { progress in
        say("copied \(progress.completedPages) of \(progress.totalPages) pages")
    }
    let mode = (try FileManager.default.attributesOfItem(atPath: copy.path)[.posixPermissions] as? NSNumber)?.intValue ?? 0
    say("backup: \(copy.path), mode \(String(mode, radix: 8))")
    expect(mode == 0o600, "the copy is owner-only")

    step("Life goes on: Bob leaves, Ann gets a raise, Dee is hired. Saved.")
    let before = try payroll(view)
    let people = try view.fetch(FetchRequest<Employee>(sortDescriptors: [SortKey("lastName")]))
    view.delete(people.first { $0.firstName == "Bob" }!)
    people.first { $0.firstName == "Ann" }!.salary = 99_000
    let dee = Employee(context: view)
    dee.firstName = "Dee"; dee.lastName = "Park"; dee.age = 33; dee.salary = 61_000
    try view.save()
    let after = try payroll(view)
    say("payroll: \(after)")
    expect(after == ["Cy Diaz 58000", "Ann Lee 99000", "Dee Park 61000"], "the changes are saved")

    step("The copy opens as a store of its own, and holds the state at the backup.")
    let opened = try PersistentContainer(name: "Company", entities: demoEntities, storeURL: copy, options: [.readOnly])
    let inCopy = try payroll(opened.viewContext)
    say("in the copy: \(inCopy)")
    expect(inCopy == before, "the copy is the state at the backup")
    opened.persistentStoreCoordinator.close()

    step("Restore is refused while the store is open anywhere: it would change data under a program.")
    do {
        try PersistentContainer.restore(storeAt: store, from: copy)
        expect(false, "a restore under an open container should be refused")
    } catch let error as StoreError {
        say("StoreError .\(error.code): \(error.message.prefix(90))...")
        expect(error.code == .locked, "the restore is refused as .locked")
    }
    expect(try payroll(view) == after, "nothing was restored")

    step("Close the container, restore, open again: the state at the backup is back.")
    container.persistentStoreCoordinator.close()
    try PersistentContainer.restore(storeAt: store, from: copy)
    let reopened = try PersistentContainer(name: "Company", entities: demoEntities, storeURL: store)
    let restored = try payroll(reopened.viewContext)
    say("payroll: \(restored)")
    expect(restored == before && restored == ["Cy Diaz 58000", "Ann Lee 91000", "Bob Moss 64000"], "Bob, Ann's old salary, no Dee")
    reopened.persistentStoreCoordinator.close()
}

/// Each employee's name and salary, by last name.
@MainActor
private func payroll(_ context: ManagedObjectContext) throws -> [String] {
    try context.fetch(FetchRequest<Employee>(sortDescriptors: [SortKey("lastName")])).map { "\($0.fullName) \(Int($0.salary))" }
}
