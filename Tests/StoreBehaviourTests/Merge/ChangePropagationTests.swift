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

    @Test("A save merged into an object with unsaved changes: the properties it did not change take the saved values, its inverse relationships agree",
          arguments: StoreKind.allCases)
    func mergeIntoAnObjectWithUnsavedChanges(_ kind: StoreKind) throws {
        let store = try kind.newStore()
        let container = try store.container()
        let view = container.viewContext
        let company = try Company.seed(in: view)
        // Unsaved here: Sales's budget, and Olga joining it (a change to its employees too).
        company.sales.budget = 1
        company.olga.department = company.sales

        let (annID, salesID) = (company.ann.objectID, company.sales.objectID)
        let background = container.newBackgroundContext()
        try background.performAndWait {
            (try background.existingObject(with: annID) as! Employee).department = nil
            (try background.existingObject(with: salesID) as! Department).name = "Sales EMEA"
            try background.save()
        }

        #expect(company.ann.department == nil)
        #expect(company.sales.employees.map(\.firstName).sorted() == ["Bob", "Mia", "olga"],
                "Ann left in the other save, Olga joined here: the to-many agrees with both")
        #expect(company.sales.name == "Sales EMEA", "a property changed only by the other save takes its value")
        #expect(company.sales.budget == 1, "the unsaved change stays")
        #expect(company.sales.hasChanges)
        // Its save still meets the newer row under the merge policy.
        #expect(throws: MergeConflictError.self) { try view.save() }
        view.mergePolicy = .mergeByPropertyObjectTrump
        try view.save()

        let fresh = try store.container().viewContext
        let sales = try #require(try fresh.fetch(FetchRequest<Department>(predicate: FetchPredicate("name == 'Sales EMEA'"))).first)
        #expect(sales.budget == 1)
        #expect(sales.employees.map(\.firstName).sorted() == ["Bob", "Mia", "olga"])
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
