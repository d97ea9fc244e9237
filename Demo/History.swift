import Foundation
import ObjectGraph

// Persistent history: a store that records who committed what, and pushes the commits of
// other processes into this one. The other process is this Demo, launched again with a
// hidden argument (`Demo --child-commit STORE`) that commits once and exits.

extension DemoSection {
    static let history = DemoSection("history", "persistent history: another process's commit arriving here, read back with its author") { demo in
        let url = demo.folder.appendingPathComponent("History.sqlite")
        let token = try await showHistory(storeURL: url)
        demo.shell("history", url.path, "--after", String(token))
    }
}

/// The author the child process records with its commit.
private let childAuthor = "demo-child"

/// What `Demo --child-commit STORE` does: opens the store with history, as a separate
/// program would, gives Ann a raise and hires Dee Park, in one save. Exits non-zero on an error.
@MainActor
func childCommit(storeURL: URL) -> Never {
    do {
        let container = try PersistentContainer(name: "Company", entities: demoEntities, storeURL: storeURL, options: [.persistentHistory])
        let context = container.viewContext
        context.transactionAuthor = childAuthor
        let ann = try context.fetch(FetchRequest<Employee>(predicate: try FetchPredicate("firstName == %@", "Ann")))
        guard let ann = ann.first else { throw DemoError("no Ann in \(storeURL.path)") }
        ann.salary += 5_000
        let dee = Employee(context: context)
        dee.firstName = "Dee"; dee.lastName = "Park"; dee.age = 61; dee.salary = 70_000
        try context.save()
        container.persistentStoreCoordinator.close()
        exit(0)
    } catch {
        FileHandle.standardError.write(Data("Demo --child-commit: \(error)\n".utf8))
        exit(1)
    }
}

/// Returns the transaction number the section read after (for the shell line).
@MainActor
private func showHistory(storeURL: URL) async throws -> Int64 {
    step("A store with persistent history: every save records who committed and what changed.")
    let container = try PersistentContainer(name: "Company", entities: demoEntities, storeURL: storeURL, options: [.persistentHistory])
    let view = container.viewContext
    view.transactionAuthor = "demo"
    for (first, last, age, salary) in [("Ann", "Lee", 52, 91_000.0), ("Bob", "Moss", 45, 64_000.0)] {
        let employee = Employee(context: view)
        employee.firstName = first; employee.lastName = last; employee.age = age; employee.salary = salary
    }
    try view.save()
    say("recordsHistory = \(container.recordsHistory); saved Ann and Bob with transactionAuthor \"demo\"")
    expect(container.recordsHistory, "the store records history")
    let mine = try container.history(after: nil as HistoryToken?)
    for transaction in mine { say("history: \(transaction)") }
    expect(mine.count == 1 && mine[0].author == "demo" && mine[0].changes.count == 2, "one transaction by \"demo\" with two inserts")
    let token = try container.currentHistoryToken()!
    say("the current token: transaction \(token.transactionNumber) (Codable: keep it between runs)")

    step("Fetched results on the view context, and the commit stream, before anything happens.")
    let results = try FetchedResults(FetchRequest<Employee>(sortDescriptors: [SortKey("lastName")]), context: view)
    say("employees: \(results.objects.map { "\($0.fullName) \(Int($0.salary))" })")
    let resultChanges = results.changes          // both hear what comes after they are made
    let commits = container.changes

    step("Another process (this Demo, launched again) opens the store, gives Ann a raise and hires Dee, in one save.")
    let child = try await runChild(storeURL: storeURL)
    say("the other process (pid \(child)) exited with status 0")

    let change = await first(of: commits, within: 30, "the other process's commit on container.changes") { $0.contextName == "(another process)" }
    say("(commit stream) \(change)")
    expect(change.inserted.count == 1 && change.updated.count == 1, "one insert and one update arrived")
    _ = await first(of: resultChanges, within: 30, "the fetched results' update")
    say("the results updated themselves: \(results.objects.map { "\($0.fullName) \(Int($0.salary))" })")
    expect(results.objects.map(\.lastName) == ["Lee", "Moss", "Park"], "Dee arrived in the view context's results")
    expect(results.objects[0].salary == 96_000, "Ann's raise arrived too")

    step("container.history(after: token): what happened since, with who did it.")
    let since = try container.history(after: token)
    for transaction in since {
        say("transaction \(transaction.token.transactionNumber): author \(transaction.author ?? "-"), process \(transaction.processID ?? "-")")
        for change in transaction.changes.sorted(by: { $0.changeType.rawValue < $1.changeType.rawValue }) { say("  \(change)") }
    }
    expect(since.count == 1, "exactly the other process's transaction came after the token")
    let theirs = since[0]
    expect(theirs.author == childAuthor && theirs.processID == String(child), "the transaction names the other process and its author")
    let kinds = theirs.changes.map { "\($0.changeType) \($0.changedObjectID.entityName) \($0.updatedProperties?.sorted() ?? [])" }.sorted()
    expect(kinds == ["\(HistoryChangeType.insert) Employee []", "\(HistoryChangeType.update) Employee [\"salary\"]"],
           "an insert, and an update of salary only: \(kinds)")
    results.cancel()
    container.persistentStoreCoordinator.close()
    return token.transactionNumber
}

/// Runs `Demo --child-commit STORE` and waits for it to exit; returns its process ID.
/// A non-zero status stops the demo.
@MainActor
private func runChild(storeURL: URL) async throws -> Int32 {
    let process = Process()
    process.executableURL = Bundle.main.executableURL ?? URL(fileURLWithPath: CommandLine.arguments[0])
    process.arguments = ["--child-commit", storeURL.path]
    let status: Int32 = try await withCheckedThrowingContinuation { done in
        process.terminationHandler = { done.resume(returning: $0.terminationStatus) }
        do { try process.run() } catch { process.terminationHandler = nil; done.resume(throwing: error) }
    }
    expect(status == 0, "the other process commits (its error is on standard error)")
    return process.processIdentifier
}
