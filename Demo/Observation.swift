import Foundation
import ObjectGraph

// Observation: a live-updating result. Results on the view context follow commits made on
// other threads — nobody touches the view context; the main queue merges while we await.

/// Fetched results that update themselves, one object's observation, and the commit stream.
extension DemoSection {
    static let observation = DemoSection("observation", "fetched results that update themselves as other threads commit") { demo in
        try await observeLiveResults(folder: demo.folder)
        demo.shell("fetch", demo.folder.appendingPathComponent("Observation.sqlite").path, "Employee", "TRUEPREDICATE", "--sort", "lastName")
    }
}

@MainActor
private func observeLiveResults(folder: URL) async throws {
    let container = try PersistentContainer(name: "Company", entities: demoEntities,
                                            storeURL: folder.appendingPathComponent("Observation.sqlite"))
    let view = container.viewContext
    let sales = Department(context: view)
    sales.name = "Sales"
    let support = Department(context: view)
    support.name = "Support"
    for (first, last, age, department) in [("Ann", "Lee", 52, sales), ("Bob", "Moss", 45, support), ("Cy", "Diaz", 30, sales)] {
        let e = Employee(context: view)
        e.firstName = first; e.lastName = last; e.age = age; e.department = department
    }
    try view.save()

    step("Fetched results that update themselves, in sections by department.")
    var request = FetchRequest<Employee>(sortDescriptors: [SortKey("department.name"), SortKey("lastName")])
    request.predicate = try FetchPredicate("age > %@", 40)
    let results = try FetchedResults(request, context: view, sectionKeyPath: "department.name")
    say("over 40: \(describe(results))")
    expect(results.objects.map(\.lastName) == ["Lee", "Moss"], "the first fetch")
    var changes = results.changes.makeAsyncIterator()
    // The stream hears commits from the moment it is made: make it before the commits.
    let commitStream = container.changes
    let commits = Task { () -> Int in
        var count = 0
        for await change in commitStream {
            count += 1
            say("(commit stream) \(change)")
            if count == 3 { break }
        }
        return count
    }

    let salesID = sales.objectID
    try await commitOnAnotherThread(container, "a background thread hires Dee Park, 61, into Sales") { context in
        let dee = Employee(context: context)
        dee.firstName = "Dee"; dee.lastName = "Park"; dee.age = 61
        dee.department = (try context.existingObject(with: salesID) as! Department)
    }
    if case .changes(let diff)? = await changes.next() { say("the results heard it, untouched: \(diff)") }
    say("over 40: \(describe(results))")
    expect(results.objects.map(\.lastName) == ["Lee", "Park", "Moss"], "Dee joins Sales")

    let mossID = results.sections[1].objects[0].objectID
    let moss = results.sections[1].objects[0]
    let mossWatch = moss.observe()
    mossWatch.onChange { change in say("(Bob Moss's own observation) \(change)") }
    try await commitOnAnotherThread(container, "another thread moves Bob Moss to Sales") { context in
        (try context.existingObject(with: mossID) as! Employee).department = (try context.existingObject(with: salesID) as! Department)
    }
    if case .changes(let diff)? = await changes.next() { say("a move across sections, and Support empties: \(diff)") }
    say("over 40: \(describe(results))")
    expect(results.sections.map(\.name) == ["Sales"] && results.objects.count == 3, "one section left")

    try await commitOnAnotherThread(container, "another thread deletes Ann Lee") { context in
        let ann = try context.fetch(FetchRequest<Employee>(predicate: try FetchPredicate("lastName == %@", "Lee"))).first!
        context.delete(ann)
    }
    if case .changes(let diff)? = await changes.next() { say("the results heard it: \(diff)") }
    say("over 40: \(describe(results))")
    expect(results.objects.map(\.lastName) == ["Moss", "Park"], "Ann is gone")
    expect(await commits.value == 3, "the commit stream heard three commits")
    mossWatch.cancel()
    results.cancel()
}

/// Saves what `change` does in a background context, on a thread of its own.
@MainActor
private func commitOnAnotherThread(_ container: PersistentContainer, _ what: String,
                                   _ change: @escaping @Sendable (ManagedObjectContext) throws -> Void) async throws {
    say(what)
    let background = container.newBackgroundContext()
    try await withCheckedThrowingContinuation { (done: CheckedContinuation<Void, Error>) in
        Thread {
            done.resume(with: Result { try background.performAndWait { try change(background); try background.save() } })
        }.start()
    }
}

private func describe(_ results: FetchedResults<Employee>) -> String {
    results.sections.map { "\($0.name): \($0.objects.map(\.fullName).joined(separator: ", "))" }.joined(separator: " | ")
}
