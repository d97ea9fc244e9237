import Foundation
import ObjectGraph
import Testing

/// Two containers on one store (one file, or one database) change the same object: Core
/// Data's five merge policies decide, as docs/saving-and-errors.md tabulates them.
@Suite("Merge policies", .onOwnThreads)
struct MergePolicyTests {
    /// John (Smith, 42, salary 52000) as container A read him, after container B saved
    /// salary 70000 and lastName Smyth over him. A has not seen B's save (it merges nothing
    /// by itself).
    private struct Conflict {
        let a: PersistentContainer
        let john: Employee
        let store: TestStore

        init(_ kind: StoreKind) throws {
            store = try kind.newStore()
            a = try store.container()
            // A must not take B's save in before its own: where the store pushes other
            // containers' commits (PostgreSQL), A would otherwise merge it and not conflict.
            a.viewContext.automaticallyMergesChanges = false
            let seeded = Employee(context: a.viewContext)
            (seeded.firstName, seeded.lastName, seeded.age, seeded.salary) = ("John", "Smith", 42, 52000)
            try a.viewContext.save()
            john = seeded

            let b = try store.container()
            let theirs = try #require(try b.viewContext.fetch(FetchRequest<Employee>()).first)
            theirs.salary = 70000
            theirs.lastName = "Smyth"
            try b.viewContext.save()
            #expect(john.salary == 52000, "A still holds what it read")
        }

        /// John as a fresh container reads him.
        func stored() throws -> John {
            let reader = try store.container().viewContext
            return John(try #require(try reader.fetch(FetchRequest<Employee>()).first))
        }
    }

    /// The values the policies decide between.
    struct John: Equatable, CustomStringConvertible {
        let salary: Double
        let lastName: String
        let age: Int16

        init(_ salary: Double, _ lastName: String, _ age: Int16) {
            (self.salary, self.lastName, self.age) = (salary, lastName, age)
        }

        init(_ employee: Employee) {
            self.init(employee.salary, employee.lastName, employee.age)
        }

        var description: String { "\(lastName), \(age), salary \(salary)" }
    }

    static let resolvingPolicies: [MergePolicy] = [.mergeByPropertyObjectTrump, .mergeByPropertyStoreTrump, .overwrite, .rollback]

    /// docs/saving-and-errors.md: this context sets salary 61000 and age 43 and saves.
    private static func expected(_ policy: MergePolicy) -> John {
        switch policy {
        case .mergeByPropertyObjectTrump: John(61000, "Smyth", 43)
        case .mergeByPropertyStoreTrump: John(70000, "Smyth", 43)
        case .overwrite: John(61000, "Smith", 43)
        case .rollback: John(70000, "Smyth", 42)
        case .error: John(70000, "Smyth", 42)
        }
    }

    @Test("Under .error a conflicting save throws MergeConflictError, writes nothing and keeps the changes", arguments: StoreKind.allCases)
    func errorPolicyThrows(_ kind: StoreKind) throws {
        let conflict = try Conflict(kind)
        let context = conflict.a.viewContext
        context.mergePolicy = .error
        conflict.john.salary = 61000
        conflict.john.age = 43
        let error = #expect(throws: MergeConflictError.self) { try context.save() }
        #expect(error?.conflicts.map(\.objectID) == [conflict.john.objectID])
        #expect(error?.conflicts.first?.snapshotVersion == 1)
        #expect(error?.conflicts.first?.storeVersion == 2)
        #expect(try conflict.stored() == John(70000, "Smyth", 42), "nothing was written")
        #expect(context.hasChanges)
        #expect(conflict.john.salary == 61000, "the pending change is kept")

        context.refresh(conflict.john, mergeChanges: true)
        #expect(conflict.john.lastName == "Smyth", "refresh reads B's values ...")
        #expect(conflict.john.salary == 61000, "... and keeps A's changes on top")
        try context.save()
        #expect(try conflict.stored() == John(61000, "Smyth", 43))
    }

    @Test("Each resolving policy gives its documented result", arguments: StoreKind.allCases, resolvingPolicies)
    func resolvingPolicy(_ kind: StoreKind, _ policy: MergePolicy) throws {
        let conflict = try Conflict(kind)
        let context = conflict.a.viewContext
        context.mergePolicy = policy
        conflict.john.salary = 61000
        conflict.john.age = 43
        try context.save()
        let expected = Self.expected(policy)
        #expect(try conflict.stored() == expected)
        #expect(John(conflict.john) == expected, "the object holds what was written")
        #expect(!context.hasChanges)
        // The object is at the store's version now: another change saves under .error.
        context.mergePolicy = .error
        conflict.john.firstName = "Johnny"
        try context.save()
        #expect(try conflict.stored().salary == expected.salary)
    }

    @Test("A change to a row another container deleted is a conflict under .error; the deletion wins otherwise", arguments: StoreKind.allCases)
    func changeOfADeletedRow(_ kind: StoreKind) throws {
        let conflict = try Conflict(kind)
        let b = try conflict.store.container()
        let theirs = try #require(try b.viewContext.fetch(FetchRequest<Employee>()).first)
        b.viewContext.delete(theirs)
        try b.viewContext.save()

        let context = conflict.a.viewContext
        conflict.john.age = 50
        let error = #expect(throws: MergeConflictError.self) { try context.save() }
        #expect(error?.conflicts.first?.storeVersion == nil, "nil: the row was deleted")
        context.mergePolicy = .mergeByPropertyObjectTrump
        try context.save()
        #expect(conflict.john.isDeleted)
        #expect(try conflict.store.container().viewContext.count(for: FetchRequest<Employee>()) == 0)
    }

    @Test("Two containers incrementing one counter concurrently, retrying on conflicts, lose no update", arguments: StoreKind.allCases)
    func noLostUpdate(_ kind: StoreKind) throws {
        let store = try kind.newStore()
        let seed = try store.container()
        let counter = Counter(context: seed.viewContext)
        counter.name = "hits"
        try seed.viewContext.save()

        let increments = 40
        let failures = Locked<[String]>([])
        let conflicts = Locked(0)
        let group = DispatchGroup()
        for _ in 0..<2 {
            group.enter()
            Thread.detachNewThread {
                defer { group.leave() }
                do {
                    let context = try store.container().viewContext
                    context.mergePolicy = .error
                    guard let mine = try context.fetch(FetchRequest<Counter>()).first else {
                        return failures.withLock { $0.append("no counter") }
                    }
                    var done = 0
                    while done < increments {
                        mine.value += 1
                        do {
                            try context.save()
                            done += 1
                        } catch is MergeConflictError {
                            conflicts.withLock { $0 += 1 }
                            context.rollback()
                            context.refresh(mine, mergeChanges: false)
                        }
                    }
                } catch {
                    failures.withLock { $0.append("\(error)") }
                }
            }
        }
        #expect(group.wait(timeout: .now() + 120) == .success, "both writers finished")
        #expect(failures.withLock { $0 } == [])
        let reader = try store.container().viewContext
        #expect(try reader.fetch(FetchRequest<Counter>()).first?.value == 2 * increments, "conflicts: \(conflicts.withLock { $0 })")
    }
}
