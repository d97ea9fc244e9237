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

    // MARK: Saves from an older view: the owner an object really left

    /// Moves Ann to Research in `view` and saves; then `stale`, which read Ann in Sales and has
    /// not merged that save, sends her to Legal (or deletes her) under the object-trump policy.
    /// Its save names Sales and Legal, the owners it knew, not Research.
    private static func moveFromAnOlderView(_ stale: ManagedObjectContext, _ view: ManagedObjectContext, _ company: Company,
                                            deleting: Bool) throws {
        stale.mergePolicy = .mergeByPropertyObjectTrump
        let staleAnn = try #require(try stale.fetch(FetchRequest<Employee>(predicate: FetchPredicate("firstName == 'Ann'"))).first)
        #expect(staleAnn.department?.name == "Sales")
        company.ann.department = company.research
        try view.save()
        if deleting {
            stale.delete(staleAnn)
        } else {
            let legal = try #require(try stale.fetch(FetchRequest<Department>(predicate: FetchPredicate("name == 'Legal'"))).first)
            staleAnn.department = legal
        }
    }

    @Test("A save from another container's older view moves an object: merging it takes the object out of the owner it really left",
          arguments: StoreKind.allCases, [false, true])
    func moveFromAnotherContainersOlderView(_ kind: StoreKind, deleting: Bool) throws {
        let store = try kind.newStore()
        let mine = try store.container()
        let view = mine.viewContext
        let company = try Company.seed(in: view)
        let theirs = try store.container().viewContext
        theirs.automaticallyMergesChanges = false
        try Self.moveFromAnOlderView(theirs, view, company, deleting: deleting)
        #expect(company.research.employees.map(\.firstName).sorted() == ["Ann", "Li", "Zed"])

        let heard = Locked<ContextChanges?>(nil)
        let token = theirs.addObserver(for: .didSave) { changes in heard.withLock { $0 = changes } }
        try theirs.save()
        theirs.removeObserver(token)
        if kind.notifiesOtherContainers {
            #expect(eventually { view.performAndWait { !company.research.employees.contains(company.ann) } })
        } else {
            view.mergeChanges(fromSaveOf: try #require(heard.value))
        }

        #expect(company.research.employees.map(\.firstName).sorted() == ["Li", "Zed"],
                "Ann left Research in the other save, though that save did not name Research")
        #expect(!view.hasChanges)
        if !deleting {
            #expect(company.ann.department === company.legal)
            #expect(company.legal.employees.map(\.firstName) == ["Ann"])
        }
        let fresh = try store.container().viewContext
        let research = try #require(try fresh.fetch(FetchRequest<Department>(predicate: FetchPredicate("name == 'Research'"))).first)
        #expect(research.employees.map(\.firstName).sorted() == ["Li", "Zed"], "the store agrees")
    }

    @Test("A save from a context of the same container whose view was older (an unsaved change kept through a merge) moves an object: the merging context takes it out of the owner it really left",
          arguments: StoreKind.allCases, [false, true])
    func moveFromAnOlderViewInTheSameContainer(_ kind: StoreKind, deleting: Bool) throws {
        let store = try kind.newStore()
        let container = try store.container()
        let view = container.viewContext
        let company = try Company.seed(in: view)
        let background = container.newBackgroundContext()
        background.automaticallyMergesChanges = false
        try background.performAndWait { try Self.moveFromAnOlderView(background, view, company, deleting: deleting) }
        try background.performAndWait { try background.save() }

        #expect(company.research.employees.map(\.firstName).sorted() == ["Li", "Zed"],
                "Ann left Research in the other save, though that save did not name Research")
        #expect(!view.hasChanges)
        if !deleting { #expect(company.legal.employees.map(\.firstName) == ["Ann"]) }
    }
}
