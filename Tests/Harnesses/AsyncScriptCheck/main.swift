// A script as users write them: top-level code with several `await`s, using the view
// context, the class-level helpers, `perform`, `fetchInBackground`, child tasks, a detached
// task and a thread. After the first `await`, Linux runs top-level code on the main queue
// but off the main thread: everything here must keep working there.
//
// The examples of shared/API.md and README.md run here unchanged (each README/API stack
// example in a `do { }` scope, since they reuse names; a line after each uses its names;
// the Scripts example's `/* ... */` placeholder holds a throwing call, since an empty
// block under `try` is a compiler warning).
// Run by ManagedRecordTests' ScriptTests; by hand: `swift run AsyncScriptCheck`.
import Foundation
import ManagedRecord

let folder = FileManager.default.temporaryDirectory.appendingPathComponent("AsyncScriptCheck-\(UUID().uuidString)")
setenv("XDG_DATA_HOME", folder.path, 1)                     // the examples use the default location
let storeURL = folder.appendingPathComponent("Company/Company.sqlite")
print("store folder: \(folder.path)")

// MARK: shared/API.md, "The stack" (async perform from top-level code)
do {
    let container = try PersistentContainer(name: "Company",
                                            entities: [Department.self, Employee.self, Manager.self])
    // store: $XDG_DATA_HOME/Company/Company.sqlite (else ~/.local/share/...), or pass `storeURL:`,
    // or `.inMemory` for tests. Loading never calls fatalError/abort: it throws.
    let context = container.viewContext

    let sales = Department(context: context)
    sales.name = "Sales"
    let john = Employee(context: context)
    john.firstName = "John"; john.lastName = "Smith"; john.age = 42
    john.department = sales                          // sales.employees now contains john
    try context.save()                               // one transaction; throws, never swallows

    var request = FetchRequest<Employee>()
    request.predicate = try FetchPredicate("age > %@ AND department.name == %@", 40, "Sales")
    request.sortDescriptors = [SortKey("lastName"), SortKey("age", ascending: false)]
    request.fetchLimit = 10
    let people: [Employee] = try context.fetch(request)
    let howMany: Int = try context.count(for: request)

    context.delete(john)
    context.rollback()                               // undo unsaved changes
    let id: ObjectID = sales.objectID                // Sendable; id.isTemporaryID, id.uriRepresentation
    let background = container.newBackgroundContext()
    try await background.perform {
        let same = try background.existingObject(with: id) as! Department
        same.budget = 10
        try background.save()                        // merged into viewContext afterwards
    }
    _ = (people, howMany)
}

// MARK: shared/API.md, "Scripts: top-level code with `await`", verbatim
let container = try PersistentContainer(name: "Company", entities: [Department.self, Employee.self, Manager.self])
try await container.newBackgroundContext().perform { /* ... */ try Task.checkCancellation() }
let n = try container.viewContext.count(for: FetchRequest<Employee>())   // fine after the await

try ManagedRecord.setUp(model: "Company", entities: [Department.self, Employee.self, Manager.self])
let john = try Employee.get(where: "firstName == %@", "John")!
let total = try await Employee.perform { try Employee.count() }
john.age += 1
try Employee.commit()                            // the main context's change is saved

check(n >= 1, "the view context counts after an await at top level (\(n) employees)")
check(total >= 1, "Employee.perform counted \(total) employees")
check(try storedAge(of: "John") == john.age, "john.age += 1 after `await Employee.perform` was saved (age \(john.age))")
print("after the awaits, top-level code runs on the main thread: \(Thread.isMainThread)")

// MARK: The ways a script meets async code, one by one (Scenarios.swift)
try await scenarios(john: john)

// MARK: README.md, "A first model and stack"
do {
    let container = try PersistentContainer(name: "Company",
                                            entities: [Department.self, Employee.self, Manager.self])
    // store: $XDG_DATA_HOME/Company/Company.sqlite (else ~/.local/share/Company/Company.sqlite);
    // pass `storeURL:` for another file, or `location: .inMemory` for tests. Never aborts: it throws.
    let context = container.viewContext

    let sales = Department(context: context)
    sales.name = "Sales"
    let john = Employee(context: context)
    john.firstName = "John"; john.lastName = "Smith"; john.age = 42
    john.department = sales                          // sales.employees now contains john
    try context.save()                               // one transaction; throws, never swallows

    var request = FetchRequest<Employee>()
    request.predicate = try FetchPredicate("age > %@ AND department.name == %@", 40, "Sales")
    request.sortDescriptors = [SortKey("lastName"), SortKey("age", ascending: false)]
    request.fetchLimit = 10
    let people: [Employee] = try context.fetch(request)       // Managers included
    let typed: FetchPredicate = \Employee.$age > 40 && \Employee.$lastName == "Smith"
    let howMany: Int = try context.count(for: request)        // SELECT COUNT(*), no objects made

    john.lastName = "Smithers"
    context.rollback()                               // undo unsaved changes: john.lastName == "Smith"

    let id: ObjectID = sales.objectID                // Sendable; id.isTemporaryID, id.uriRepresentation
    let background = container.newBackgroundContext()
    try background.performAndWait {
        let same = try background.existingObject(with: id) as! Department
        same.budget = 10
        try background.save()                        // merged into viewContext at its next use
    }
    print(sales.budget)                              // 10.0
    _ = (people, typed, howMany)
}

// MARK: README.md, "The class-level layer"
do {
    try ManagedRecord.setUp(model: "Company",
                            entities: [Department.self, Employee.self, Manager.self])   // `storeURL:` optional

    let e = Employee.newEntity()                     // inserted into this thread's context
    e.firstName = "John"
    e.lastName = "Smith"; e.age = 42
    try Employee.commit()                            // saves this thread's context; merges into main

    let all       = try Employee.fetchAll()
    let johns     = try Employee.fetch(where: "firstName == %@", "John")
    let page      = try Employee.fetch(where: "age > %@", 30,
                                       sortedBy: [SortKey("lastName")], limit: 5)
    let typed     = try Employee.fetch(where: \Employee.$age > 30)          // typed predicates too
    let one       = try Employee.get(where: "badge == %@", e.badge)          // first or nil
    let found     = try Employee.newOrExistingEntity(where: "lastName == %@", "Wu")
    let total     = try Employee.count()
    let named     = try Employee.count(where: "firstName == %@", "John")
    let lastNames = try Employee.distinctValues(of: "lastName", as: String.self)
    let meanAge   = try Employee.aggregate(.average, of: "age")              // Double?; .sum .min .max too
    let byBadge   = try Employee.fetchDictionary(keyedBy: "badge")           // [AnyHashable: Employee]
    let removed   = try Employee.deleteAll(where: "age < %@", 18)            // returns the count
    let twin      = e.clone()                        // attributes copied, relationships not
    let fields    = e.serialize()                    // [String: Any] of the stored attributes
    let here      = try e.inCurrentThreadContext()   // same object, this thread's context
    e.delete()
    let context   = Employee.contextForCurrentThread
    let migrate   = try Employee.doesRequireMigration()
    try Employee.deleteStore()                       // store + -wal + -shm, contexts reset
    _ = (all, johns, page, typed, one, found, total, named, lastNames, meanAge, byBadge, removed, twin, fields, here, context, migrate)
}
check(try Employee.count() == 0, "after Employee.deleteStore() the store is empty")

try? FileManager.default.removeItem(at: folder)
finish()
