import Foundation
import ObjectGraph
import Testing

/// Unsaved relationship changes survive `refresh(_:mergeChanges: true)` and merges of other
/// contexts' saves: the save that follows writes them (join rows deleted and inserted,
/// foreign keys and order columns written), whatever the refresh re-read from the store.
@Suite("Refresh and merge keep pending relationship changes", .onOwnThreads)
struct RefreshMergeTests {
    /// A project with members Ann and Bob and tags a, b, c; a department with Ann and Bob.
    private struct Graph {
        let store: TestStore
        let container: PersistentContainer
        let context: ManagedObjectContext
        let project: Project
        let ann, bob: Employee
        let tags: [Tag]
        let department: Department

        init(_ kind: StoreKind) throws {
            store = try kind.newStore()
            container = try store.container()
            context = container.viewContext
            context.automaticallyMergesChanges = false
            let context = context
            func employee(_ name: String) -> Employee {
                let employee = Employee(context: context)
                employee.firstName = name
                return employee
            }
            (ann, bob) = (employee("Ann"), employee("Bob"))
            project = Project(context: context)
            project.title = "Apollo"
            project.members = [ann, bob]
            tags = ["a", "b", "c"].map { label in
                let tag = Tag(context: context)
                tag.label = label
                return tag
            }
            project.tags = tags
            department = Department(context: context)
            department.name = "Sales"
            department.employees = [ann, bob]
            try context.save()
        }

        /// What a fresh container reads: members, tags in order, department's employees, title.
        func stored() throws -> (members: [String], tags: [String], employees: [String], title: String) {
            let reader = try store.container().viewContext
            let project = try #require(try reader.fetch(FetchRequest<Project>()).first)
            let department = try #require(try reader.fetch(FetchRequest<Department>()).first)
            return (project.members.map(\.firstName).sorted(), project.tags.map(\.label),
                    department.employees.map(\.firstName).sorted(), project.title)
        }

        /// Saves, then expects the store to hold Ann as the only member and `title`.
        func saveAndExpectOnlyAnnWithTitle(_ title: String) throws {
            try context.save()
            let stored = try stored()
            #expect(stored.members == ["Ann"])
            #expect(stored.title == title)
        }

        /// Another container changes the project's title and every employee's nickname (and
        /// so their row versions) and saves; returns that save's changes, as its `.didSave`
        /// observers heard them.
        func retitleElsewhere(_ title: String) throws -> ContextChanges {
            let other = try store.container().viewContext
            let heard = Locked<ContextChanges?>(nil)
            other.addObserver(for: .didSave) { changes in heard.withLock { $0 = changes } }
            let theirs = try #require(try other.fetch(FetchRequest<Project>()).first)
            theirs.title = title
            for employee in try other.fetch(FetchRequest<Employee>()) { employee.nickname = title }
            try other.save()
            return try #require(heard.value)
        }
    }

    @Test("A removal from a many-to-many survives refresh(mergeChanges: true) of both sides", arguments: StoreKind.allCases)
    func manyToManyRemovalSurvivesRefresh(_ kind: StoreKind) throws {
        let graph = try Graph(kind)
        graph.project.members.remove(graph.bob)
        #expect(graph.bob.projects.isEmpty, "the inverse follows in memory")
        graph.context.refresh(graph.project, mergeChanges: true)
        graph.context.refresh(graph.bob, mergeChanges: true)
        #expect(graph.project.members == [graph.ann], "the refreshed object still shows the removal")
        #expect(graph.bob.projects.isEmpty)
        try graph.context.save()
        #expect(try graph.stored().members == ["Ann"], "the join row of the removed member is deleted")
    }

    @Test("A removal from a many-to-many survives refreshing only the other side", arguments: StoreKind.allCases)
    func manyToManyRemovalSurvivesRefreshOfMember(_ kind: StoreKind) throws {
        let graph = try Graph(kind)
        graph.bob.projects.remove(graph.project)
        graph.context.refresh(graph.bob, mergeChanges: true)
        graph.context.refresh(graph.project, mergeChanges: true)
        try graph.context.save()
        #expect(try graph.stored().members == ["Ann"])
    }

    @Test("A many-to-many removal survives merging another container's save of the same object", arguments: StoreKind.allCases)
    func manyToManyRemovalSurvivesMerge(_ kind: StoreKind) throws {
        let graph = try Graph(kind)
        graph.project.members.remove(graph.bob)
        let changes = try graph.retitleElsewhere("Apollo 11")
        #expect(changes.updated.contains(graph.project.objectID) && changes.updated.contains(graph.bob.objectID))
        graph.context.mergeChanges(fromSaveOf: changes)
        #expect(graph.project.title == "Apollo 11", "the merge reads the other save's value")
        #expect(graph.bob.nickname == "Apollo 11")
        #expect(graph.project.members == [graph.ann], "and keeps the pending removal")
        try graph.saveAndExpectOnlyAnnWithTitle("Apollo 11")
    }

    @Test("A many-to-many removal survives another context's save merged into this one", arguments: StoreKind.allCases)
    func manyToManyRemovalSurvivesMergeWithinContainer(_ kind: StoreKind) throws {
        let graph = try Graph(kind)
        graph.context.automaticallyMergesChanges = true
        graph.context.mergePolicy = .mergeByPropertyObjectTrump
        graph.project.members.remove(graph.bob)
        let background = graph.container.newBackgroundContext()
        let id = graph.project.objectID
        try background.performAndWait {
            let theirs = try #require(try background.existingObject(with: id) as? Project)
            theirs.title = "Apollo 11"
            try background.save()
        }
        graph.context.processPendingChanges()
        try graph.saveAndExpectOnlyAnnWithTitle("Apollo 11")
    }

    @Test("An addition to a many-to-many survives refresh, and another container's addition is kept", arguments: StoreKind.allCases)
    func manyToManyAdditionMergesWithTheStore(_ kind: StoreKind) throws {
        let graph = try Graph(kind)
        let cy = Employee(context: graph.context)
        cy.firstName = "Cy"
        try graph.context.save()
        graph.project.members.remove(graph.bob)
        graph.project.members.insert(cy)

        let other = try graph.store.container().viewContext
        let theirs = try #require(try other.fetch(FetchRequest<Project>()).first)
        let dee = Employee(context: other)
        dee.firstName = "Dee"
        theirs.members.insert(dee)
        try other.save()

        graph.context.refresh(graph.project, mergeChanges: true)
        #expect(graph.project.members.map(\.firstName).sorted() == ["Ann", "Cy", "Dee"],
                "the store's members with this context's removal and addition re-applied")
        try graph.context.save()
        #expect(try graph.stored().members == ["Ann", "Cy", "Dee"])
    }

    @Test("A removal from an ordered to-many and a reorder survive refresh(mergeChanges: true)", arguments: StoreKind.allCases)
    func orderedToManySurvivesRefresh(_ kind: StoreKind) throws {
        let graph = try Graph(kind)
        let (a, b, c) = (graph.tags[0], graph.tags[1], graph.tags[2])
        graph.project.tags = [c, a]
        #expect(b.project == nil)
        graph.context.refresh(graph.project, mergeChanges: true)
        graph.context.refresh(b, mergeChanges: true)
        #expect(graph.project.tags.map(\.label) == ["c", "a"])
        try graph.context.save()
        #expect(try graph.stored().tags == ["c", "a"])
    }

    @Test("A removal from a one-to-many survives refresh(mergeChanges: true) and a merge", arguments: StoreKind.allCases)
    func oneToManySurvivesRefreshAndMerge(_ kind: StoreKind) throws {
        let graph = try Graph(kind)
        graph.department.employees.remove(graph.bob)
        #expect(graph.bob.department == nil)
        graph.context.refresh(graph.department, mergeChanges: true)
        graph.context.refresh(graph.bob, mergeChanges: true)
        #expect(graph.department.employees == [graph.ann])
        let changes = try graph.retitleElsewhere("Apollo 11")
        graph.context.mergeChanges(fromSaveOf: changes)
        try graph.context.save()
        #expect(try graph.stored().employees == ["Ann"])
    }
}
