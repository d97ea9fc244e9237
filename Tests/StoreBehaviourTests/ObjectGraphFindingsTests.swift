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
}
