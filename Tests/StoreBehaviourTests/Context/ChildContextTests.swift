import Foundation
import ObjectGraph
import Testing

/// Child contexts (Core Data's `parent`): a child reads through its parent, with the parent's
/// unsaved changes, and its save goes into the parent only (docs/threading.md, "Child contexts").
@Suite("Child contexts", .onOwnThreads)
struct ChildContextTests {
    /// A store with the company saved, its view context, and a fresh reader of the store.
    private struct Setup {
        let store: TestStore
        let parent: ManagedObjectContext
        let company: Company

        init(_ kind: StoreKind) throws {
            store = try kind.newStore()
            parent = try store.container().viewContext
            company = try Company.seed(in: parent)
        }

        /// The first names the store holds now, read by a fresh container.
        func storedNames() throws -> [String] {
            try store.container().viewContext.fetch(FetchRequest<Employee>(sortDescriptors: [SortKey("firstName")])).map(\.firstName)
        }
    }

    private static let byName = [SortKey("firstName")]

    private static func names(_ context: ManagedObjectContext, _ format: String = "TRUEPREDICATE") throws -> [String] {
        try context.fetch(FetchRequest<Employee>(predicate: FetchPredicate(format), sortDescriptors: byName)).map(\.firstName)
    }

    private static func employee(_ context: ManagedObjectContext, _ id: ObjectID) throws -> Employee {
        try #require(try context.existingObject(with: id) as? Employee)
    }

    @Test("A child's fetches, counts and faults see the parent's unsaved inserts, changes and deletes", arguments: StoreKind.allCases)
    func childSeesParentChanges(_ kind: StoreKind) throws {
        let setup = try Setup(kind)
        let parent = setup.parent
        let nia = Employee(context: parent)
        nia.firstName = "Nia"
        nia.age = 70
        nia.department = setup.company.sales
        setup.company.ann.age = 71
        parent.delete(setup.company.bob)

        let child = parent.newChildContext()
        #expect(child.parent === parent)
        #expect(try Self.names(child) == ["Ann", "Li", "Mia", "Nia", "Zed", "olga", "Émile"])
        #expect(try Self.names(child, "age > 65") == ["Ann", "Nia"])
        #expect(try child.count(for: FetchRequest<Employee>(predicate: FetchPredicate("age > 65"))) == 2)
        #expect(try child.count(for: FetchRequest<Employee>()) == 7)
        #expect(try child.fetchObjectIDs(FetchRequest<Employee>(predicate: FetchPredicate("firstName == 'Nia'"))) == [nia.objectID])

        // Faults and existingObject(with:), also for the temporary ID of the parent's new object.
        let annFault = child.object(with: setup.company.ann.objectID) as! Employee
        #expect(annFault.isFault)
        #expect(annFault.age == 71)
        let childNia = try Self.employee(child, nia.objectID)
        #expect(childNia.objectID.isTemporaryID)
        #expect(childNia.firstName == "Nia")
        #expect(childNia.department?.name == "Sales")
        #expect(throws: ContextError.self) { try child.existingObject(with: setup.company.bob.objectID) }
        let sales = try #require(try child.existingObject(with: setup.company.sales.objectID) as? Department)
        #expect(sales.employees.map(\.firstName).sorted() == ["Ann", "Mia", "Nia"], "Bob's delete and Nia's insert, through the to-many")
        #expect(!child.hasChanges)
    }

    @Test("The parent sees a child's changes only once the child saves, and the store only once the parent saves", arguments: StoreKind.allCases)
    func childSaveGoesIntoParentOnly(_ kind: StoreKind) throws {
        let setup = try Setup(kind)
        let parent = setup.parent
        let child = parent.newChildContext()
        let kim = Employee(context: child)
        kim.firstName = "Kim"
        try Self.employee(child, setup.company.li.objectID).age = 39
        child.delete(try Self.employee(child, setup.company.olga.objectID))

        #expect(try Self.names(child) == ["Ann", "Bob", "Kim", "Li", "Mia", "Zed", "Émile"])
        #expect(try Self.names(parent) == ["Ann", "Bob", "Li", "Mia", "Zed", "olga", "Émile"], "nothing reaches the parent before the child saves")
        #expect(!parent.hasChanges)

        try child.save()
        #expect(!child.hasChanges)
        #expect(parent.hasChanges)
        #expect(parent.insertedObjects.map(\.objectID) == [kim.objectID])
        #expect(parent.deletedObjects.map(\.objectID) == [setup.company.olga.objectID])
        #expect(setup.company.li.age == 39)
        #expect(try Self.names(parent) == ["Ann", "Bob", "Kim", "Li", "Mia", "Zed", "Émile"])
        #expect(try setup.storedNames() == ["Ann", "Bob", "Li", "Mia", "Zed", "olga", "Émile"], "nothing reaches the store before the parent saves")

        try parent.save()
        #expect(try setup.storedNames() == ["Ann", "Bob", "Kim", "Li", "Mia", "Zed", "Émile"])
        let reader = try setup.store.container().viewContext
        #expect(try reader.fetch(FetchRequest<Employee>(predicate: FetchPredicate("firstName == 'Li'"))).first?.age == 39)
    }

    @Test("A child rolled back or dropped changes nothing in its parent", arguments: StoreKind.allCases)
    func discardedChildChangesNothing(_ kind: StoreKind) throws {
        let setup = try Setup(kind)
        let parent = setup.parent
        do {
            let child = parent.newChildContext()
            _ = Employee(context: child)
            try Self.employee(child, setup.company.ann.objectID).age = 99
            child.delete(try Self.employee(child, setup.company.bob.objectID))
            child.rollback()
            #expect(!child.hasChanges)
            try child.save()
        }
        do {
            let dropped = parent.newChildContext()
            try Self.employee(dropped, setup.company.ann.objectID).age = 98
            _ = Employee(context: dropped)
        }
        #expect(!parent.hasChanges)
        #expect(setup.company.ann.age == 30)
        #expect(try Self.names(parent).count == 7)
    }

    @Test("A grandchild's change reaches the store only when every level saves", arguments: StoreKind.allCases)
    func grandchildReachesStoreThroughEveryLevel(_ kind: StoreKind) throws {
        let setup = try Setup(kind)
        let parent = setup.parent
        let child = parent.newChildContext()
        let grandchild = child.newChildContext()
        let gus = Employee(context: grandchild)
        gus.firstName = "Gus"
        gus.department = try #require(try grandchild.existingObject(with: setup.company.legal.objectID) as? Department)
        try Self.employee(grandchild, setup.company.emile.objectID).age = 61

        try grandchild.save()
        #expect(try Self.names(child, "firstName == 'Gus'") == ["Gus"])
        #expect(try Self.names(parent, "firstName == 'Gus'") == [])
        #expect(try Self.employee(child, setup.company.emile.objectID).age == 61)
        #expect(setup.company.emile.age == 60)

        try child.save()
        #expect(try Self.names(parent, "firstName == 'Gus'") == ["Gus"])
        #expect(setup.company.emile.age == 61)
        #expect(setup.company.legal.employees.map(\.firstName) == ["Gus"])
        #expect(try !setup.storedNames().contains("Gus"))

        try parent.save()
        #expect(try setup.storedNames().contains("Gus"))
        let reader = try setup.store.container().viewContext
        let legal = try #require(try reader.fetch(FetchRequest<Department>(predicate: FetchPredicate("name == 'Legal'"))).first)
        #expect(legal.employees.map(\.firstName) == ["Gus"])
    }

    @Test("An object inserted in a child keeps its ID in the parent, and takes the permanent one when the parent saves", arguments: StoreKind.allCases)
    func temporaryIDsSurviveThePush(_ kind: StoreKind) throws {
        let setup = try Setup(kind)
        let parent = setup.parent
        let child = parent.newChildContext()
        let kim = Employee(context: child)
        kim.firstName = "Kim"
        let temporary = kim.objectID
        #expect(temporary.isTemporaryID)
        try child.save()
        #expect(kim.objectID == temporary)
        let inParent = try #require(parent.registeredObject(for: temporary) as? Employee)
        #expect(inParent.isInserted)
        #expect(inParent.firstName == "Kim")

        try parent.save()
        #expect(!inParent.objectID.isTemporaryID)
        #expect(child.registeredObject(for: inParent.objectID) === kim, "the child's object takes the permanent ID")
        #expect(kim.objectID == inParent.objectID)
        kim.age = 22
        try child.save()
        try parent.save()
        let reader = try setup.store.container().viewContext
        #expect(try reader.fetch(FetchRequest<Employee>(predicate: FetchPredicate("firstName == 'Kim'"))).map(\.age) == [22])
    }

    @Test("After the parent saves or merges, the child's unchanged objects show the new values; its own changes stay", arguments: StoreKind.allCases)
    func childRefreshedWhenParentChanges(_ kind: StoreKind) throws {
        let setup = try Setup(kind)
        let parent = setup.parent
        let child = parent.newChildContext()
        let ann = try Self.employee(child, setup.company.ann.objectID)
        let bob = try Self.employee(child, setup.company.bob.objectID)
        #expect(ann.age == 30)
        bob.nickname = "bobby"

        setup.company.ann.age = 33
        setup.company.bob.age = 46
        #expect(ann.age == 30, "an unsaved change of the parent reaches a loaded object only when refreshed")
        try parent.save()
        #expect(ann.age == 33)
        #expect(bob.age == 46)
        #expect(bob.nickname == "bobby", "the child's own change stays")
        #expect(child.hasChanges)

        // Another context's save, merged by the parent, reaches the child too.
        let other = ManagedObjectContext(coordinator: parent.persistentStoreCoordinator)
        try Self.employee(other, setup.company.ann.objectID).age = 34
        try other.save()
        parent.processPendingChanges()
        #expect(ann.age == 34)

        // A sibling's save into the parent reaches the child.
        let sibling = parent.newChildContext()
        try Self.employee(sibling, setup.company.ann.objectID).age = 35
        try sibling.save()
        #expect(ann.age == 35)
    }

    @Test("Aggregates in a child refuse while a parent has unsaved changes, and answer once it saved", arguments: StoreKind.allCases)
    func aggregateRefusesUnsavedParent(_ kind: StoreKind) throws {
        let setup = try Setup(kind)
        let parent = setup.parent
        let child = parent.newChildContext()
        #expect(try child.aggregate(.max, of: "age", for: FetchRequest<Employee>()) == 60)
        setup.company.ann.age = 80
        let error = #expect(throws: ContextError.self) { try child.aggregate(.max, of: "age", for: FetchRequest<Employee>()) }
        #expect(error?.code == .unsavedChangesInParent)
        #expect(throws: ContextError.self) { try child.fetchDictionaries(FetchRequest<Employee>()) }
        try parent.save()
        #expect(try child.aggregate(.max, of: "age", for: FetchRequest<Employee>()) == 80)
    }

    @Test("Fetched results on a child follow the child's changes and what reaches it from the parent", arguments: StoreKind.allCases)
    func fetchedResultsOnChild(_ kind: StoreKind) throws {
        let setup = try Setup(kind)
        let parent = setup.parent
        let child = parent.newChildContext()
        var request = FetchRequest<Employee>(predicate: try FetchPredicate("age > 50"), sortDescriptors: Self.byName)
        request.includesPendingChanges = true
        let results = try FetchedResults(request, context: child)
        #expect(results.objects.map(\.firstName) == ["Mia", "Émile"])
        try Self.employee(child, setup.company.bob.objectID).age = 55
        child.processPendingChanges()
        #expect(results.objects.map(\.firstName) == ["Bob", "Mia", "Émile"])
        try child.save()
        #expect(results.objects.map(\.firstName) == ["Bob", "Mia", "Émile"])

        setup.company.li.age = 51
        try parent.save()
        child.processPendingChanges()
        #expect(results.objects.map(\.firstName) == ["Bob", "Li", "Mia", "Émile"])
    }

    @Test("A child's save is validated, and a refused save leaves the parent as it was", arguments: StoreKind.allCases)
    func childSaveIsValidated(_ kind: StoreKind) throws {
        let setup = try Setup(kind)
        let parent = setup.parent
        let child = parent.newChildContext()
        child.delete(try child.existingObject(with: setup.company.sales.objectID))
        #expect(throws: ValidationError.self) { try child.save() }
        #expect(child.hasChanges)
        #expect(!parent.hasChanges)
        #expect(!setup.company.sales.isDeleted)
    }

    /// Generator seed 2319: the parent's new Tag, pointed at from the child, was taken for an
    /// object deleted before it was ever saved (it is not inserted in the child) and the
    /// child's save was refused.
    @Test("A child may point at an object its parent inserted and has not saved", arguments: StoreKind.allCases)
    func childPointsAtParentInsert(_ kind: StoreKind) throws {
        let setup = try Setup(kind)
        let parent = setup.parent
        let tag = Tag(context: parent)
        tag.label = "new"
        let child = parent.newChildContext()
        let childTag = try #require(try child.existingObject(with: tag.objectID) as? Tag)
        childTag.project = try #require(try child.existingObject(with: setup.company.mercury.objectID) as? Project)
        try child.save()
        #expect(tag.project === setup.company.mercury)
        #expect(setup.company.mercury.tags.map(\.label) == ["new"])
        try parent.save()
        let reader = try setup.store.container().viewContext
        let mercury = try #require(try reader.fetch(FetchRequest<Project>(predicate: FetchPredicate("title == 'Mercury'"))).first)
        #expect(mercury.tags.map(\.label) == ["new"])
    }

    @Test("A child's undo takes back its own changes only", arguments: StoreKind.allCases)
    func childUndo(_ kind: StoreKind) throws {
        let setup = try Setup(kind)
        let parent = setup.parent
        setup.company.ann.age = 31
        let child = parent.newChildContext()
        child.undoStack = UndoStack()
        let ann = try Self.employee(child, setup.company.ann.objectID)
        #expect(ann.age == 31)
        ann.age = 40
        child.processPendingChanges()
        child.undo()
        #expect(ann.age == 31)
        #expect(setup.company.ann.age == 31)
    }

    /// A main-queue context (made on the main actor) with the company saved.
    @MainActor
    private static func mainQueueParent(_ kind: StoreKind) throws -> (TestStore, ManagedObjectContext, Company) {
        let store = try kind.newStore()
        let container = try store.container()
        let parent = ManagedObjectContext(coordinator: container.persistentStoreCoordinator, concurrencyType: .mainQueue, name: "main")
        return (store, parent, try Company.seed(in: parent))
    }

    @Test("A private-queue child of a main-queue parent, used from another thread", arguments: StoreKind.allCases)
    @MainActor
    func privateChildOfMainQueueParent(_ kind: StoreKind) async throws {
        let (store, parent, company) = try Self.mainQueueParent(kind)
        company.ann.age = 31     // unsaved: the child must see it
        let annID = company.ann.objectID
        let child = parent.newChildContext(concurrencyType: .privateQueue, name: "sheet")
        let seen = try await withCheckedThrowingContinuation { (done: CheckedContinuation<Int16, any Error>) in
            Thread.detachNewThread {
                do {
                    let age = try child.performAndWait {
                        let ann = try child.existingObject(with: annID) as! Employee
                        let age = ann.age
                        ann.age = 32
                        try child.save()
                        return age
                    }
                    done.resume(returning: age)
                } catch {
                    done.resume(throwing: error)
                }
            }
        }
        #expect(seen == 31)
        #expect(company.ann.age == 32)
        try parent.save()
        let reader = try store.container().viewContext
        #expect(try reader.fetch(FetchRequest<Employee>(predicate: FetchPredicate("firstName == 'Ann'"))).first?.age == 32)
    }

    @Test("Fetched results on a main-queue parent follow a private child's save made on another thread",
          .timeLimit(.minutes(2)), arguments: StoreKind.allCases)
    @MainActor
    func parentResultsFollowChildSaveFromAnotherThread(_ kind: StoreKind) async throws {
        let (_, parent, company) = try Self.mainQueueParent(kind)
        let results = try FetchedResults(FetchRequest<Employee>(predicate: try FetchPredicate("age > 50"), sortDescriptors: Self.byName),
                                          context: parent)
        #expect(results.objects.map(\.firstName) == ["Mia", "Émile"])
        let bobID = company.bob.objectID
        let child = parent.newChildContext(concurrencyType: .privateQueue, name: "sheet")
        // Waits for the results' own change callback, which runs on the main queue (the wait
        // ends, and the expectations below fail, if the time limit cancels the test first).
        let (heard, hearing) = AsyncStream<Void>.makeStream()
        results.onChange { _ in hearing.yield() }
        Thread.detachNewThread {
            child.performAndWait {
                (try? child.existingObject(with: bobID) as? Employee)?.age = 55
                try? child.save()
            }
        }
        var changes = heard.makeAsyncIterator()
        _ = await changes.next()
        #expect(results.objects.map(\.firstName) == ["Bob", "Mia", "Émile"])
        #expect(parent.hasChanges)
    }
}
