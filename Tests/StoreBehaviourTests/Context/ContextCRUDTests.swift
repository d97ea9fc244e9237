import Foundation
import ObjectGraph
import Testing

/// Inserts, reads, updates and deletes through contexts (view and background), read back by
/// a fresh container.
@Suite("CRUD through contexts", .onOwnThreads)
struct ContextCRUDTests {
    private static let photo = Data((0...255).map { UInt8($0) })
    private static let hired = Date(timeIntervalSinceReferenceDate: 123_456_789.125)
    private static let badge = UUID(uuidString: "1E2D3C4B-5A69-7887-96A5-B4C3D2E1F000")!

    @Test("Every attribute type round-trips through the store; a transient is not stored", arguments: StoreKind.allCases)
    func everyAttributeTypeRoundTrips(_ kind: StoreKind) throws {
        let store = try kind.newStore()
        let context = try store.container().viewContext
        let extreme = Employee(context: context)
        extreme.firstName = "Zoë 🚀 \"quoted\" 'single' \\ back"
        extreme.lastName = ""
        extreme.nickname = "naïve\ttab\nline"
        extreme.age = Int16.max
        extreme.rank = Int32.min
        extreme.serial = Int64.max
        extreme.salary = -1234.5678
        extreme.rating = 0.1
        extreme.bonus = Decimal(string: "1234567890.12345")!
        extreme.active = false
        extreme.hired = Self.hired
        extreme.badge = Self.badge
        extreme.homepage = URL(string: "https://example.com/a%20b?q=1&r=ü#frag")!
        extreme.photo = Self.photo
        extreme.scratch = "not stored"
        let empty = Employee(context: context)
        empty.firstName = "Empty"
        empty.age = Int16.min
        empty.serial = Int64.min
        empty.bonus = Decimal(string: "-0.000001")!
        try context.save()

        let reader = try store.container().viewContext
        let read = try #require(try reader.fetch(FetchRequest<Employee>(predicate: FetchPredicate("badge == %@", Self.badge))).first)
        #expect(read.firstName == "Zoë 🚀 \"quoted\" 'single' \\ back")
        #expect(read.lastName == "")
        #expect(read.nickname == "naïve\ttab\nline")
        #expect(read.age == Int16.max)
        #expect(read.rank == Int32.min)
        #expect(read.serial == Int64.max)
        #expect(read.salary == -1234.5678)
        #expect(read.rating == 0.1)
        #expect(read.bonus == Decimal(string: "1234567890.12345"))
        #expect(read.active == false)
        #expect(read.hired == Self.hired)
        #expect(read.homepage == URL(string: "https://example.com/a%20b?q=1&r=ü#frag"))
        #expect(read.photo == Self.photo)
        #expect(read.scratch == nil, "a transient attribute is never stored")

        let other = try #require(try reader.fetch(FetchRequest<Employee>(predicate: FetchPredicate("firstName == 'Empty'"))).first)
        #expect(other.age == Int16.min)
        #expect(other.serial == Int64.min)
        #expect(other.bonus == Decimal(string: "-0.000001"))
        #expect(other.nickname == nil && other.hired == nil && other.homepage == nil && other.photo == nil, "optionals stay nil")
        #expect(other.department == nil && other.projects.isEmpty)
    }

    @Test("A string holding a NUL character round-trips in SQLite, and is refused whole by PostgreSQL", arguments: StoreKind.allCases)
    func stringWithNUL(_ kind: StoreKind) throws {
        let store = try kind.newStore()
        let context = try store.container().viewContext
        let odd = Employee(context: context)
        odd.firstName = "Odd"
        odd.nickname = "x\u{0}y"
        switch kind {
        case .sqlite:
            try context.save()
            let read = try #require(try store.container().viewContext.fetch(FetchRequest<Employee>()).first)
            #expect(read.nickname == "x\u{0}y")
            #expect(read.nickname?.utf8.count == 3)
        case .postgres:
            // PostgreSQL's text cannot hold U+0000 (docs/stores.md): a typed error, nothing saved.
            let error = #expect(throws: StoreError.self) { try context.save() }
            #expect(error?.message.contains("NUL character") == true)
            #expect(context.hasChanges, "the change stays pending")
            #expect(try store.container().viewContext.count(for: FetchRequest<Employee>()) == 0)
        }
    }

    @Test("Updates and deletes are saved; IDs are permanent after the save", arguments: StoreKind.allCases)
    func updateAndDelete(_ kind: StoreKind) throws {
        let store = try kind.newStore()
        let context = try store.container().viewContext
        let ann = Employee(context: context)
        ann.firstName = "Ann"
        let bob = Employee(context: context)
        bob.firstName = "Bob"
        #expect(ann.objectID.isTemporaryID)
        try context.save()
        #expect(!ann.objectID.isTemporaryID && !bob.objectID.isTemporaryID)
        #expect(ann.objectID != bob.objectID)

        ann.age = 31
        ann.nickname = "annie"
        context.delete(bob)
        #expect(context.updatedObjects == [ann] && context.deletedObjects == [bob])
        try context.save()
        #expect(!context.hasChanges)

        let reader = try store.container().viewContext
        let all = try reader.fetch(FetchRequest<Employee>())
        #expect(all.map(\.firstName) == ["Ann"])
        #expect(all.first?.age == 31 && all.first?.nickname == "annie")
        let readAnn = try #require(all.first)
        readAnn.nickname = nil
        try reader.save()
        #expect(try store.container().viewContext.employeeNames("nickname == nil") == ["Ann"], "setting nil is saved")
    }

    @Test("Rollback discards unsaved changes; an object inserted and deleted before a save is never written", arguments: StoreKind.allCases)
    func rollbackAndForgottenInsert(_ kind: StoreKind) throws {
        let store = try kind.newStore()
        let context = try store.container().viewContext
        let ann = Employee(context: context)
        ann.firstName = "Ann"
        try context.save()

        ann.firstName = "Annette"
        let temp = Employee(context: context)
        temp.firstName = "Temp"
        context.rollback()
        #expect(ann.firstName == "Ann")
        #expect(temp.managedObjectContext == nil)
        let ghost = Employee(context: context)
        ghost.firstName = "Ghost"
        context.delete(ghost)
        try context.save()
        #expect(try store.container().viewContext.employeeNames("TRUEPREDICATE") == ["Ann"])
    }

    @Test("A background context inserts, reads and updates with perform, and the view context sees it", arguments: StoreKind.allCases)
    func backgroundContext(_ kind: StoreKind) async throws {
        let store = try kind.newStore()
        let container = try store.container()
        let background = container.newBackgroundContext()
        let id = try await background.perform {
            let department = Department(context: background)
            department.name = "Ops"
            department.budget = Decimal(string: "99.99")!
            try background.save()
            return department.objectID
        }
        let budget = try await background.perform {
            let department = try background.existingObject(with: id) as! Department
            department.budget += 1
            try background.save()
            return department.budget
        }
        #expect(budget == Decimal(string: "100.99"))
        let reader = try store.container().viewContext
        let ops = try #require(try reader.fetch(FetchRequest<Department>()).first)
        #expect(ops.name == "Ops" && ops.budget == Decimal(string: "100.99"))
    }
}
