import Foundation
import ObjectGraph

// The suite's model: every attribute type, every relationship kind and delete rule, a
// sub-entity, uniqueness constraints. The same classes serve both stores.

final class Department: ManagedObject {
    @Attribute var name: String = ""
    @Attribute var budget: Decimal = 0
    @Relationship(inverse: \Employee.$department, deleteRule: .cascade) var employees: Set<Employee>
    /// A department with projects cannot be deleted (deny).
    @Relationship(inverse: \Project.$department, deleteRule: .deny) var projects: Set<Project>
}

class Employee: ManagedObject {
    @Attribute var firstName: String = ""
    @Attribute var lastName: String = ""
    @Attribute var nickname: String? = nil
    @Attribute var age: Int16 = 0
    @Attribute var rank: Int32 = 0
    @Attribute var serial: Int64 = 0
    @Attribute var salary: Double = 0
    @Attribute var rating: Float = 0
    @Attribute var bonus: Decimal = 0
    @Attribute var active: Bool = true
    @Attribute var hired: Date? = nil
    @Attribute(.unique) var badge: UUID = UUID()
    @Attribute var homepage: URL? = nil
    @Attribute var photo: Data? = nil
    @Attribute(.transient) var scratch: String? = nil
    @Relationship(deleteRule: .nullify) var department: Department?
    @Relationship var manager: Manager?
    @Relationship(inverse: \Project.$members) var projects: Set<Project>
}

/// A sub-entity: stored with the employees, fetched with them.
final class Manager: Employee {
    @Attribute var level: Int = 1
    @Relationship(inverse: \Employee.$manager) var reports: Set<Employee>
}

final class Project: ManagedObject {
    @Attribute var title: String = ""
    /// Many-to-many with `Employee.projects`.
    @Relationship var members: Set<Employee>
    @Relationship(deleteRule: .nullify) var department: Department?
    /// An ordered to-many whose destinations go with the project.
    @Relationship(ordered: true, inverse: \Tag.$project, deleteRule: .cascade) var tags: [Tag]
}

final class Tag: ManagedObject {
    @Attribute var label: String = ""
    @Relationship(deleteRule: .nullify) var project: Project?
}

/// One uniqueness constraint on one attribute, one on two together.
final class Account: ManagedObject {
    @Attribute(.unique) var email: String = ""
    @Attribute var name: String = ""
    @Attribute var region: String = ""
    @Attribute var number: Int = 0
    @Attribute var balance: Int = 0
    override class var uniquenessConstraints: [[String]] { [["region", "number"]] }
}

/// A shared counter, written concurrently by several containers (and by `StoreWriter`).
final class Counter: ManagedObject {
    @Attribute(.unique) var name: String = ""
    @Attribute var value: Int = 0
    @Attribute var left: String = ""
    @Attribute var right: String = ""
}

enum SuiteModel {
    static let name = "StoreSuite"
    static var entities: [ManagedObject.Type] {
        [Department.self, Employee.self, Manager.self, Project.self, Tag.self, Account.self, Counter.self]
    }
}
