import Foundation
import ObjectGraph
import Testing

/// What the object-graph generator found, each as a plain example through the public API
/// (each failed before its fix); the generator's shrunk sequences are in
/// ObjectGraphGeneratorExampleTests.
@Suite("Object graph generator findings", .onOwnThreads)
struct ObjectGraphFindingsTests {
    @Test("Undoing a delete keeps the object's earlier unsaved changes, and the save writes them", arguments: StoreKind.allCases)
    func undoDeleteKeepsEarlierChanges(_ kind: StoreKind) throws {
        let store = try kind.newStore()
        let context = try store.container().viewContext
        let ann = Employee(context: context)
        ann.firstName = "Ann"
        try context.save()
        context.undoStack = UndoStack()
        ann.nickname = "annie"
        context.processPendingChanges()
        context.delete(ann)
        context.processPendingChanges()
        context.undo()
        #expect(!ann.isDeleted)
        #expect(ann.nickname == "annie")
        #expect(context.hasChanges, "the nickname is still an unsaved change")
        try context.save()
        let reader = try store.container().viewContext
        #expect(try reader.fetch(FetchRequest<Employee>()).map(\.nickname) == ["annie"], "the save wrote it")
    }

    @Test("Inserting a member an unordered to-many already has changes nothing", arguments: StoreKind.allCases)
    func insertingAnExistingMemberChangesNothing(_ kind: StoreKind) throws {
        let store = try kind.newStore()
        let context = try store.container().viewContext
        let apollo = Project(context: context)
        apollo.title = "Apollo"
        let people = ["Ann", "Bob", "Cy", "Dee"].map { name in
            let employee = Employee(context: context)
            employee.firstName = name
            return employee
        }
        apollo.members = Set(people)
        try context.save()
        for person in people {
            apollo.members.insert(person)
            person.projects.insert(apollo)
        }
        #expect(!context.hasChanges, "nothing changed")
        #expect(!apollo.isUpdated && people.allSatisfy { !$0.isUpdated }, "no object is taken for changed")
    }

    @Test("An object whose change was undone takes other contexts' saves again", arguments: StoreKind.allCases)
    func undoneChangeDoesNotBlockMerges(_ kind: StoreKind) throws {
        let store = try kind.newStore()
        let container = try store.container()
        let a = container.viewContext
        let (sales, research) = (Department(context: a), Department(context: a))
        (sales.name, research.name) = ("Sales", "Research")
        let ann = Employee(context: a)
        ann.firstName = "Ann"
        ann.department = sales
        try a.save()

        let b = container.newBackgroundContext()
        let annID = ann.objectID
        try b.performAndWait {
            b.undoStack = UndoStack()
            let theirAnn = try #require(try b.existingObject(with: annID) as? Employee)
            theirAnn.age = 99
            b.processPendingChanges()
            b.undo()
            #expect(!b.hasChanges, "the change was undone")
            try b.save()
        }
        ann.department = research
        try a.save()
        try b.performAndWait {
            let theirAnn = try #require(try b.existingObject(with: annID) as? Employee)
            #expect(theirAnn.department?.name == "Research", "B shows A's save")
        }
    }

    @Test("Two contexts appending to one ordered to-many give every member a position of its own", arguments: StoreKind.allCases)
    func concurrentAppendsKeepADefinedOrder(_ kind: StoreKind) throws {
        let (store, a, apollo, b, theirs) = try apolloReadByAnotherContainer(kind)

        let t3 = Tag(context: a)
        t3.label = "t3"
        apollo.tags.append(t3)
        try a.save()
        let t4 = Tag(context: b)
        t4.label = "t4"
        theirs.tags.append(t4)
        try b.save()

        // Every member keeps a position of its own: B's list in B's order, then the member
        // only the store knew of (A's t3), after it — read the same way by every reader.
        for _ in 0..<2 {
            let reader = try store.container().viewContext
            let project = try #require(try reader.existingObject(with: apollo.objectID) as? Project)
            #expect(project.tags.map(\.label) == ["t1", "t2", "t4", "t3"])
        }
    }

    @Test("A save of an ordered to-many leaves alone the positions of members another save moved elsewhere", arguments: StoreKind.allCases)
    func staleMembersKeepTheirNewOwnersOrder(_ kind: StoreKind) throws {
        let (store, a, apollo, b, theirApollo) = try apolloReadByAnotherContainer(kind)

        // A moves both tags to a new project, Gemini, t2 first, and saves.
        let gemini = Project(context: a)
        gemini.title = "Gemini"
        let (t1, t2) = (apollo.tags[0], apollo.tags[1])
        t2.project = gemini
        t1.project = gemini
        try a.save()
        #expect(gemini.tags.map(\.label) == ["t2", "t1"])

        // B, still showing both in Apollo, appends a tag of its own to Apollo and saves.
        let t3 = Tag(context: b)
        t3.label = "t3"
        theirApollo.tags.append(t3)
        try b.save()

        let reader = try store.container().viewContext
        let readGemini = try #require(try reader.existingObject(with: gemini.objectID) as? Project)
        let readApollo = try #require(try reader.existingObject(with: apollo.objectID) as? Project)
        #expect(readGemini.tags.map(\.label) == ["t2", "t1"], "B's stale list of Apollo did not renumber Gemini's tags")
        #expect(readApollo.tags.map(\.label) == ["t3"])
    }

    /// A store whose project Apollo has tags t1 and t2, saved by A (merge policy object
    /// trump), and B, the view context of another container, which read Apollo's tags and
    /// merges nothing.
    private func apolloReadByAnotherContainer(_ kind: StoreKind) throws
        -> (store: TestStore, a: ManagedObjectContext, apollo: Project, b: ManagedObjectContext, theirApollo: Project) {
        let store = try kind.newStore()
        let a = try store.container().viewContext
        a.mergePolicy = .mergeByPropertyObjectTrump
        let apollo = Project(context: a)
        apollo.title = "Apollo"
        for label in ["t1", "t2"] {
            let tag = Tag(context: a)
            tag.label = label
            apollo.tags.append(tag)
        }
        try a.save()

        let b = try store.container().viewContext
        b.automaticallyMergesChanges = false
        b.mergePolicy = .mergeByPropertyObjectTrump
        let theirApollo = try #require(try b.existingObject(with: apollo.objectID) as? Project)
        #expect(theirApollo.tags.map(\.label) == ["t1", "t2"])
        return (store, a, apollo, b, theirApollo)
    }
}
