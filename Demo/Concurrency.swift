import Foundation
import ObjectGraph

/// A background context saving while the view context merges, a merge conflict resolved
/// by a merge policy, and delete rules.
///
/// This is async main-actor code: after an `await` Linux may run it on another thread that
/// drains the main queue, and the view context — a main-queue context, as in Core Data —
/// stays usable there, before and after every `await`.
@MainActor
func concurrency(storeURL: URL) async throws {
    let container = try PersistentContainer(name: "Company", entities: demoEntities, storeURL: storeURL)
    try await concurrencySteps(container: container, view: container.viewContext)
}

@MainActor
private func concurrencySteps(container: PersistentContainer, view: ManagedObjectContext) async throws {
    let departments = try view.fetch(FetchRequest<Department>())
    let sales = departments.first { $0.name == "Sales" }!
    let engineering = departments.first { $0.name == "Engineering" }!

    step("A background context saves; the observed view context merges on the main queue.")
    let token = view.addObserver(for: .objectsDidChange) { changes in
        say("(viewContext objectsDidChange) merged: \(changes)")
    }
    say("Sales budget in the view context: \(sales.budget); employees: \(names(sales.employees))")
    let salesID = sales.objectID                       // ObjectIDs are Sendable; objects are not
    let background = container.newBackgroundContext()
    let newcomer = try await background.perform {
        let same = try background.existingObject(with: salesID) as! Department
        same.budget = 300_000
        let dee = Employee(context: background)
        dee.firstName = "Dee"; dee.lastName = "Park"; dee.age = 31; dee.salary = 50_000
        dee.department = same
        try background.save()
        return dee.fullName
    }
    say("the background context raised the budget, hired \(newcomer) and saved")
    say("the view context has an observer, so the merge ran on the main queue while we awaited (unobserved, it would run at this read)")
    say("Sales budget in the view context: \(sales.budget); employees: \(names(sales.employees))")
    expect(sales.budget == 300_000 && sales.employees.contains { $0.firstName == "Dee" }, "the view context merged the background save")
    view.removeObserver(token)

    step("Merge conflicts: two contexts change the same row.")
    let john = try view.fetch(FetchRequest<Employee>()).first { $0.firstName == "John" }!
    let johnID = john.objectID
    john.salary = 61_000                                // unsaved in the view context
    try container.performBackgroundTask { other in
        let theirJohn = try other.existingObject(with: johnID) as! Employee
        theirJohn.salary = 70_000
        theirJohn.lastName = "Smyth"
        try other.save()
    }
    say("the view context set John's salary to 61000; another context saved salary 70000 and lastName Smyth")
    do {
        try view.save()
        expect(false, "the default merge policy (.error) refuses the save")
    } catch let error as MergeConflictError {
        say("with mergePolicy .error the save throws: \(error.description.replacingOccurrences(of: "\n", with: " "))")
    }
    say("nothing was lost: John still has unsaved changes (hasChanges = \(john.hasChanges))")
    view.mergePolicy = .mergeByPropertyObjectTrump
    try view.save()
    say("with .mergeByPropertyObjectTrump: salary \(john.salary) (ours), lastName \(john.lastName) (theirs)")
    expect(john.salary == 61_000 && john.lastName == "Smyth", "per-property merge, our changes win")

    step("Delete rules: nullify and cascade run at delete(), in memory; the save writes them.")
    let ann = try view.fetch(FetchRequest<Manager>()).first!
    let reports = ann.reports
    say("Ann manages \(names(reports)); Manager.reports and Employee.manager use .nullify")
    view.delete(ann)
    say("after delete(ann): the reports' managers are \(reports.map { $0.manager?.firstName ?? "nil" })")
    expect(reports.allSatisfy { $0.manager == nil }, "nullify clears the inverse")
    let doomed = engineering.employees
    say("Engineering employs \(names(doomed)); Department.employees uses .cascade")
    view.delete(engineering)
    say("after delete(engineering): deleted = \(doomed.allSatisfy(\.isDeleted)), \(view.deletedObjects.count) objects pending deletion")
    expect(doomed.allSatisfy(\.isDeleted), "cascade deletes the employees")
    try view.save()
    let left = try view.fetch(FetchRequest<Employee>()).map(\.fullName).sorted()
    say("saved. Departments left: \(try view.count(for: FetchRequest<Department>())); employees left: \(left)")
}
