import Foundation
import ObjectGraph

/// The entity list every container of the demo is opened with.
let demoEntities: [ManagedObject.Type] = [Department.self, Employee.self, Manager.self]

/// Creates the store, fills it, and shows change tracking, validation and rollback.
/// Returns the URI of John's object ID, which the next chapter resolves in a new container.
func basics(storeURL: URL) throws -> URL {
    step("Open a container. The model is built from the Swift classes; the store is a SQLite file.")
    let container = try PersistentContainer(name: "Company", entities: demoEntities, storeURL: storeURL)
    let context = container.viewContext
    say("store file: \(storeURL.path)")
    for entity in container.managedObjectModel.entities {
        let parent = entity.superentity.map { ", a sub-entity of \($0.name) stored in its table" } ?? ""
        say("entity \(entity.name)\(parent): \(entity.properties.map(\.name).joined(separator: ", "))")
    }

    step("Insert objects. Each new object evaluates the default values again.")
    let sales = Department(context: context)
    sales.name = "Sales"
    sales.budget = 250_000
    let engineering = Department(context: context)
    engineering.name = "Engineering"
    engineering.budget = 900_000

    let john = Employee(context: context)
    john.firstName = "John"; john.lastName = "Smith"; john.age = 42; john.salary = 52_000
    john.hired = Date(timeIntervalSinceReferenceDate: 700_000_000)
    john.scratch = "transient: kept in memory, never stored"
    let jane = Employee(context: context)
    jane.firstName = "Jane"; jane.lastName = "Doe"; jane.age = 35; jane.salary = 48_000
    let ann = Manager(context: context)
    ann.firstName = "Ann"; ann.lastName = "Lee"; ann.age = 58; ann.salary = 91_000; ann.level = 3
    let bob = Employee(context: context)
    bob.firstName = "Bob"; bob.lastName = "Wu"; bob.age = 29; bob.salary = 61_000
    let cara = Employee(context: context)
    cara.firstName = "Cara"; cara.lastName = "Jones"; cara.age = 51; cara.salary = 77_000
    say("inserted 2 departments, 4 employees and 1 manager (a Manager is an Employee)")
    say("John's badge \(john.badge) differs from Jane's \(jane.badge): UUID() ran once per object")
    expect(john.badge != jane.badge, "each insert evaluates `badge = UUID()` again")
    say("John's ID is temporary until the first save: \(john.objectID) (isTemporaryID = \(john.objectID.isTemporaryID))")
    expect(john.objectID.isTemporaryID && john.isInserted, "new objects have temporary IDs")

    step("Relationships: setting one side updates the inverse in memory at once.")
    john.department = sales
    jane.department = sales
    ann.department = engineering
    bob.department = engineering
    cara.department = engineering
    say("john.department = sales  ->  Sales employees: \(names(sales.employees))")
    expect(sales.employees.contains(john), "the inverse Department.employees follows Employee.department")
    bob.manager = ann
    cara.manager = ann
    ann.reports.insert(john)            // the to-many side works too: john.manager is now Ann
    say("bob.manager = ann, cara.manager = ann, ann.reports.insert(john)  ->  Ann's reports: \(names(ann.reports))")
    expect(john.manager === ann, "inserting into Manager.reports sets Employee.manager")
    jane.department = engineering
    say("moving Jane to Engineering removes her from Sales: \(names(sales.employees)) / \(names(engineering.employees))")
    expect(!sales.employees.contains(jane), "a to-one change leaves the old inverse")
    jane.department = sales

    step("Save: one SQLite transaction. Afterwards every ID is permanent.")
    say("before: hasChanges = \(context.hasChanges), \(context.insertedObjects.count) inserted objects")
    try context.save()
    say("after:  hasChanges = \(context.hasChanges); John is \(john.objectID) (primary key \(john.objectID.primaryKey ?? 0))")
    expect(!context.hasChanges && !john.objectID.isTemporaryID, "save makes IDs permanent and clears changes")

    step("Change tracking: the context knows what changed since the last save.")
    let token = context.addObserver(for: .didSave) { changes in
        say("(didSave observer) \(changes); changed keys: \(changes.changedKeys.values.flatMap { $0 }.sorted())")
    }
    john.salary = 55_000
    john.age = 42                        // the same value: not a change
    say("john.salary = 55_000, john.age = 42 (unchanged)  ->  isUpdated = \(john.isUpdated)")
    say("changedValues(): \(john.changedValues().keys.sorted()), committed salary: \(john.committedValues(forKeys: ["salary"])["salary"].map { "\($0!)" } ?? "-")")
    expect(Set(john.changedValues().keys) == ["salary"], "only salary changed")
    say("context.updatedObjects: \(context.updatedObjects.map { ($0 as! Employee).fullName })")
    try context.save()
    context.removeObserver(token)

    step("Validation: a save checks every object and reports all problems together.")
    let nameless = Employee(context: context)
    nameless.lastName = "Kim"; nameless.age = 30
    let child = Employee(context: context)
    child.firstName = "Tim"; child.age = 7
    do {
        try context.save()
        expect(false, "the save should have been refused")
    } catch let error as ValidationError {
        say("save refused with \(error.problems.count) problems:")
        for problem in error.problems { say("  - \(problem.entity).\(problem.key ?? "?"): \(problem.message)") }
        expect(error.problems.count == 2, "both invalid objects are reported")
    }
    var stored = FetchRequest<Employee>()
    stored.includesPendingChanges = false
    say("nothing was written (\(try context.count(for: stored)) employees in the store) and the changes are still pending (hasChanges = \(context.hasChanges))")
    nameless.firstName = "Pat"
    context.delete(child)                // deleting a never-saved object simply forgets it
    try context.save()
    say("fixed Pat's name, deleted Tim, saved again: \(try context.count(for: stored)) employees in the store")

    step("Rollback: discard every unsaved change.")
    john.lastName = "Smithers"
    context.delete(jane)
    let temp = Employee(context: context)
    temp.firstName = "Temp"; temp.age = 20
    say("renamed John, deleted Jane, inserted Temp: hasChanges = \(context.hasChanges)")
    context.rollback()
    say("after rollback(): John is \(john.fullName), Jane deleted = \(jane.isDeleted), Temp in a context = \(temp.managedObjectContext != nil)")
    expect(john.lastName == "Smith" && !jane.isDeleted && temp.managedObjectContext == nil, "rollback restores the saved state")

    step("Undo: with an undo stack, changes can be reverted one group at a time.")
    context.undoStack = UndoStack()
    john.salary = 60_000
    context.processPendingChanges()      // closes an undo group (fetch and save do too)
    john.salary = 65_000
    context.undo()
    say("salary set to 60000, then to 65000; undo() -> \(john.salary)")
    context.undo()
    say("undo() again -> \(john.salary), the saved value; hasChanges = \(context.hasChanges)")
    expect(john.salary == 55_000, "two undos return to the saved salary")
    context.undoStack = nil

    return john.objectID.uriRepresentation
}

/// Sorted first names, for printing relationship contents.
func names<S: Sequence>(_ employees: S) -> String where S.Element: Employee {
    "[" + employees.map(\.firstName).sorted().joined(separator: ", ") + "]"
}
