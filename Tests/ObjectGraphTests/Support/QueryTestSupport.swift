import Foundation
import ObjectGraph
import Synchronization
import XCTest

// MARK: - The query tests' model (Q-prefixed: the other test files declare the API.md names)

final class QDepartment: ManagedObject {
    @Attribute var name: String = ""
    @Attribute var budget: Double = 0
    @Relationship(inverse: \QEmployee.$department, deleteRule: .cascade) var employees: Set<QEmployee>
}

class QEmployee: ManagedObject {
    @Attribute var firstName: String = ""
    @Attribute var lastName: String = ""
    @Attribute var age: Int = 0
    @Attribute var salary: Double = 0
    @Attribute var hired: Date? = nil
    @Attribute var badge: UUID = UUID()
    @Attribute var active: Bool = true
    @Attribute var nickname: String? = nil
    @Attribute(.transient) var scratch: String? = nil
    @Relationship(deleteRule: .nullify) var department: QDepartment?
    @Relationship var manager: QManager?
    @Relationship var projects: Set<QProject>
}

final class QManager: QEmployee {
    @Attribute var level: Int = 1
    @Relationship(inverse: \QEmployee.$manager) var reports: Set<QEmployee>
}

final class QProject: ManagedObject {
    @Attribute var title: String = ""
    @Relationship(inverse: \QEmployee.$projects, deleteRule: .deny) var members: Set<QEmployee>
}

/// Records SQL statements (thread-safe).
final class QSQLRecorder: Sendable {
    private let lines = Mutex<[String]>([])
    var statements: [String] { lines.withLock { $0 } }
    func record(_ sql: String) { lines.withLock { $0.append(sql) } }
    func reset() { lines.withLock { $0.removeAll() } }
    /// Statements other than transaction control.
    var queries: [String] {
        statements.filter { sql in !["BEGIN", "COMMIT", "ROLLBACK"].contains { sql.hasPrefix($0) } }
    }
}

/// A fresh store in a temporary directory per test, with the query model.
class QueryTestCase: XCTestCase {
    var directory: URL!
    var container: PersistentContainer!
    var context: ManagedObjectContext { container.viewContext }
    let recorder = QSQLRecorder()

    override func setUpWithError() throws {
        try super.setUpWithError()
        directory = FileManager.default.temporaryDirectory.appendingPathComponent("QueryTests-\(UUID().uuidString)")
        container = try makeContainer()
    }

    override func tearDownWithError() throws {
        container = nil
        try? FileManager.default.removeItem(at: directory)
        try super.tearDownWithError()
    }

    /// A container on the test's store that never looks at other connections' commits: the
    /// tests count the statements it runs, and a refresh after another container's checkpoint
    /// or close (the container this one replaces) would add statements by chance.
    func makeContainer() throws -> PersistentContainer {
        try PersistentContainer(name: "Query", entities: [QDepartment.self, QEmployee.self, QManager.self, QProject.self],
                                storeURL: directory.appendingPathComponent("Query.sqlite"), options: [.ignoresOtherConnections])
    }

    func startRecording() {
        recorder.reset()
        let recorder = self.recorder
        container.persistentStoreCoordinator.sqlTrace = { recorder.record($0) }
    }

    static func date(_ year: Int, _ month: Int = 1, _ day: Int = 1) -> Date {
        var components = DateComponents()
        (components.year, components.month, components.day) = (year, month, day)
        var calendar = Calendar(identifier: .gregorian)
        calendar.timeZone = TimeZone(identifier: "UTC")!
        return calendar.date(from: components)!
    }

    /// The company: three departments, seven employees (two managers), two projects.
    struct Company {
        var sales, etudes, research: QDepartment
        var john, jane, emile, ana, bob: QEmployee
        var mary, wu: QManager
        var apollo, zeus: QProject
    }

    @discardableResult
    func seedCompany(save: Bool = true) throws -> Company {
        let context = self.context
        func department(_ name: String, _ budget: Double) -> QDepartment {
            let department = QDepartment(context: context)
            department.name = name
            department.budget = budget
            return department
        }
        func employee<E: QEmployee>(_ type: E.Type, _ first: String, _ last: String, _ age: Int, _ salary: Double,
                                    hired: Date?, nickname: String?, active: Bool = true, _ department: QDepartment?) -> E {
            let employee = E(entity: context.managedObjectModel.entity(for: E.self)!, insertInto: context)
            (employee.firstName, employee.lastName, employee.age, employee.salary) = (first, last, age, salary)
            (employee.hired, employee.nickname, employee.active) = (hired, nickname, active)
            employee.department = department
            return employee
        }
        let sales = department("Sales", 100), etudes = department("Études", 200), research = department("Research", 50)
        let john = employee(QEmployee.self, "John", "Smith", 42, 5000, hired: Self.date(2020), nickname: nil, sales)
        let jane = employee(QEmployee.self, "Jane", "smith", 35, 6000, hired: nil, nickname: "JJ", sales)
        let emile = employee(QEmployee.self, "Émile", "Zola", 51, 4000, hired: Self.date(2019, 6), nickname: "Élan", active: false, etudes)
        let ana = employee(QEmployee.self, "Ana", "Ångström", 29, 3000.5, hired: Self.date(2021, 3), nickname: "", nil)
        let bob = employee(QEmployee.self, "Bob", "O'Brien", 60, 7000, hired: Self.date(2018), nickname: "b%_*?x", research)
        let mary = employee(QManager.self, "Mary", "Jones", 45, 9000, hired: Self.date(2015), nickname: "Boss", sales)
        mary.level = 2
        let wu = employee(QManager.self, "Li", "Wu", 38, 8000, hired: nil, nickname: nil, nil)
        for report in [john, jane, emile] { report.manager = mary }
        ana.manager = wu
        let apollo = QProject(context: context), zeus = QProject(context: context)
        (apollo.title, zeus.title) = ("Apollo", "Zeus")
        apollo.members = [john, mary, emile]
        zeus.members = [ana]
        if save { try context.save() }
        return Company(sales: sales, etudes: etudes, research: research, john: john, jane: jane, emile: emile,
                       ana: ana, bob: bob, mary: mary, wu: wu, apollo: apollo, zeus: zeus)
    }

    /// First names of the employees `predicate` selects through SQL (no pending changes).
    func sqlNames(_ predicate: FetchPredicate, in context: ManagedObjectContext? = nil) throws -> Set<String> {
        var request = FetchRequest<QEmployee>(predicate: predicate)
        request.includesPendingChanges = false
        return Set(try (context ?? self.context).fetch(request).map(\.firstName))
    }

    /// First names of the employees `predicate` selects in memory.
    func memoryNames(_ predicate: FetchPredicate, in context: ManagedObjectContext? = nil) throws -> Set<String> {
        let everyone = try (context ?? self.context).fetch(FetchRequest<QEmployee>())
        return Set(try everyone.filter { try predicate.evaluate(with: $0) }.map(\.firstName))
    }
}
