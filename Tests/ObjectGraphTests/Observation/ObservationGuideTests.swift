import Foundation
import ObjectGraph
import XCTest

/// The examples of docs/observation.md, as written there, run against a real store.
final class ObservationGuideTests: StoreTestCase {
    func testTheCommitStreamAndCallbackExamples() throws {
        let container = try makeContainer(Models.company)
        let stream = container.changes
        let watcher = Task {
            for await change in stream {
                print(change.inserted, change.updated, change.deleted)   // [ObjectID]
                print(change.changedKeys)                                // [ObjectID: Set<String>]
            }
        }
        let heard = expectation(description: "the callback hears the commit")
        let observation = container.addChangeObserver { change in
            print("committed by \(change.contextName): \(change)")
            heard.fulfill()
        }
        let background = container.newBackgroundContext()
        try background.performAndWait {
            let dee = Employee(context: background)
            dee.firstName = "Dee"
            try background.save()                 // both observers hear it before save() returns
        }
        wait(for: [heard], timeout: 120)
        observation.cancel()                      // or let the observation go
        watcher.cancel()
    }

    func testTheFetchedResultsExampleAndItsApplyFunction() throws {
        let container = try makeContainer(Models.company)
        let view = container.viewContext
        let sales = Department(context: view)
        sales.name = "Sales"
        let ann = Employee(context: view)
        ann.lastName = "Lee"; ann.age = 50; ann.department = sales
        try view.save()

        var request = FetchRequest<Employee>(sortDescriptors: [SortKey("department.name"), SortKey("lastName")])
        request.predicate = try FetchPredicate("age > %@", 40)
        let results = try FetchedResults(request, context: container.viewContext, sectionKeyPath: "department.name")
        for section in results.sections {
            print(section.name, section.objects.map(\.lastName))
        }
        var old = results.sections.map { $0.objects.map(\.lastName) }
        var applied = 0
        results.onChange { [unowned results] change in   // the results keep their handlers: no strong capture
            switch change {
            case .changes(let diff):
                print(diff)
                let new = results.sections.map { $0.objects.map(\.lastName) }
                XCTAssertEqual(self.apply(diff, to: old, new: new), new)
                old = new
                applied += 1
            case .reload: print("reload: \(results.objects.count) objects")
            case .failed(let error): print(error)
            }
        }
        let support = Department(context: view)
        support.name = "Support"
        let bob = Employee(context: view)
        bob.lastName = "Moss"; bob.age = 45; bob.department = support
        try view.save()
        ann.department = support
        try view.save()
        XCTAssertEqual(applied, 2)
        XCTAssertEqual(results.sections.map(\.name), ["Support"])
    }

    /// The guide's `apply`, verbatim.
    private func apply(_ diff: FetchedResultsDiff, to old: [[String]], new: [[String]]) -> [[String]] {
        var sections = old
        for p in (diff.deletedItems + diff.movedItems.map(\.from)).sorted(by: >) { sections[p.section].remove(at: p.item) }
        for s in diff.deletedSections.sorted(by: >) { sections.remove(at: s) }
        for s in diff.insertedSections.sorted() { sections.insert([], at: s) }
        for p in (diff.insertedItems + diff.movedItems.map(\.to)).sorted() {
            sections[p.section].insert(new[p.section][p.item], at: p.item)
        }
        for p in diff.updatedItems { sections[p.section][p.item] = new[p.section][p.item] }   // changed in place
        return sections
    }

    func testTheObjectObservationExample() throws {
        let container = try makeContainer(Models.company)
        let view = container.viewContext
        Employee(context: view).firstName = "John"
        try view.save()
        let john = try container.viewContext.fetch(FetchRequest<Employee>()).first!
        let observation = john.observe()             // an ObjectObservation
        var log: [String] = []
        observation.onChange { change in
            switch change {
            case .updated(let keys): log.append("John changed: \(keys.sorted())")
            case .deleted: log.append("John is gone")
            }
        }
        john.age = 43
        try view.save()
        view.delete(john)
        try view.save()
        XCTAssertEqual(log, ["John changed: [\"age\"]", "John is gone"])
    }
}
