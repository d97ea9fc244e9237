import Foundation
import ManagedRecord
import Testing

// Generated-style classes for Tests/Fixtures/Workforce, as Xcode's "Class Definition"
// codegen would make them, in this library's terms: named after each entity's
// representedClassName, with no override.

/// Entity `Worker` (representedClassName `WorkerMO`).
class WorkerMO: ManagedObject {
    @Attribute var badge: String = ""
    @Attribute var firstName: String? = nil
    @Attribute var lastName: String? = nil
    @Attribute var age: Int = 0
    @Attribute var salary: Decimal? = nil
    @Attribute var hired: Date? = nil
    @Relationship var crew: Crew?
    @Relationship var shifts: Set<ManagedObject>     // Shift has no class
}

/// Entity `Foreman` (`.Foreman`), a sub-entity of `Worker`.
final class Foreman: WorkerMO {
    @Attribute var level: Int = 1
}

/// Entity `Crew` (`Workforce.Crew`).
final class Crew: ManagedObject {
    @Attribute var name: String = ""
    @Relationship var members: Set<WorkerMO>
}

/// The active-record layer set up from an Xcode model file (`setUp(modelAt:classes:)`),
/// on each kind of store. Serialized: the helpers find their stack through ManagedRecord's
/// process-wide registry.
@Suite("Class-level helpers from a model file", .serialized, .onOwnThreads)
struct ModelFileRecordTests {
    static let bundle = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
        .appendingPathComponent("Fixtures/Workforce/Workforce.xcdatamodeld")
    private let classes: [ManagedObject.Type] = [WorkerMO.self, Foreman.self, Crew.self]

    @discardableResult
    private func setUp(_ store: TestStore) throws -> ContextManager {
        try ManagedRecord.setUp(modelAt: Self.bundle, classes: classes, store: store.location, options: store.kind.containerOptions)
    }

    /// Ann (30), Bob (45) and the foreman Mia (52) of the Night crew, committed.
    @discardableResult
    private func seed() throws -> (ann: WorkerMO, bob: WorkerMO, mia: Foreman) {
        let night = Crew.newEntity()
        night.name = "Night"
        let ann = WorkerMO.newEntity()
        (ann.badge, ann.firstName, ann.lastName, ann.age, ann.salary) = ("A1", "Ann", "Smith", 30, Decimal(string: "1000.10")!)
        let bob = WorkerMO.newEntity()
        (bob.badge, bob.firstName, bob.lastName, bob.age, bob.salary) = ("B2", "Bob", "Jones", 45, Decimal(string: "2000.20")!)
        let mia = Foreman.newEntity()
        (mia.badge, mia.firstName, mia.lastName, mia.age, mia.level) = ("M3", "Mia", "Lee", 52, 3)
        for worker in [ann, bob, mia] { worker.crew = night }
        try WorkerMO.commit()
        return (ann, bob, mia)
    }

    @Test("Generated-style classes: fetchAll, count, aggregate, importJSON and commit", arguments: StoreKind.allCases)
    func classesFromTheFile(_ kind: StoreKind) throws {
        let store = try kind.newStore()
        let manager = try setUp(store)
        defer { ManagedRecord.tearDown(model: "Workforce") }
        #expect(manager.name == "Workforce", "named after the file")
        #expect(WorkerMO.entityDescription.name == "Worker", "bound by its representedClassName")
        #expect(WorkerMO.entityName == "Worker", "and its entityName says so without an override")
        #expect(Foreman.entityDescription.name == "Foreman" && Crew.entityDescription.name == "Crew")
        #expect(manager.model.entitiesByName["Shift"]?.managedClass == ManagedObject.self)

        let (ann, _, _) = try seed()
        #expect(!ann.objectID.isTemporaryID)
        #expect(try WorkerMO.fetchAll(sortedBy: [SortKey("firstName")]).compactMap(\.firstName) == ["Ann", "Bob", "Mia"])
        #expect(try WorkerMO.fetchAll(includesSubentities: false).count == 2)
        #expect(try Foreman.fetchAll().map(\.level) == [3])
        #expect(try WorkerMO.count() == 3)
        #expect(try WorkerMO.count(where: "age > %@", 40) == 2)
        #expect(try WorkerMO.fetch(where: "crew.name == %@", "Night", sortedBy: [SortKey("age", ascending: false)]).map(\.badge) == ["M3", "B2", "A1"])
        #expect(try Crew.get(where: "name == %@", "Night")?.members.count == 3)
        #expect(try WorkerMO.aggregate(.average, of: "age") == 127.0 / 3)
        #expect(try WorkerMO.aggregate(.sum, of: "salary", as: Decimal.self) == Decimal(string: "3000.30"))
        #expect(try WorkerMO.distinctValues(of: "lastName", as: String.self) == ["Jones", "Lee", "Smith"])

        let json = Data(#"[{"badge": "A1", "age": 31}, {"badge": "C4", "firstName": "Cy", "age": 22}]"#.utf8)
        let report = try WorkerMO.importJSON(json, relatedBy: "badge")
        #expect((report.inserted.count, report.updated.count) == (1, 1))
        #expect(ann.age == 31, "the registered object shows the imported value")
        #expect(try WorkerMO.count() == 4)

        // Another thread's context, then this one's again.
        let failure = Locked<String?>(nil)
        let done = DispatchSemaphore(value: 0)
        let annID = ann.objectID
        Thread.detachNewThread {
            defer { done.signal() }
            do {
                let theirs = try #require(try WorkerMO.contextForCurrentThread.existingObject(with: annID) as? WorkerMO)
                theirs.salary = Decimal(string: "1500.15")
                let dee = WorkerMO.newEntity()
                (dee.badge, dee.firstName, dee.age) = ("D5", "Dee", 40)
                try WorkerMO.commit()
            } catch {
                failure.withLock { $0 = "\(error)" }
            }
        }
        #expect(done.wait(timeout: .now() + 60) == .success)
        #expect(failure.value == nil)
        #expect(ann.salary == Decimal(string: "1500.15"), "the other thread's commit reached this thread's object")
        #expect(try WorkerMO.count() == 5)

        // A batch request made from the class names the entity.
        var raise = BatchUpdateRequest(WorkerMO.self, predicate: try FetchPredicate("age < %@", 30), propertiesToUpdate: ["age": 30])
        raise.includesSubentities = true
        #expect(try WorkerMO.contextForCurrentThread.execute(raise).count == 1, "Cy")
        #expect(try WorkerMO.count(where: "age < 30") == 0)
        #expect(try WorkerMO.deleteAll(where: "badge == %@", "C4") == 1)
        #expect(try WorkerMO.count() == 4)

        let reader = try PersistentContainer(name: "Workforce", model: ManagedObjectModel(contentsOf: Self.bundle), store: store.location,
                                             options: kind.containerOptions)
        #expect(try reader.viewContext.count(for: FetchRequest<ManagedObject>(entityName: "Worker")) == 4, "another container reads the commits")
    }

    @Test("An entity without a class, by name: newEntity, fetch, count, aggregate, delete, commit", arguments: StoreKind.allCases)
    func classLessEntity(_ kind: StoreKind) throws {
        let store = try kind.newStore()
        try setUp(store)
        defer { ManagedRecord.tearDown(model: "Workforce") }
        let (ann, bob, _) = try seed()

        let shifts = try ManagedRecord.entity("Shift")
        #expect(shifts.name == "Shift" && shifts.contextManager === WorkerMO.contextManager)
        #expect(try WorkerMO.contextManager.entity(named: "Shift").name == "Shift")
        for (worker, hours, date) in [(ann, 7.5, day(2026, 3, 2)), (ann, 4.0, day(2026, 3, 3)), (bob, 9.0, day(2026, 3, 2))] {
            let shift = try shifts.newEntity()
            #expect(type(of: shift) == ManagedObject.self)
            try shift.setValue(date, forKey: "day")
            try shift.setValue(hours, forKey: "hours")
            try shift.setValue(worker, forKey: "worker")
        }
        try shifts.commit()
        #expect(ann.shifts.count == 2, "the inverse, on the generated-style class")

        #expect(try shifts.count() == 3)
        #expect(try shifts.count(where: "worker.firstName == %@", "Ann") == 2)
        let long = try shifts.fetch(where: "hours > %@", 5, sortedBy: [SortKey("hours")])
        #expect(long.compactMap { $0.value(forKey: "hours") as? Double } == [7.5, 9.0])
        #expect(long.map { ($0.value(forKey: "worker") as? WorkerMO)?.badge } == ["A1", "B2"])
        #expect(try shifts.fetchAll(sortedBy: [SortKey("day"), SortKey("hours")], limit: 1).first?.value(forKey: "hours") as? Double == 7.5)
        #expect(try shifts.get(where: "hours == %@", 4.0)?.value(forKey: "day") as? Date == day(2026, 3, 3))
        #expect(try shifts.aggregate(.sum, of: "hours") == 20.5)
        #expect(try shifts.aggregate(.max, of: "day", as: Date.self) == day(2026, 3, 3))
        #expect(try shifts.distinctValues(of: "day", as: Date.self) == [day(2026, 3, 2), day(2026, 3, 3)])
        let byHours = try shifts.fetchDictionary(keyedBy: "hours")
        #expect(byHours.count == 3 && byHours[AnyHashable(9.0)].flatMap { $0.value(forKey: "worker") as? WorkerMO } === bob)
        #expect(try shifts.newOrExistingEntity(where: "hours == %@", 9.0) === byHours[AnyHashable(9.0)], "it exists")

        // A shift committed here, moved to another thread's context and changed there.
        let first = try #require(long.first)
        let failure = Locked<String?>(nil)
        let done = DispatchSemaphore(value: 0)
        nonisolated(unsafe) let shared = first
        Thread.detachNewThread {
            defer { done.signal() }
            do {
                let theirs = try shared.inCurrentThreadContext()
                try theirs.setValue(8.0, forKey: "hours")
                try shifts.commit()
            } catch {
                failure.withLock { $0 = "\(error)" }
            }
        }
        #expect(done.wait(timeout: .now() + 60) == .success)
        #expect(failure.value == nil)
        #expect(first.value(forKey: "hours") as? Double == 8.0)

        #expect(try shifts.delete(where: FetchPredicate("hours < %@", 5)) == 1)
        #expect(try shifts.count() == 2, "a pending delete is left out")
        shifts.rollback()
        #expect(try shifts.count() == 3)
        let report = try shifts.importJSON(Data(#"[{"day": "2026-03-04T00:00:00Z", "hours": 6}]"#.utf8))
        #expect(report.inserted.count == 1)
        #expect(try shifts.deleteAll(where: FetchPredicate("hours < %@", 7)) == 2)
        #expect(try shifts.count() == 2)

        #expect(throws: ModelError.self) { try ManagedRecord.entity("Nope") }
        do {
            _ = try ManagedRecord.entity("Nope", inModel: "Workforce")
            Issue.record("an unknown entity name is an error")
        } catch let error as ModelError {
            #expect(error.code == .unknownEntity)
            #expect(error.message.contains("Crew, Foreman, Shift, Worker"), "\(error)")
        }
    }

    @Test("A store of the bundle's first version migrates to the current one at setUp", arguments: StoreKind.allCases)
    func migratesAnEarlierVersion(_ kind: StoreKind) throws {
        let store = try kind.newStore()
        do {
            let first = try ManagedObjectModel(contentsOf: Self.bundle.appendingPathComponent("Workforce.xcdatamodel"))
            let old = try PersistentContainer(name: "Workforce", model: first, store: store.location, options: kind.containerOptions)
            let worker = try old.viewContext.insertNewObject(forEntityName: "Worker")
            try worker.setValue("Z9", forKey: "badge")
            try worker.setValue("Zoe", forKey: "firstName")
            try old.viewContext.save()
        }
        try setUp(store)
        defer { ManagedRecord.tearDown(model: "Workforce") }
        let zoe = try #require(try WorkerMO.get(where: "badge == %@", "Z9"))
        #expect(zoe.firstName == "Zoe" && zoe.salary == nil && zoe.hired == nil)
        #expect(try Foreman.count() == 0)
        zoe.salary = 10
        try WorkerMO.commit()
        #expect(try WorkerMO.aggregate(.sum, of: "salary", as: Decimal.self) == 10)
    }
}
