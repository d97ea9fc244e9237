import Foundation
import ObjectGraph

/// The company every query test reads, saved through one container; the test then asks a
/// second, fresh container (nothing registered, nothing cached), so the store answers.
///
/// | employee      | age | rank | serial        | salary  | rating | bonus  | active | hired      | nickname | department | manager | projects        |
/// |---------------|-----|------|---------------|---------|--------|--------|--------|------------|----------|------------|---------|-----------------|
/// | Ann Smith     | 30  | 3    | 3_000_000_000 | 5000.5  | 4.5    | 10.10  | yes    | 2020-01-15 | annie    | Sales      | Mia     | Apollo, Gemini  |
/// | Bob Jones     | 45  | 2    | 42            | 7000    | 3.25   | 20.20  | no     | nil        | nil      | Sales      | Mia     | Apollo          |
/// | Émile Zola    | 60  | 1    | -5            | 9000    | 1.7    | 0.30   | yes    | 2018-06-01 | Élan     | Études     | nil     |                 |
/// | Li Wu         | 38  | 2    | 7             | 6000    | 2      | 5.55   | yes    | 2021-03-01 | ""       | Research   | Zed     | Gemini          |
/// | Mia Lee (M 2) | 52  | 4    | 100           | 12000   | 5      | 100.01 | yes    | 2015-09-01 | boss     | Sales      | nil     | Apollo          |
/// | Zed Adams(M 1)| 41  | 5    | 200           | 8000    | 4      | 0      | no     | 2019-02-01 | zed      | Research   | nil     | Gemini          |
/// | olga Novak    | 29  | 1    | 0             | 3000.25 | 3.5    | 1.11   | yes    | nil        | nil      | nil        | nil     |                 |
///
/// Departments: Sales (budget 1000.10; project Apollo), Research (2500.25; Gemini), Études
/// (0.50), Legal (0, no employees). Projects: Apollo (tags launch, moon, crew), Gemini (two,
/// orbit), Mercury (no members, no department, no tags). Ann's homepage is
/// https://ann.example.com/ and photo [1, 2, 3]; Mia's homepage https://mia.example.com/;
/// Li's photo [9].
struct Company {
    let sales, research, etudes, legal: Department
    let ann, bob, emile, li, olga: Employee
    let mia, zed: Manager
    let apollo, gemini, mercury: Project

    static let annBadge = UUID(uuidString: "00000000-0000-0000-0000-0000000000A1")!
    static let annPhoto = Data([1, 2, 3])
    static let annHomepage = URL(string: "https://ann.example.com/")!

    /// Inserts the company into `context` and saves.
    @discardableResult
    static func seed(in context: ManagedObjectContext) throws -> Company {
        func department(_ name: String, _ budget: String) -> Department {
            let department = Department(context: context)
            department.name = name
            department.budget = Decimal(string: budget)!
            return department
        }
        let sales = department("Sales", "1000.10")
        let research = department("Research", "2500.25")
        let etudes = department("Études", "0.50")
        let legal = department("Legal", "0")

        func fill(_ employee: Employee, _ first: String, _ last: String, age: Int16, rank: Int32, serial: Int64,
                  salary: Double, rating: Float, bonus: String, active: Bool, hired: Date?, nickname: String?,
                  department: Department?) {
            employee.firstName = first
            employee.lastName = last
            employee.age = age
            employee.rank = rank
            employee.serial = serial
            employee.salary = salary
            employee.rating = rating
            employee.bonus = Decimal(string: bonus)!
            employee.active = active
            employee.hired = hired
            employee.nickname = nickname
            employee.department = department
        }
        let mia = Manager(context: context)
        fill(mia, "Mia", "Lee", age: 52, rank: 4, serial: 100, salary: 12000, rating: 5, bonus: "100.01", active: true,
             hired: day(2015, 9, 1), nickname: "boss", department: sales)
        mia.level = 2
        mia.homepage = URL(string: "https://mia.example.com/")!
        let zed = Manager(context: context)
        fill(zed, "Zed", "Adams", age: 41, rank: 5, serial: 200, salary: 8000, rating: 4, bonus: "0", active: false,
             hired: day(2019, 2, 1), nickname: "zed", department: research)
        zed.level = 1
        let ann = Employee(context: context)
        fill(ann, "Ann", "Smith", age: 30, rank: 3, serial: 3_000_000_000, salary: 5000.5, rating: 4.5, bonus: "10.10", active: true,
             hired: day(2020, 1, 15), nickname: "annie", department: sales)
        ann.badge = annBadge
        ann.homepage = annHomepage
        ann.photo = annPhoto
        ann.manager = mia
        let bob = Employee(context: context)
        fill(bob, "Bob", "Jones", age: 45, rank: 2, serial: 42, salary: 7000, rating: 3.25, bonus: "20.20", active: false,
             hired: nil, nickname: nil, department: sales)
        bob.manager = mia
        let emile = Employee(context: context)
        fill(emile, "Émile", "Zola", age: 60, rank: 1, serial: -5, salary: 9000, rating: 1.7, bonus: "0.30", active: true,
             hired: day(2018, 6, 1), nickname: "Élan", department: etudes)
        let li = Employee(context: context)
        fill(li, "Li", "Wu", age: 38, rank: 2, serial: 7, salary: 6000, rating: 2, bonus: "5.55", active: true,
             hired: day(2021, 3, 1), nickname: "", department: research)
        li.manager = zed
        li.photo = Data([9])
        let olga = Employee(context: context)
        fill(olga, "olga", "Novak", age: 29, rank: 1, serial: 0, salary: 3000.25, rating: 3.5, bonus: "1.11", active: true,
             hired: nil, nickname: nil, department: nil)

        func project(_ title: String, _ members: Set<Employee>, _ department: Department?, _ tags: [String]) -> Project {
            let project = Project(context: context)
            project.title = title
            project.members = members
            project.department = department
            project.tags = tags.map { label in
                let tag = Tag(context: context)
                tag.label = label
                return tag
            }
            return project
        }
        let apollo = project("Apollo", [ann, bob, mia], sales, ["launch", "moon", "crew"])
        let gemini = project("Gemini", [ann, li, zed], research, ["two", "orbit"])
        let mercury = project("Mercury", [], nil, [])
        try context.save()
        return Company(sales: sales, research: research, etudes: etudes, legal: legal, ann: ann, bob: bob, emile: emile, li: li,
                       olga: olga, mia: mia, zed: zed, apollo: apollo, gemini: gemini, mercury: mercury)
    }
}

extension TestStore {
    /// Seeds the company through a container of its own, and returns a fresh container's
    /// view context to ask.
    func seededCompany() throws -> ManagedObjectContext {
        let writer = try container()
        try Company.seed(in: writer.viewContext)
        return try container().viewContext
    }
}

extension ManagedObjectContext {
    /// The first names of the employees (managers included) `format` selects, sorted.
    func employeeNames(_ format: String, _ arguments: Any?...) throws -> [String] {
        try employeeNames(FetchPredicate(format, argumentArray: arguments))
    }

    /// The first names of the employees `predicate` selects, sorted.
    func employeeNames(_ predicate: FetchPredicate) throws -> [String] {
        try fetch(FetchRequest<Employee>(predicate: predicate)).map(\.firstName).sorted()
    }

    /// The names of the departments `format` selects, sorted.
    func departmentNames(_ format: String, _ arguments: Any?...) throws -> [String] {
        try fetch(FetchRequest<Department>(predicate: FetchPredicate(format, argumentArray: arguments))).map(\.name).sorted()
    }

    /// The titles of the projects `format` selects, sorted.
    func projectTitles(_ format: String, _ arguments: Any?...) throws -> [String] {
        try fetch(FetchRequest<Project>(predicate: FetchPredicate(format, argumentArray: arguments))).map(\.title).sorted()
    }
}
