import Foundation
import ObjectGraph
import Testing

/// Fetched results judge what other contexts save against the store where this context has
/// no loaded copy: an object never fetched here (or turned back into a fault) that starts or
/// stops matching joins or leaves the results, and so does everything after an inbox
/// overflow (a "refresh everything"). The results then equal a fresh fetch.
@Suite("Fetched results follow other contexts' saves", .onOwnThreads)
struct FetchedResultsMergeTests {
    /// Five employees aged 30, 35, 45, 50, 60 (Ann, Bob, Cy, Dee, Eve), saved through a
    /// container's view context; the results over `age > 40` sorted by first name.
    private struct Staff {
        let store: TestStore
        let container: PersistentContainer
        let view: ManagedObjectContext
        let ids: [String: ObjectID]

        init(_ kind: StoreKind) throws {
            store = try kind.newStore()
            container = try store.container()
            view = container.viewContext
            var ids: [String: ObjectID] = [:]
            var made: [String: Employee] = [:]
            for (name, age) in [("Ann", 30), ("Bob", 35), ("Cy", 45), ("Dee", 50), ("Eve", 60)] {
                let employee = Employee(context: view)
                (employee.firstName, employee.age) = (name, Int16(age))
                made[name] = employee
            }
            try view.save()
            for (name, employee) in made { ids[name] = employee.objectID }
            self.ids = ids
            // The view context starts with nothing registered: none of them was fetched here.
            view.reset()
        }

        func results() throws -> FetchedResults<Employee> {
            try FetchedResults(FetchRequest<Employee>(predicate: try FetchPredicate("age > 40"), sortDescriptors: [SortKey("firstName")]),
                               context: view)
        }

        /// Sets ages in a background context of the same container and saves.
        func setAges(_ ages: [String: Int16]) throws {
            let background = container.newBackgroundContext()
            try background.performAndWait {
                for (name, age) in ages {
                    let employee = try #require(try background.existingObject(with: ids[name]!) as? Employee)
                    employee.age = age
                }
                try background.save()
            }
        }

        /// What a fetch in the view context finds now.
        func fetchedNames() throws -> [String] {
            try view.fetch(FetchRequest<Employee>(predicate: try FetchPredicate("age > 40"), sortDescriptors: [SortKey("firstName")])).map(\.firstName)
        }
    }

    @Test("An object never fetched here that starts matching joins the results after the merge", arguments: StoreKind.allCases)
    func unregisteredObjectStartsMatching(_ kind: StoreKind) throws {
        let staff = try Staff(kind)
        var request = FetchRequest<Employee>(predicate: try FetchPredicate("age > 55"), sortDescriptors: [SortKey("firstName")])
        request.includesPendingChanges = true
        let results = try FetchedResults(request, context: staff.view)
        #expect(results.objects.map(\.firstName) == ["Eve"])
        #expect(staff.view.registeredObject(for: staff.ids["Ann"]!) == nil, "Ann was never fetched into the view context")
        try staff.setAges(["Ann": 58])
        staff.view.processPendingChanges()
        #expect(results.objects.map(\.firstName) == ["Ann", "Eve"], "Ann now matches: a fetch finds her, so must the results")
    }

    @Test("Results that start empty take an existing object raised into the predicate", arguments: StoreKind.allCases)
    func emptyResultsTakeAnObject(_ kind: StoreKind) throws {
        let staff = try Staff(kind)
        let results = try FetchedResults(FetchRequest<Employee>(predicate: try FetchPredicate("age > 70")), context: staff.view)
        #expect(results.objects.isEmpty)
        try staff.setAges(["Bob": 75])
        staff.view.processPendingChanges()
        #expect(results.objects.map(\.firstName) == ["Bob"])
    }

    @Test("A registered fault that starts or stops matching is judged on its new row", arguments: StoreKind.allCases)
    func faultStartsAndStopsMatching(_ kind: StoreKind) throws {
        let staff = try Staff(kind)
        let results = try staff.results()
        #expect(results.objects.map(\.firstName) == ["Cy", "Dee", "Eve"])
        let ann = staff.view.object(with: staff.ids["Ann"]!)
        #expect(ann.isFault, "Ann is registered, not loaded")
        let dee = try #require(results.objects.first { $0.firstName == "Dee" })
        staff.view.refresh(dee, mergeChanges: false)
        #expect(dee.isFault)
        try staff.setAges(["Ann": 41, "Dee": 20])
        staff.view.processPendingChanges()
        #expect(results.objects.map(\.firstName) == ["Ann", "Cy", "Eve"])
        #expect(try staff.fetchedNames() == ["Ann", "Cy", "Eve"])
    }

    @Test("A loaded object that stops matching leaves the results", arguments: StoreKind.allCases)
    func loadedObjectStopsMatching(_ kind: StoreKind) throws {
        let staff = try Staff(kind)
        let results = try staff.results()
        try staff.setAges(["Cy": 40, "Bob": 90])
        staff.view.processPendingChanges()
        #expect(results.objects.map(\.firstName) == ["Bob", "Dee", "Eve"])
    }

    @Test("After an inbox overflow the results are fetched again", arguments: StoreKind.allCases)
    func overflowRefetches(_ kind: StoreKind) throws {
        let staff = try Staff(kind)
        let results = try staff.results()
        var heard: [FetchedResultsChange] = []
        results.onChange { heard.append($0) }
        staff.view.mergeInboxCapacity = 1
        try staff.setAges(["Ann": 80, "Bob": 81, "Eve": 10])
        staff.view.processPendingChanges()
        #expect(results.objects.map(\.firstName) == ["Ann", "Bob", "Cy", "Dee"])
        #expect(try staff.fetchedNames() == ["Ann", "Bob", "Cy", "Dee"])
        #expect(!heard.isEmpty, "observers hear the change")
    }

    @Test("A save through another container reaches the results where the store pushes it", arguments: StoreKind.allCases)
    func otherContainer(_ kind: StoreKind) throws {
        let staff = try Staff(kind)
        let results = try staff.results()
        let other = try staff.store.container().viewContext
        let heard = Locked<ContextChanges?>(nil)
        other.addObserver(for: .didSave) { changes in heard.withLock { $0 = changes } }
        let bob = try #require(try other.existingObject(with: staff.ids["Bob"]!) as? Employee)
        bob.age = 44
        try other.save()
        if kind.notifiesOtherContainers {
            #expect(eventually {
                staff.view.processPendingChanges()
                return results.objects.map(\.firstName) == ["Bob", "Cy", "Dee", "Eve"]
            }, "the server store pushes the commit: Bob joins")
        } else {
            // Not pushed between containers on SQLite: merged by hand, as an application does.
            staff.view.mergeChanges(fromSaveOf: try #require(heard.value))
            #expect(results.objects.map(\.firstName) == ["Bob", "Cy", "Dee", "Eve"])
        }
    }
}
