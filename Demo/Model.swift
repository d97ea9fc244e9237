import Foundation
import ObjectGraph

// The model of API.md: departments, employees and managers (a sub-entity of Employee).
// One class is both the entity description and the object; the property wrappers say what
// is stored. Only the validation overrides below are added for the demo.

final class Department: ManagedObject {
    @Attribute var name: String = ""
    @Attribute var budget: Double = 0
    @Relationship(inverse: \Employee.$department, deleteRule: .cascade)
    var employees: Set<Employee>
}

class Employee: ManagedObject {
    @Attribute var firstName: String = ""
    @Attribute var lastName: String = ""
    @Attribute var age: Int = 0                 // Int -> Integer 64
    @Attribute var salary: Double = 0
    @Attribute var hired: Date? = nil           // optional => may be nil at save
    @Attribute var badge: UUID = UUID()         // evaluated per new object
    @Attribute(.transient) var scratch: String? = nil   // never stored
    @Relationship(deleteRule: .nullify) var department: Department?   // inverse: Department.employees
    @Relationship var manager: Manager?                                  // inverse: Manager.reports
    var fullName: String { "\(firstName) \(lastName)" }   // plain Swift, not persisted

    // Validation runs at save; every problem of every object is reported together.
    override func validateForInsert() throws {
        try super.validateForInsert()
        try validateFields()
    }

    override func validateForUpdate() throws {
        try super.validateForUpdate()
        try validateFields()
    }

    // A hook throws one `ValidationError.Problem` (or any error); save collects the
    // problems of every object and throws them together as one `ValidationError`.
    private func validateFields() throws {
        if firstName.isEmpty {
            throw ValidationError.Problem(self, key: "firstName", "a first name is required")
        }
        if !(16...100).contains(age) {
            throw ValidationError.Problem(self, key: "age", "age \(age) is outside 16...100")
        }
    }
}

final class Manager: Employee {                 // sub-entity: stored in Employee's table
    @Attribute var level: Int = 1
    @Relationship(inverse: \Employee.$manager) var reports: Set<Employee>   // to-many
}
