import Foundation
import ObjectGraph

final class Department: ManagedObject {
    @Attribute var name: String = ""
    @Attribute var budget: Double = 0
    @Relationship(inverse: \Employee.$department, deleteRule: .cascade)
    var employees: Set<Employee>
}

class Employee: ManagedObject {
    @Attribute var firstName: String = ""
    @Attribute var lastName: String = ""
    @Attribute var age: Int = 0
    @Attribute var salary: Double = 0
    @Attribute var hired: Date? = nil
    @Attribute var badge: UUID = UUID()
    @Attribute(.transient) var scratch: String? = nil
    @Relationship(deleteRule: .nullify) var department: Department?
    @Relationship var manager: Manager?
    var fullName: String { "\(firstName) \(lastName)" }
}

final class Manager: Employee {
    @Attribute var level: Int = 1
    @Relationship(inverse: \Employee.$manager) var reports: Set<Employee>
}

let url = URL(fileURLWithPath: "/tmp/demo-store/Company.sqlite")
try? FileManager.default.removeItem(at: url.deletingLastPathComponent())
let container = try PersistentContainer(name: "Company", entities: [Department.self, Employee.self, Manager.self], storeURL: url)
let context = container.viewContext
let sales = Department(context: context)
sales.name = "Sales"
let john = Employee(context: context)
john.firstName = "John"; john.lastName = "Smith"; john.age = 42
john.department = sales
print("sales employees:", sales.employees.map(\.firstName))
let boss = Manager(context: context)
boss.firstName = "Ann"; boss.level = 3
john.manager = boss
print("boss reports:", boss.reports.map(\.firstName))
try context.save()
print("saved:", john.objectID, boss.objectID)

var request = FetchRequest<Employee>()
request.sortDescriptors = [SortKey("lastName"), SortKey("age", ascending: false)]
let people = try context.fetch(request)
print(people.map(\.fullName))

let c2 = try PersistentContainer(name: "Company", entities: [Department.self, Employee.self, Manager.self], storeURL: url)
let all = try c2.viewContext.fetch(FetchRequest<Employee>())
for e in all { print(e.fullName, e.department?.name ?? "-", e.manager?.firstName ?? "-", type(of: e)) }
let d = try c2.viewContext.fetch(FetchRequest<Department>())
print(d.map { ($0.name, $0.employees.count) })
