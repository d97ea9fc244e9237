import Foundation
import ObjectGraph

/// Reopens the store in a new container and reads it back: object IDs from URIs, faulting,
/// uniquing, sorted and paged fetches, counts, and key-based access by entity name.
func reading(storeURL: URL, johnURI: URL) throws {
    step("Reopen the store in a new container (as a new process would).")
    let container = try PersistentContainer(name: "Company", entities: demoEntities, storeURL: storeURL)
    let context = container.viewContext
    let coordinator = container.persistentStoreCoordinator
    say("store UUID from Z_METADATA: \(coordinator.storeIdentifier)")

    step("Object IDs and URIs: a URI names an object across processes; an ObjectID across threads.")
    guard let johnID = coordinator.managedObjectID(forURIRepresentation: johnURI) else {
        expect(false, "the URI saved by the first container names an object of this store")
        return
    }
    say("\(johnURI.absoluteString)  ->  ObjectID of entity \(johnID.entityName), primary key \(johnID.primaryKey ?? 0)")
    let missing = URL(string: "x-coredata://\(coordinator.storeIdentifier)/Employee/p999")!
    do {
        _ = try context.existingObject(with: coordinator.managedObjectID(forURIRepresentation: missing)!)
        expect(false, "there is no row 999")
    } catch let error as ContextError {
        say("existingObject(with:) for p999 throws: \(error)")
    }

    step("Faulting: object(with:) returns a fault; touching a property loads it with one query.")
    let john = context.object(with: johnID) as! Employee
    say("object(with:) -> isFault = \(john.isFault) (no SQL has run for it)")
    expect(john.isFault, "object(with:) does not touch the store")
    coordinator.sqlTrace = { sql in say("SQL: \(sql)") }
    say("reading john.firstName fires the fault: \(john.firstName)")
    coordinator.sqlTrace = nil
    expect(!john.isFault, "touching a property loads the values")
    say("hired \(john.hired.map { "\($0)" } ?? "-") (stored as seconds since 2001); transient scratch after reopening = \(john.scratch ?? "nil")")

    step("Uniquing: one object per row in a context, whichever way it was reached.")
    let everyone = try context.fetch(FetchRequest<Employee>())
    let fetchedJohn = everyone.first { $0.firstName == "John" }
    say("the fetched John is the same instance as the one from object(with:): \(fetchedJohn === john)")
    expect(fetchedJohn === john, "uniquing")
    let departments = try context.fetch(FetchRequest<Department>())
    let sales = departments.first { $0.name == "Sales" }!
    say("john.department is the fetched Sales department: \(john.department === sales); Sales employees: \(names(sales.employees))")
    expect(john.department === sales && sales.employees.contains(john), "relationships lead to the registered objects")

    step("Fetching with sort keys, a limit and an offset; results include the Manager sub-entity.")
    var request = FetchRequest<Employee>()
    request.sortDescriptors = [SortKey("lastName"), SortKey("age", ascending: false)]
    request.fetchLimit = 3
    let firstPage = try context.fetch(request)
    say("sorted by lastName, then age descending, limit 3: \(firstPage.map { "\($0.fullName) (\(type(of: $0)))" })")
    request.fetchOffset = 3
    say("the next page (offset 3): \(try context.fetch(request).map(\.fullName))")
    var byAge = FetchRequest<Employee>()
    byAge.sortDescriptors = [SortKey(\Employee.$age, ascending: false)]   // a typed sort key
    say("oldest first, with SortKey(\\Employee.$age, ascending: false): \(try context.fetch(byAge).map { "\($0.firstName) \($0.age)" })")

    step("Predicates: Core Data's predicate language, answered by SQLite with bound values.")
    var filtered = FetchRequest<Employee>()
    filtered.predicate = try FetchPredicate("age > %@ AND department.name == %@", 40, "Sales")
    say("\"age > 40 AND department.name == 'Sales'\": \(try context.fetch(filtered).map(\.fullName))")
    filtered.predicate = try FetchPredicate("lastName BEGINSWITH[c] %@ OR lastName IN %@", "s", ["Jones", "Wu"])
    filtered.sortDescriptors = [SortKey("department.name"), SortKey("lastName")]   // a sort key through a to-one
    say("\"lastName BEGINSWITH[c] 's' OR lastName IN {Jones, Wu}\", sorted by department.name: \(try context.fetch(filtered).map(\.fullName))")
    filtered.predicate = \Employee.$age >= 30 && \Employee.$age < 50                // typed, with key paths
    say("typed \\Employee.$age >= 30 && \\Employee.$age < 50 counts \(try context.count(for: filtered)) employees")
    var busyManagers = FetchRequest<Manager>()
    busyManagers.predicate = try FetchPredicate("reports.@count >= 2 AND ANY reports.age > 50")
    say("managers with 2+ reports, one of them over 50: \(try context.fetch(busyManagers).map(\.fullName))")
    do {
        _ = try FetchPredicate("age > 3 AND (lastName == 'x'")
    } catch let error as FetchPredicateError {
        say("a malformed predicate throws before any SQL runs: \(error)")
    }

    step("#Predicate: Foundation's macro, translated to the same predicate and answered by the store.")
    let minimumAge = 30
    let swiftly = FetchRequest<Employee>(predicate: #Predicate { $0.age >= minimumAge && $0.department?.name == "Sales" },
                                         sortBy: [SortDescriptor(\.lastName)])
    let swiftlyFound = try context.fetch(swiftly)
    say("#Predicate { $0.age >= minimumAge && $0.department?.name == \"Sales\" } means \"\(swiftly.predicate!.predicateFormat)\": \(swiftlyFound.map(\.fullName))")
    let asFormat = FetchRequest<Employee>(predicate: try FetchPredicate("age >= %@ AND department.name == 'Sales'", minimumAge),
                                          sortDescriptors: [SortKey("lastName")])
    expect(swiftlyFound == (try context.fetch(asFormat)), "a #Predicate selects what its format string selects")
    let withReports = try context.fetch(Manager.self, where: #Predicate { $0.reports.contains { $0.age > 40 } })
    say("managers with a report over 40, #Predicate { $0.reports.contains { $0.age > 40 } }: \(withReports.map(\.fullName))")
    do {
        _ = try context.fetch(FetchRequest<Employee>(predicate: #Predicate { $0.fullName == "John Smith" }))
        expect(false, "fullName is computed, not stored")
    } catch let error as FetchPredicateError {
        say("a computed property (fullName) is refused at fetch time, before any SQL runs: \(error)")
    }

    step("Counting: SQLite counts the rows; no object is created.")
    var employeesOnly = FetchRequest<Employee>()
    employeesOnly.includesSubentities = false
    let total = try context.count(for: FetchRequest<Employee>())
    let plain = try context.count(for: employeesOnly)
    let managers = try context.count(for: FetchRequest<Manager>())
    say("employees including managers: \(total); without the sub-entity: \(plain); managers: \(managers)")
    expect(total == plain + managers, "Employee fetches include Managers unless told otherwise")
    let meanAge = try context.aggregate(.average, of: "age", for: FetchRequest<Employee>()) ?? 0
    let lastNames = try context.distinctValues(of: "lastName", as: String.self, for: FetchRequest<Employee>())
    say("average age \(meanAge) and the distinct last names \(lastNames): one SQL statement each")

    step("Key-based access, for entities known only by name (as with a model file from Xcode).")
    var generic = FetchRequest<ManagedObject>(entityName: "Employee")
    generic.sortDescriptors = [SortKey("firstName")]
    for object in try context.fetch(generic) {
        let first = try object.checkedValue(forKey: "firstName") as? String ?? "?"
        let department = try object.checkedValue(forKey: "department") as? ManagedObject
        let departmentName = try department?.checkedValue(forKey: "name") as? String ?? "-"
        say("\(object.entity.name) \(first), department \(departmentName)")
    }
    let support = try context.insertNewObject(forEntityName: "Department")
    try support.setValue("Support", forKey: "name")
    try support.setValue(120_000.0, forKey: "budget")
    say("insertNewObject(forEntityName: \"Department\") made a \(type(of: support)); setValue(_:forKey:) filled it in")
    do {
        try support.setValue("lots", forKey: "budget")
    } catch let error as KeyValueError {
        say("a wrong type throws: \(error)")
    }
    do {
        _ = try support.checkedValue(forKey: "headcount")
    } catch let error as KeyValueError {
        say("an unknown key throws: \(error)")
    }
    try context.save()
    say("saved Support: \(try context.count(for: FetchRequest<Department>())) departments")
}
