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
}
