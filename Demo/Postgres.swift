import Foundation
import ObjectGraph
import ObjectGraphPostgres

// The same model on PostgreSQL: two containers on one database, as two servers of an
// application would be; a save in one is pushed to the other (LISTEN/NOTIFY), and fetches
// and aggregates run as SQL on the server. Skipped, saying why, when no server is at hand.

extension DemoSection {
    static let postgres = DemoSection("postgres", "PostgreSQL: two containers on one database, a save pushed to the other, fetches and aggregates") { demo in
        step("A PostgreSQL server: MANAGEDRECORD_POSTGRES_URL, else Debian's programs started for this section.")
        let found: DemoPostgres
        switch try DemoPostgres.find(folder: demo.folder) {
        case .success(let server): found = server
        case .failure(let unavailable):
            say("skipped: \(unavailable.reason)")
            return
        }
        // A schema of its own, dropped at the end: nothing else in the database is touched.
        var components = URLComponents(url: found.url, resolvingAgainstBaseURL: false)!
        components.queryItems = (components.queryItems ?? []).filter { $0.name != "schema" }
            + [URLQueryItem(name: "schema", value: "managedrecord_demo_\(UUID().uuidString.prefix(8).lowercased())")]
        let url = components.url!
        do {
            try await twoContainers(url: url)
        } catch {
            try? found.started?.stop()
            throw error
        }
        if let server = found.started {
            try server.stop()
            say("pg_ctl stop: the throwaway server is stopped and its folder removed")
        }
        say("(from a shell, on a store that exists; the password comes from PGPASSWORD or ~/.pgpass:)")
        demo.shell("fetch", redacted(url), "Employee", "age > 40", "--sort", "lastName")
    }
}

@MainActor
private func twoContainers(url: URL) async throws {
    step("Two containers on the same database (the store lives in the schema the URL names).")
    let a = try PersistentContainer(name: "Company", entities: demoEntities, store: .postgres(url))
    let b = try PersistentContainer(name: "Company", entities: demoEntities, store: .postgres(url))
    say("A and B: \(redacted(url))")
    var request = FetchRequest<Employee>(sortDescriptors: [SortKey("lastName")])
    request.predicate = try FetchPredicate("age > %@ AND department.name == %@", 40, "Sales")
    let results = try FetchedResults(request, context: b.viewContext)
    say("B's fetched results (age > 40 in Sales): \(results.objects.map(\.fullName))")
    expect(results.objects.isEmpty, "an empty store")
    let pushed = b.changes
    let resultChanges = results.changes

    step("A saves a department and four employees.")
    let sales = Department(context: a.viewContext)
    sales.name = "Sales"; sales.budget = 250_000
    let support = Department(context: a.viewContext)
    support.name = "Support"; support.budget = 120_000
    for (first, last, age, salary, department) in [("Ann", "Lee", 52, 91_000.0, sales), ("Bob", "Moss", 45, 64_000.0, sales),
                                                   ("Cy", "Diaz", 30, 58_000.0, sales), ("Dee", "Park", 61, 70_000.0, support)] {
        let employee = Employee(context: a.viewContext)
        employee.firstName = first; employee.lastName = last; employee.age = age; employee.salary = salary
        employee.department = department
    }
    try a.viewContext.save()

    let change = await first(of: pushed, within: 30, "A's commit pushed to B") { !$0.inserted.isEmpty }
    say("B heard it (commit stream): \(change)")
    expect(change.inserted.count == 6, "two departments and four employees were pushed")
    _ = await first(of: resultChanges, within: 30, "B's fetched results updating")
    say("B's fetched results, untouched: \(results.objects.map(\.fullName))")
    expect(results.objects.map(\.fullName) == ["Ann Lee", "Bob Moss"], "the predicate runs over the pushed rows")

    step("B fetches with a predicate through a relationship, and aggregates: SQL on the server.")
    let older = try b.viewContext.fetch(FetchRequest<Employee>(predicate: try FetchPredicate("age >= %@ OR department.budget < %@", 50, 200_000)))
    say("age >= 50 OR department.budget < 200000: \(older.map(\.fullName).sorted())")
    expect(older.map(\.fullName).sorted() == ["Ann Lee", "Dee Park"], "the predicate fetch")
    var inSales = FetchRequest<Employee>()
    inSales.predicate = try FetchPredicate("department.name == %@", "Sales")
    let total = try b.viewContext.aggregate(.sum, of: "salary", for: inSales) ?? 0
    let mean = try b.viewContext.aggregate(.average, of: "age", for: FetchRequest<Employee>()) ?? 0
    say("sum of salaries in Sales \(Int(total)), average age \(mean)")
    expect(total == 213_000 && mean == 47, "sum(salary) in Sales and avg(age) of everyone")

    results.cancel()
    a.persistentStoreCoordinator.close()
    try b.persistentStoreCoordinator.destroyStore()
    say("destroyStore(): the demo's schema is dropped")
}

/// The URL as printed: a password in it is never shown.
private func redacted(_ url: URL) -> String {
    guard var components = URLComponents(url: url, resolvingAgainstBaseURL: false), components.password != nil else { return url.absoluteString }
    components.password = "***"
    return components.string ?? url.absoluteString
}
