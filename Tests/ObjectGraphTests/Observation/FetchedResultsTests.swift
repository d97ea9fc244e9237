import Foundation
import ObjectGraph
import XCTest

/// Sections as plain values: each section's name and its objects' last names.
typealias NamedSections = [(name: String, items: [String])]

/// Applies `diff` to `old` in the documented order, taking inserted and updated items from `new`.
func apply(_ diff: FetchedResultsDiff, to old: NamedSections, new: NamedSections,
           file: StaticString = #filePath, line: UInt = #line) -> NamedSections {
    var sections = old
    for position in (diff.deletedItems + diff.movedItems.map(\.from)).sorted(by: >) {
        sections[position.section].items.remove(at: position.item)
    }
    for index in diff.deletedSections.sorted(by: >) {
        XCTAssertEqual(sections[index].items, [], "a deleted section is empty once its items are removed", file: file, line: line)
        sections.remove(at: index)
    }
    for index in diff.insertedSections.sorted() { sections.insert((new[index].name, []), at: index) }
    for position in (diff.insertedItems + diff.movedItems.map(\.to)).sorted() {
        sections[position.section].items.insert(new[position.section].items[position.item], at: position.item)
    }
    // An object that stayed in place but changed (here: its name) is refreshed where it is.
    for position in diff.updatedItems { sections[position.section].items[position.item] = new[position.section].items[position.item] }
    return sections
}

final class FetchedResultsTests: StoreTestCase {
    private func named<T: ManagedObject>(_ results: FetchedResults<T>) -> NamedSections where T: Employee {
        results.sections.map { ($0.name, $0.objects.map(\.lastName)) }
    }

    private func assertSame(_ a: NamedSections, _ b: NamedSections, _ message: String, file: StaticString = #filePath, line: UInt = #line) {
        XCTAssertEqual(a.map(\.name), b.map(\.name), "section names: " + message, file: file, line: line)
        XCTAssertEqual(a.map(\.items), b.map(\.items), "items: " + message, file: file, line: line)
    }

    /// Random inserts, updates (that move objects in and out of the predicate, within and
    /// across sections) and deletes, made in the observed context or committed by a
    /// background context and merged; after each step, applying the reported diff to the old
    /// sections gives exactly a fresh fetch.
    private func runRandomSequence(seed: UInt64, sectionKeyPath: String?, sortKeys: [SortKey], steps: Int) throws {
        let container = try makeContainer(Models.company, url: directory.appendingPathComponent("seed\(seed)-\(sectionKeyPath ?? "none").sqlite"))
        let context = container.viewContext
        context.mergePolicy = .mergeByPropertyObjectTrump   // unsaved edits meet background commits
        var random = SplitMix(seed: seed)
        let departments = (0..<3).map { index -> Department in
            let department = Department(context: context)
            department.name = "D\(index)"
            return department
        }
        var serial = 0
        func newName() -> String { serial += 1; return String(format: "n%04d", serial) }
        for _ in 0..<12 {
            let e = Employee(context: context)
            e.lastName = newName()
            e.age = Int.random(in: 0...60, using: &random)
            e.salary = Double(Int.random(in: 1...3, using: &random))
            e.department = departments.randomElement(using: &random)
        }
        try context.save()

        var request = FetchRequest<Employee>(sortDescriptors: sortKeys)
        request.predicate = try FetchPredicate("age > %@", 20)
        let results = try FetchedResults(request, context: context, sectionKeyPath: sectionKeyPath)
        // Each change with the sections right after it (a save can announce twice: its
        // pending changes, then values its merge policy took from the store).
        var events: [(change: FetchedResultsChange, after: NamedSections)] = []
        results.onChange { [unowned results] change in events.append((change, self.named(results))) }
        let background = container.newBackgroundContext()
        background.mergePolicy = .mergeByPropertyObjectTrump

        for step in 0..<steps {
            let old = named(results)
            events.removeAll()
            let everyone = try context.fetch(FetchRequest<Employee>(sortDescriptors: [SortKey("lastName")]))
            let inBackground = Bool.random(using: &random)
            let operations = Int.random(in: 1...4, using: &random)
            var plan: [(kind: Int, target: ObjectID?, age: Int, salary: Double, department: ObjectID, name: String)] = []
            for _ in 0..<operations {
                plan.append((Int.random(in: 0...4, using: &random), everyone.randomElement(using: &random)?.objectID,
                             Int.random(in: 0...60, using: &random), Double(Int.random(in: 1...3, using: &random)),
                             departments.randomElement(using: &random)!.objectID, newName()))
            }
            func perform(in target: ManagedObjectContext) throws {
                var deleted = Set<ObjectID>()
                for op in plan {
                    switch op.kind {
                    case 0:
                        let e = Employee(context: target)
                        e.lastName = op.name
                        e.age = op.age
                        e.salary = op.salary
                        e.department = (target.object(with: op.department) as! Department)
                    case 1, 2, 3:
                        guard let id = op.target, !deleted.contains(id), let e = try? target.existingObject(with: id) as? Employee else { continue }
                        if op.kind == 1 { e.age = op.age }
                        if op.kind == 2 { e.lastName = op.name; e.salary = op.salary }
                        if op.kind == 3 { e.department = (target.object(with: op.department) as! Department); e.firstName = op.name }
                    default:
                        guard let id = op.target, !deleted.contains(id), let e = try? target.existingObject(with: id) else { continue }
                        target.delete(e)
                        deleted.insert(id)
                    }
                }
                try target.save()
            }
            if inBackground {
                try background.performAndWait { try perform(in: background) }
                context.processPendingChanges()   // merges the commit now
            } else if Bool.random(using: &random) {
                try perform(in: context)
            } else {
                // Unsaved changes count too, announced when pending changes are processed.
                for op in plan where op.kind == 1 {
                    if let id = op.target, let e = try? context.existingObject(with: id) as? Employee, !e.isDeleted { e.age = op.age }
                }
                context.processPendingChanges()
            }
            let fresh = try FetchedResults(request, context: context, sectionKeyPath: sectionKeyPath)
            let expected = named(fresh)
            fresh.cancel()
            let message = "seed \(seed), step \(step)"
            assertSame(named(results), expected, message)
            var rebuilt = old
            for event in events {
                guard case .changes(let diff) = event.change else { return XCTFail("\(message): unexpected \(event.change)") }
                rebuilt = apply(diff, to: rebuilt, new: event.after)
                assertSame(rebuilt, event.after, "applying one diff, " + message)
            }
            assertSame(rebuilt, expected, "applying the diff, " + message)
            let plainFetch = try context.fetch(request).map(\.lastName)
            XCTAssertEqual(results.objects.map(\.lastName).sorted(), plainFetch.sorted(), message)
        }
    }

    func testRandomChangesWithoutSectionsProduceDiffsThatRebuildAFreshFetch() throws {
        for seed: UInt64 in 1...12 { try runRandomSequence(seed: seed, sectionKeyPath: nil, sortKeys: [SortKey("lastName")], steps: 25) }
    }

    func testRandomChangesInSectionsProduceDiffsThatRebuildAFreshFetch() throws {
        for seed: UInt64 in 20...31 {
            try runRandomSequence(seed: seed, sectionKeyPath: "salary", sortKeys: [SortKey("salary"), SortKey("lastName", ascending: false)], steps: 25)
        }
    }

    func testRandomChangesInSectionsThroughARelationshipAreRefetchedAndDiffed() throws {
        for seed: UInt64 in 40...47 {
            try runRandomSequence(seed: seed, sectionKeyPath: "department.name", sortKeys: [SortKey("department.name"), SortKey("lastName")], steps: 20)
        }
    }

    func testAChangeToAResultInPlaceIsReportedAsAnUpdateAtItsPosition() throws {
        let container = try makeContainer(Models.company)
        let context = container.viewContext
        for name in ["a", "b", "c"] {
            let e = Employee(context: context)
            e.lastName = name
        }
        try context.save()
        let results = try FetchedResults(FetchRequest<Employee>(sortDescriptors: [SortKey("lastName")]), context: context)
        let id = results.objects[1].objectID
        var diffs: [FetchedResultsDiff] = []
        results.onChange { if case .changes(let diff) = $0 { diffs.append(diff) } }
        let background = container.newBackgroundContext()
        try background.performAndWait {
            (try background.existingObject(with: id) as! Employee).firstName = "Bea"
            try background.save()
        }
        context.processPendingChanges()
        XCTAssertEqual(diffs.count, 1)
        XCTAssertEqual(diffs.first?.updatedItems, [ResultPosition(section: 0, item: 1)])
        XCTAssertEqual(diffs.first?.insertedItems, [])
        XCTAssertEqual(diffs.first?.movedItems, [])
        XCTAssertEqual(results.objects[1].firstName, "Bea")
    }

    func testMoreChangesThanTheThresholdInOneCommitGiveOneReload() throws {
        let container = try makeContainer(Models.company)
        let context = container.viewContext
        let results = try FetchedResults(FetchRequest<Employee>(sortDescriptors: [SortKey("lastName")]), context: context, reloadThreshold: 5)
        var events: [FetchedResultsChange] = []
        results.onChange { events.append($0) }
        let background = container.newBackgroundContext()
        try background.performAndWait {
            for index in 0..<10 { Employee(context: background).lastName = "e\(index)" }
            try background.save()
        }
        context.processPendingChanges()
        XCTAssertEqual(events.count, 1)
        guard case .reload = events.first else { return XCTFail("expected one reload, got \(events)") }
        XCTAssertEqual(results.objects.map(\.lastName), (0..<10).map { "e\($0)" })

        try background.performAndWait {
            Employee(context: background).lastName = "z"
            try background.save()
        }
        context.processPendingChanges()
        XCTAssertEqual(events.count, 2)
        guard case .changes(let diff) = events.last else { return XCTFail("a small commit gives index changes, got \(events)") }
        XCTAssertEqual(diff.insertedItems, [ResultPosition(section: 0, item: 10)])
    }

    func testAnIdleMainContextsResultsFollowABackgroundThreadsCommit() throws {
        let container = try makeContainer(Models.company)
        let results = try FetchedResults(FetchRequest<Employee>(sortDescriptors: [SortKey("lastName")]), context: container.viewContext)
        let heard = expectation(description: "the results hear the commit")
        nonisolated(unsafe) var received: FetchedResultsDiff?
        results.onChange { change in
            if case .changes(let diff) = change { received = diff }
            heard.fulfill()
        }
        let background = container.newBackgroundContext()
        onAnotherThread {
            try! background.performAndWait {
                Employee(context: background).lastName = "Wu"
                try background.save()
            }
        }
        wait(for: [heard], timeout: 120)
        XCTAssertEqual(received?.insertedItems, [ResultPosition(section: 0, item: 0)])
        XCTAssertEqual(results.objects.map(\.lastName), ["Wu"])
    }

    @MainActor
    func testTheChangeStreamEndsWhenTheResultsAreReleasedAndTheContextForgetsThem() async throws {
        let container = try makeContainer(Models.company)
        let context = container.viewContext
        XCTAssertEqual(context.observerCount, 0)
        var results: FetchedResults<Employee>? = try FetchedResults(FetchRequest<Employee>(sortDescriptors: [SortKey("lastName")]), context: context)
        weak let released = results
        let stream = results!.changes
        XCTAssertEqual(context.observerCount, 1)
        let consumer = Task {
            var count = 0
            for await _ in stream { count += 1 }
            return count
        }
        Employee(context: context).lastName = "a"
        try context.save()
        results = nil
        XCTAssertNil(released, "nothing but the caller holds fetched results")
        let heard = await consumer.value   // ends: the results were released
        XCTAssertEqual(heard, 1)
        XCTAssertEqual(context.observerCount, 0, "the released results' observer is gone")

        let cancelled = try FetchedResults(FetchRequest<Employee>(), context: context)
        XCTAssertEqual(context.observerCount, 1)
        cancelled.cancel()
        XCTAssertEqual(context.observerCount, 0)
    }

    func testAnUnknownSectionKeyPathThrowsNamingTheKey() throws {
        let container = try makeContainer(Models.company)
        XCTAssertThrowsError(try FetchedResults(FetchRequest<Employee>(), context: container.viewContext, sectionKeyPath: "department.nope")) { error in
            XCTAssertTrue("\(error)".contains("nope"), "\(error)")
        }
        XCTAssertEqual(container.viewContext.observerCount, 0, "a failed set-up leaves no observer")
    }
}
