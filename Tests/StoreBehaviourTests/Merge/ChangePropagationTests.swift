import Foundation
import ObjectGraph
import Testing

/// What a commit in one context does to the others: every context of one container merges
/// it (both kinds); the contexts of *another* container on the same store receive it only
/// where the store promises it (`StoreKind.notifiesOtherContainers`).
@Suite("Changes reaching other contexts", .onOwnThreads)
struct ChangePropagationTests {
    @Test("A background context's save reaches the view context of the same container", arguments: StoreKind.allCases)
    func withinOneContainer(_ kind: StoreKind) throws {
        let store = try kind.newStore()
        let container = try store.container()
        let view = container.viewContext
        let company = try Company.seed(in: view)
        let heardUpdated = Locked<Set<ObjectID>>([])
        let heardDeleted = Locked<Set<ObjectID>>([])
        let token = view.addObserver(for: .objectsDidChange) { changes in
            heardUpdated.withLock { $0.formUnion(changes.updated) }
            heardDeleted.withLock { $0.formUnion(changes.deleted) }
        }
        defer { view.removeObserver(token) }

        let (annID, bobID) = (company.ann.objectID, company.bob.objectID)
        let background = container.newBackgroundContext()
        try background.performAndWait {
            let ann = try background.existingObject(with: annID) as! Employee
            ann.salary = 5555
            ann.projects = []
            background.delete(try background.existingObject(with: bobID))
            let cy = Employee(context: background)
            cy.firstName = "Cy"
            cy.department = ann.department
            try background.save()
        }

        #expect(company.ann.salary == 5555, "the registered object shows the saved value")
        #expect(!company.ann.hasChanges)
        #expect(company.bob.isDeleted)
        #expect(view.registeredObject(for: bobID) == nil, "the merged delete leaves the context")
        #expect(!view.hasChanges, "merged values are not unsaved changes")
        #expect(company.apollo.members.map(\.firstName).sorted() == ["Mia"])
        #expect(company.sales.employees.map(\.firstName).sorted() == ["Ann", "Cy", "Mia"])
        #expect(try view.employeeNames("department.name == 'Sales'") == ["Ann", "Cy", "Mia"])
        #expect(heardUpdated.value.contains(annID), "observers hear the merged update")
        #expect(heardDeleted.value.contains(bobID), "and the merged delete")
    }

    @Test("A save through another container on the same store: reaches this one's objects where the store promises it",
          arguments: StoreKind.allCases)
    func acrossContainers(_ kind: StoreKind) throws {
        let store = try kind.newStore()
        let mine = try store.container()
        let company = try Company.seed(in: mine.viewContext)
        let view = mine.viewContext

        let theirs = try store.container().viewContext
        let theirAnn = try #require(try theirs.fetch(FetchRequest<Employee>(predicate: FetchPredicate("firstName == 'Ann'"))).first)
        theirAnn.salary = 5555
        theirs.delete(try #require(try theirs.fetch(FetchRequest<Employee>(predicate: FetchPredicate("firstName == 'Bob'"))).first))
        let cy = Employee(context: theirs)
        cy.firstName = "Cy"
        try theirs.save()

        #expect(try view.employeeNames("firstName IN {'Bob', 'Cy'}") == ["Cy"], "a fetch reads the other container's rows (every kind)")
        if kind.notifiesOtherContainers {
            #expect(eventually { company.ann.salary == 5555 }, "the registered object receives the other container's value")
            #expect(eventually { company.bob.isDeleted }, "and its delete")
            #expect(!view.hasChanges)
        } else {
            // Promised not to: the other coordinator's save is not announced to this one.
            #expect(company.ann.salary == 5000.5, "not notified: the registered object keeps what it read")
            view.refresh(company.ann, mergeChanges: false)
            #expect(company.ann.salary == 5555, "a refresh reads the other container's value")
        }
    }
}
