import Foundation
import ManagedRecord

/// The ways a script meets async code (awaits between uses of objects, background fetches,
/// `perform`), each as a script would meet it. Runs on
/// the main actor, as top-level code does.
@MainActor
func scenarios(john: Employee) async throws {
    // An object fetched before several awaits stays usable, and its changes are saved.
    for _ in 0..<5 {
        try await Task.sleep(for: .milliseconds(2))
        john.salary += 100
    }
    try Employee.commit()
    check(john.managedObjectContext === Employee.contextManager.mainThreadContext, "john belongs to the main context after five awaits")

    // fetchInBackground at top level: the objects come back in the main context, and a
    // change to them is committed.
    let older = try await Employee.fetchInBackground(where: "age > %@", 30)
    check(!older.isEmpty && older.allSatisfy { $0.managedObjectContext === Employee.contextForCurrentThread },
          "fetchInBackground(where: format) returns \(older.count) objects in the main context")
    if let first = older.first {
        first.lastName = "Background"
        try Employee.commit()
        check(try stored(where: "lastName == %@", "Background").count == 1, "a change to an object from fetchInBackground is committed")
    }

    // A perform block's objects leave with its context; object IDs cross instead.
    let ids = try await Employee.perform { try Employee.fetchAll().map(\.objectID) }
    let here = Employee.contextForCurrentThread.objects(for: ids)
    check(here.count == ids.count && !ids.isEmpty, "object IDs returned by perform turn into \(here.count) main-context objects")
    let returned = try await Employee.perform { try Employee.fetchAll() }
    check(returned.allSatisfy { $0.managedObjectContext == nil }, "objects returned by perform belong to no context once it ends")

    // Child tasks inside perform: each gets a context of its own; their commits merge.
    let (parentContext, childContexts) = try await Employee.perform { () -> (ObjectIdentifier, Set<ObjectIdentifier>) in
        let parent = ObjectIdentifier(Employee.contextForCurrentThread)
        async let counted = Employee.count()
        let children = try await withThrowingTaskGroup(of: ObjectIdentifier.self) { group in
            for index in 0..<4 {
                group.addTask {
                    let child = Employee.newEntity()
                    child.firstName = "Child"
                    child.age = index
                    try await Task.sleep(for: .milliseconds(1))      // resume anywhere, same context
                    child.age += 10
                    try Employee.commit()
                    return ObjectIdentifier(Employee.contextForCurrentThread)
                }
            }
            return try await group.reduce(into: Set<ObjectIdentifier>()) { $0.insert($1) }
        }
        let count = try await counted
        check(count >= 1, "async let in perform counts on a context of its own")
        return (parent, children)
    }
    check(childContexts.count == 4 && !childContexts.contains(parentContext), "four child tasks used four contexts, none the parent's")
    check(try Employee.count(where: "firstName == %@ AND age >= 10", "Child") == 4, "the children's commits reached the main context")

    // A detached task: its own perform block, several awaits, a commit.
    let detached = try await Task.detached {
        try await Employee.perform { () -> Int in
            let dee = Employee.newEntity()
            dee.firstName = "Detached"
            try await Task.sleep(for: .milliseconds(1))
            dee.age = 7
            try Employee.commit()
            return try Employee.count(where: "firstName == %@", "Detached")
        }
    }.value
    check(try storedAge(of: "Detached") == 7 && detached == 1, "a detached task's perform block committed across an await")

    // Main-actor code reached from a detached task uses the main context.
    let mainContext = ObjectIdentifier(Employee.contextManager.mainThreadContext!)
    let hopped = try await Task.detached {
        try await MainActor.run { () -> (ObjectIdentifier, Int) in
            (ObjectIdentifier(Employee.contextForCurrentThread), try Employee.count())
        }
    }.value
    check(hopped.0 == mainContext && hopped.1 > 0, "MainActor.run from a detached task uses the main context")

    // A thread commits with its own hidden context; the main context sees the row.
    await withCheckedContinuation { (done: CheckedContinuation<Void, Never>) in
        let thread = Thread {
            let worker = Employee.newEntity()
            worker.firstName = "Thread"
            worker.age = 55
            check((try? Employee.commit()) != nil, "a thread commits through its own context")
            done.resume()
        }
        thread.start()
    }
    check(try Employee.get(where: "firstName == %@", "Thread")?.age == 55, "the main context sees the thread's commit after an await")

    // The view context of a container made after the awaits.
    let container = try PersistentContainer(name: "Late", entities: [Department.self, Employee.self, Manager.self], storeURL: storeURL)
    await container.newBackgroundContext().perform {}
    let late = Employee(context: container.viewContext)
    late.firstName = "Late"
    try await Task.sleep(for: .milliseconds(1))
    try container.viewContext.save()
    check(container.viewContext.concurrencyType == .mainQueue, "a container made on the main queue has a main-queue view context")
    check(try stored(where: "firstName == %@", "Late").count == 1, "the view context saves after awaits")
}
