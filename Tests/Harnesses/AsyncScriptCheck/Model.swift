// The model of shared/API.md ("Declaring a model"), verbatim.
import Foundation
import ManagedRecord

final class Department: ManagedObject {
    @Attribute var name: String = ""
    @Attribute var budget: Double = 0
    @Relationship(inverse: \Employee.$department, deleteRule: .cascade)
    var employees: Set<Employee>
}

class Employee: ManagedObject {
    @Attribute var firstName: String = ""
    @Attribute var lastName: String = ""
    @Attribute var age: Int = 0                 // Int -> Integer 64; Int16/Int32 also supported
    @Attribute var salary: Double = 0
    @Attribute var hired: Date? = nil           // optional => may be nil at save
    @Attribute var badge: UUID = UUID()         // evaluated per new object
    @Attribute(.transient) var scratch: String? = nil   // never stored
    @Relationship(deleteRule: .nullify) var department: Department?   // inverse: Department.employees
    @Relationship var manager: Manager?                                  // inverse: Manager.reports
    var fullName: String { "\(firstName) \(lastName)" }   // plain Swift, not persisted
}

final class Manager: Employee {                 // sub-entity: stored in Employee's table
    @Attribute var level: Int = 1
    @Relationship(inverse: \Employee.$manager) var reports: Set<Employee>   // to-many
}
