import Foundation
import ManagedRecord
import Testing

/// The active-record layer's class-level helpers on each kind of store. Serialized: the
/// helpers find their stack through ManagedRecord's process-wide registry, which one test
/// at a time sets up.
@Suite("Class-level helpers (ManagedRecord)", .serialized, .onOwnThreads)
struct RecordHelperTests {
    /// Ann (30), Bob (45, Wu's department) and Mia (52, a manager), committed.
    private func seed() throws -> (ann: Employee, bob: Employee, mia: Manager) {
        let ann = Employee.newEntity()
        (ann.firstName, ann.lastName, ann.age, ann.bonus) = ("Ann", "Smith", 30, Decimal(string: "0.10")!)
        let bob = Employee.newEntity()
        (bob.firstName, bob.lastName, bob.age, bob.bonus) = ("Bob", "Jones", 45, Decimal(string: "0.20")!)
        let mia = Manager.newEntity()
        (mia.firstName, mia.lastName, mia.age, mia.bonus) = ("Mia", "Lee", 52, Decimal(string: "0.30")!)
        try Employee.commit()
        return (ann, bob, mia)
    }

    @Test("newEntity, commit, fetchAll, fetch(where:), get and count", arguments: StoreKind.allCases)
    func createAndRead(_ kind: StoreKind) throws {
        let store = try kind.newStore()
        try store.setUpRecords()
        defer { ManagedRecord.tearDown(model: SuiteModel.name) }
        let (ann, _, _) = try seed()
        #expect(!ann.objectID.isTemporaryID)

        #expect(try Employee.fetchAll(sortedBy: [SortKey("firstName")]).map(\.firstName) == ["Ann", "Bob", "Mia"])
        #expect(try Employee.fetchAll(includesSubentities: false).count == 2)
        #expect(try Manager.fetchAll().map(\.firstName) == ["Mia"])
        #expect(try Employee.fetch(where: "age > %@", 35, sortedBy: [SortKey("age", ascending: false)]).map(\.firstName) == ["Mia", "Bob"])
        #expect(try Employee.fetch(where: "age > %@", 20, sortedBy: [SortKey("lastName")], limit: 2).map(\.lastName) == ["Jones", "Lee"])
        #expect(try Employee.get(where: "badge == %@", ann.badge) === ann)
        #expect(try Employee.get(where: "firstName == 'Nobody'") == nil)
        #expect(try Employee.count() == 3)
        #expect(try Manager.count() == 1)
        #expect(try Employee.count(where: "firstName BEGINSWITH %@", "B") == 1)

        let wu = try Employee.newOrExistingEntity(where: "lastName == %@", "Wu")
        #expect(wu.objectID.isTemporaryID, "none existed: a new one")
        wu.lastName = "Wu"
        try Employee.commit()
        #expect(try Employee.newOrExistingEntity(where: "lastName == %@", "Wu") === wu, "now it exists")

        let reader = try store.container().viewContext
        #expect(try reader.employeeNames("TRUEPREDICATE") == ["", "Ann", "Bob", "Mia"], "a container of its own reads what was committed")
    }

    @Test("deleteStore removes the store (a file, or a server store's schema) and opens an empty one", arguments: StoreKind.allCases)
    func deletingTheStore(_ kind: StoreKind) throws {
        let store = try kind.newStore()
        try store.setUpRecords()
        defer { ManagedRecord.tearDown(model: SuiteModel.name) }
        _ = try seed()
        #expect(try Employee.count() == 3)

        #expect(try Employee.contextManager.doesRequireMigration() == false, "a store of this model needs no migration")
        try Employee.deleteStore()
        #expect(try Employee.count() == 0, "the new store is empty")
        #expect(try store.container().viewContext.count(for: FetchRequest<Employee>()) == 0, "another container sees it empty too")
        let eve = Employee.newEntity()
        eve.firstName = "Eve"
        try Employee.commit()
        #expect(try store.container().viewContext.employeeNames("TRUEPREDICATE") == ["Eve"], "and it takes new objects")
    }

    @Test("delete, delete(where:), rollback and deleteAll", arguments: StoreKind.allCases)
    func deleting(_ kind: StoreKind) throws {
        let store = try kind.newStore()
        try store.setUpRecords()
        defer { ManagedRecord.tearDown(model: SuiteModel.name) }
        let (ann, _, _) = try seed()

        ann.delete()
        #expect(ann.isDeleted)
        try Employee.commit()
        #expect(try Employee.count() == 2)

        #expect(try Employee.delete(where: "age > %@", 40) == 2)
        #expect(try Employee.count() == 0, "pending deletes are left out")
        Employee.rollback()
        #expect(try Employee.count() == 2)

        #expect(try Employee.deleteAll(where: "age < %@", 50) == 1)
        #expect(try Employee.fetchAll().map(\.firstName) == ["Mia"])
        #expect(try Employee.deleteAll() == 1)
        #expect(try Employee.count() == 0)
        #expect(try store.container().viewContext.count(for: FetchRequest<Employee>()) == 0)
    }

    @Test("aggregate, distinctValues and fetchDictionary(keyedBy:)", arguments: StoreKind.allCases)
    func questions(_ kind: StoreKind) throws {
        let store = try kind.newStore()
        try store.setUpRecords()
        defer { ManagedRecord.tearDown(model: SuiteModel.name) }
        let (ann, bob, mia) = try seed()

        #expect(try Employee.aggregate(.average, of: "age") == 127.0 / 3)
        #expect(try Employee.aggregate(.max, of: "age", where: "lastName != %@", "Lee") == 45)
        #expect(try Employee.aggregate(.sum, of: "bonus", as: Decimal.self) == Decimal(string: "0.6"))
        #expect(try Employee.distinctValues(of: "lastName", as: String.self) == ["Jones", "Lee", "Smith"])
        let byBadge = try Employee.fetchDictionary(keyedBy: "badge")
        #expect(byBadge.count == 3)
        #expect(byBadge[ann.badge] === ann && byBadge[bob.badge] === bob && byBadge[mia.badge] === mia)
    }

    @Test("A commit on another thread reaches this thread's context", arguments: StoreKind.allCases)
    func commitOnAnotherThread(_ kind: StoreKind) throws {
        let store = try kind.newStore()
        try store.setUpRecords()
        defer { ManagedRecord.tearDown(model: SuiteModel.name) }
        let (ann, _, _) = try seed()
        let annID = ann.objectID

        let failure = Locked<String?>(nil)
        let done = DispatchSemaphore(value: 0)
        Thread.detachNewThread {
            defer { done.signal() }
            do {
                let theirs = try Employee.contextForCurrentThread.existingObject(with: annID) as! Employee
                theirs.age = 31
                let cy = Employee.newEntity()
                cy.firstName = "Cy"
                try Employee.commit()
            } catch {
                failure.withLock { $0 = "\(error)" }
            }
        }
        #expect(done.wait(timeout: .now() + 60) == .success)
        #expect(failure.value == nil)
        #expect(ann.age == 31, "the registered object shows the other thread's commit")
        #expect(try Employee.count() == 4)
        #expect(try Employee.get(where: "firstName == 'Cy'") != nil)
    }
}
