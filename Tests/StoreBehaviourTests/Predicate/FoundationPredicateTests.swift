import Foundation
import ObjectGraph
import Testing

// Foundation's `#Predicate` on both stores. Each `#Predicate` of the table is
// paired with the format string that means the same; on random companies both must select
// the same employees in the same order as Foundation itself does when it evaluates the
// `#Predicate` on the objects, and as the library's in-memory evaluation does.

/// One supported form: a `#Predicate` and its format string.
struct FoundationPredicateCase: Sendable, CustomTestStringConvertible {
    let predicate: Predicate<Employee>
    let format: String
    var testDescription: String { format }
}

/// Computed properties: a `#Predicate` may name them, the stores cannot answer them.
extension Employee {
    var fullName: String { firstName + " " + lastName }
    var isSenior: Bool { age > 40 }
    var ageInMonths: Int16 { age * 12 }
    var sameAge: Int16 { age }
}

enum FoundationPredicateTable {
    static let minimumAge: Int16 = 40
    static let cutoff = day(2019)
    static let past = Date.distantPast
    static let badge = UUID(uuidString: "00000000-0000-0000-0000-000000000003")!
    static let names = ["Ann", "Zoë"]
    static let zero: Int32 = 0

    static var cases: [FoundationPredicateCase] {
        let minimumAge = minimumAge, cutoff = cutoff, past = past, badge = badge, names = names, zero = zero
        return [
            // Comparisons and equality on each type
            .init(predicate: #Predicate { $0.age > 40 }, format: "age > 40"),
            .init(predicate: #Predicate { $0.age >= minimumAge }, format: "age >= 40"),
            .init(predicate: #Predicate { $0.rank == 2 }, format: "rank == 2"),
            .init(predicate: #Predicate { $0.serial < 0 }, format: "serial < 0"),
            .init(predicate: #Predicate { $0.salary <= 6000 }, format: "salary <= 6000"),
            .init(predicate: #Predicate { $0.rating > 2.5 }, format: "rating > 2.5"),
            .init(predicate: #Predicate { $0.bonus >= 50 }, format: "bonus >= 50"),
            .init(predicate: #Predicate { $0.active }, format: "active == YES"),
            .init(predicate: #Predicate { !$0.active }, format: "NOT active == YES"),
            .init(predicate: #Predicate { $0.active == false }, format: "active == NO"),
            .init(predicate: #Predicate { $0.lastName == "Zola" }, format: "lastName == 'Zola'"),
            .init(predicate: #Predicate { $0.lastName < "M" }, format: "lastName < 'M'"),
            .init(predicate: #Predicate { $0.firstName != "Émile" }, format: "firstName != 'Émile'"),
            .init(predicate: #Predicate { $0.badge == badge }, format: "badge == %@"),
            // Optionals and nil
            .init(predicate: #Predicate { $0.nickname == nil }, format: "nickname == nil"),
            .init(predicate: #Predicate { $0.nickname != nil }, format: "nickname != nil"),
            .init(predicate: #Predicate { $0.nickname == "Élan" }, format: "nickname == 'Élan'"),
            .init(predicate: #Predicate { $0.nickname != "boss" }, format: "nickname != 'boss'"),
            .init(predicate: #Predicate { $0.hired == nil }, format: "hired == nil"),
            .init(predicate: #Predicate { ($0.hired ?? past) > cutoff }, format: "hired > %@"),
            .init(predicate: #Predicate { ($0.nickname ?? "none") == "none" }, format: "nickname == nil"),
            .init(predicate: #Predicate { $0.nickname?.isEmpty == true }, format: "nickname == ''"),
            .init(predicate: #Predicate { $0.department == nil }, format: "department == nil"),
            .init(predicate: #Predicate { $0.hired != nil && $0.hired! > cutoff }, format: "hired > %@"),
            // Optional chaining through to-ones
            .init(predicate: #Predicate { $0.department?.name == "Sales" }, format: "department.name == 'Sales'"),
            .init(predicate: #Predicate { $0.department?.name != "Sales" }, format: "department.name != 'Sales'"),
            .init(predicate: #Predicate { ($0.manager?.level ?? 0) >= 2 }, format: "manager.level >= 2"),
            .init(predicate: #Predicate { $0.manager?.department?.name == "Études" }, format: "manager.department.name == 'Études'"),
            .init(predicate: #Predicate { ($0.department?.employees.count ?? 0) > 8 }, format: "department.employees.@count > 8"),
            .init(predicate: #Predicate { $0.department?.name.starts(with: "S") ?? false }, format: "department.name BEGINSWITH 'S'"),
            .init(predicate: #Predicate { $0.department?.name.starts(with: "S") != true }, format: "NOT department.name BEGINSWITH 'S'"),
            .init(predicate: #Predicate { $0.manager?.reports.contains { $0.age > 50 } == true },
                  format: "SUBQUERY(manager.reports, $r, $r.age > 50).@count > 0"),
            // Logic
            .init(predicate: #Predicate { $0.age > 30 && $0.active }, format: "age > 30 AND active == YES"),
            .init(predicate: #Predicate { $0.age < 25 || $0.age > 60 || $0.rank == 0 }, format: "age < 25 OR age > 60 OR rank == 0"),
            .init(predicate: #Predicate { !($0.age > 40 && $0.nickname == nil) }, format: "NOT (age > 40 AND nickname == nil)"),
            // Arithmetic
            .init(predicate: #Predicate { $0.age + 5 > 50 }, format: "age + 5 > 50"),
            .init(predicate: #Predicate { $0.serial * 2 - 1 > 100 }, format: "serial * 2 - 1 > 100"),
            .init(predicate: #Predicate { $0.rank / 2 == 1 }, format: "rank / 2 == 1"),
            .init(predicate: #Predicate { $0.rank % 2 == 1 }, format: "modulus:by:(rank, 2) == 1"),
            .init(predicate: #Predicate { $0.salary / 2 > 3000 }, format: "salary / 2 > 3000"),
            .init(predicate: #Predicate { -$0.serial > 0 }, format: "serial < 0"),
            // Conditionals
            .init(predicate: #Predicate { ($0.active ? $0.salary : 0) > 5000 }, format: "TERNARY(active == YES, salary, 0) > 5000"),
            .init(predicate: #Predicate { $0.age > 50 ? $0.active : $0.rank > 2 }, format: "(age > 50 AND active == YES) OR (age <= 50 AND rank > 2)"),
            // Strings
            .init(predicate: #Predicate { $0.lastName.contains("o") }, format: "lastName CONTAINS 'o'"),
            .init(predicate: #Predicate { $0.firstName.starts(with: "É") }, format: "firstName BEGINSWITH 'É'"),
            .init(predicate: #Predicate { $0.department?.name.starts(with: "Ét") == true }, format: "department.name BEGINSWITH 'Ét'"),
            // Ranges and constant collections
            .init(predicate: #Predicate { (30...45).contains($0.age) }, format: "age BETWEEN {30, 45}"),
            .init(predicate: #Predicate { (30..<45).contains($0.age) }, format: "age >= 30 AND age < 45"),
            .init(predicate: #Predicate { ("A"..."M").contains($0.lastName) }, format: "lastName BETWEEN {'A', 'M'}"),
            .init(predicate: #Predicate { names.contains($0.firstName) }, format: "firstName IN {'Ann', 'Zoë'}"),
            .init(predicate: #Predicate { (zero...$0.rank).contains(2) }, format: "rank >= 2"),
            // To-many relationships
            .init(predicate: #Predicate { $0.projects.isEmpty }, format: "projects.@count == 0"),
            .init(predicate: #Predicate { !$0.projects.isEmpty }, format: "projects.@count > 0"),
            .init(predicate: #Predicate { $0.projects.count >= 2 }, format: "projects.@count >= 2"),
            .init(predicate: #Predicate { $0.projects.contains { $0.title == "Apollo" } }, format: "ANY projects.title == 'Apollo'"),
            .init(predicate: #Predicate { $0.projects.allSatisfy { $0.title.starts(with: "G") } }, format: "SUBQUERY(projects, $p, NOT $p.title BEGINSWITH 'G').@count == 0"),
            .init(predicate: #Predicate { $0.projects.filter { $0.tags.count > 1 }.count == 1 }, format: "SUBQUERY(projects, $p, $p.tags.@count > 1).@count == 1"),
            .init(predicate: #Predicate { $0.projects.filter { $0.department == nil }.isEmpty }, format: "SUBQUERY(projects, $p, $p.department == nil).@count == 0"),
            .init(predicate: #Predicate { $0.projects.filter { $0.title != "Apollo" }.contains { $0.tags.count >= 2 } },
                  format: "SUBQUERY(projects, $p, $p.title != 'Apollo' AND $p.tags.@count >= 2).@count > 0"),
            .init(predicate: #Predicate { e in e.projects.contains { p in p.members.contains { m in m.age > e.age } } },
                  format: "SUBQUERY(projects, $p, SUBQUERY($p.members, $m, $m.age > age).@count > 0).@count > 0"),
            .init(predicate: #Predicate { e in e.department?.employees.contains(e) == true }, format: "department.employees.@count > 0"),
            .init(predicate: #Predicate { $0.projects.contains { $0.tags.contains { $0.label.contains("o") } } },
                  format: "SUBQUERY(projects, $p, ANY $p.tags.label CONTAINS 'o').@count > 0"),
        ]
    }

    /// The arguments of the formats that take one.
    static func arguments(for format: String) -> [Any?] {
        switch format {
        case "badge == %@": return [badge]
        case "hired > %@": return [cutoff]
        default: return []
        }
    }
}

@Suite("#Predicate (Foundation) on each store", .onOwnThreads)
struct FoundationPredicateTests {
    @Test("Each #Predicate selects what its format string and Foundation select, in order, on random companies",
          arguments: StoreKind.allCases)
    func tableOnRandomCompanies(_ kind: StoreKind) throws {
        var discriminates = Set<String>()     // formats that selected some but not all employees once
        for seed: UInt64 in [1, 2, 3] {
            let store = try kind.newStore()
            try RandomCompany.seed(seed, in: store.container().viewContext)
            let context = try store.container().viewContext
            let everyone = try context.fetch(FetchRequest<Employee>(sortDescriptors: [SortKey("serial")]))
            for entry in FoundationPredicateTable.cases {
                let translated = FetchPredicate(entry.predicate)
                #expect(translated.translationError == nil, "\(entry.format): \(String(describing: translated.translationError))")
                let request = FetchRequest<Employee>(predicate: entry.predicate, sortDescriptors: [SortKey("serial")])
                let stored = try context.fetch(request).map(\.serial)
                let format = try FetchPredicate(entry.format, argumentArray: FoundationPredicateTable.arguments(for: entry.format))
                let byFormat = try context.fetch(FetchRequest<Employee>(predicate: format, sortDescriptors: [SortKey("serial")])).map(\.serial)
                let byFoundation = try everyone.filter { try entry.predicate.evaluate($0) }.map(\.serial)
                let inMemory = try everyone.filter { try translated.evaluate(with: $0) }.map(\.serial)
                #expect(stored == byFoundation, "seed \(seed): #Predicate for '\(entry.format)' (translated '\(translated.predicateFormat)')")
                #expect(byFormat == byFoundation, "seed \(seed): format '\(entry.format)'")
                #expect(inMemory == byFoundation, "seed \(seed): in memory, '\(translated.predicateFormat)'")
                #expect(try context.count(for: request) == byFoundation.count)
                if !byFoundation.isEmpty && byFoundation.count < everyone.count { discriminates.insert(entry.format) }
            }
        }
        let trivial = FoundationPredicateTable.cases.map(\.format).filter { !discriminates.contains($0) }
        #expect(trivial.isEmpty, "these select nobody or everybody on every company, so they test little: \(trivial)")
    }

    @Test("A #Predicate on a sub-entity and its own relationships", arguments: StoreKind.allCases)
    func subEntity(_ kind: StoreKind) throws {
        let context = try kind.newStore().seededCompany()
        let request = FetchRequest<Manager>(predicate: #Predicate { $0.reports.contains { $0.active } && $0.level >= 1 })
        #expect(try context.fetch(request).map(\.firstName).sorted() == ["Mia", "Zed"])
        #expect(try context.fetch(Manager.self, where: #Predicate { $0.reports.count == 2 }).map(\.firstName) == ["Mia"])
        #expect(try context.fetch(Department.self, where: #Predicate { $0.employees.isEmpty }).map(\.name) == ["Legal"])
        #expect(try context.fetch(Project.self, where: #Predicate { $0.tags.contains { $0.label == "moon" } }).map(\.title) == ["Apollo"])
    }

    @Test("Every entry point takes a #Predicate: count, sort descriptors, batch update and delete, FetchedResults",
          arguments: StoreKind.allCases)
    func entryPoints(_ kind: StoreKind) throws {
        let context = try kind.newStore().seededCompany()
        #expect(try context.count(Employee.self, where: #Predicate { $0.age > 40 }) == 4)
        let sorted = try context.fetch(Employee.self, where: #Predicate { $0.active },
                                       sortBy: [SortDescriptor(\.age, order: .reverse)])
        #expect(sorted.map(\.firstName) == ["Émile", "Mia", "Li", "Ann", "olga"])
        let byName = try context.fetch(FetchRequest<Employee>(predicate: #Predicate { $0.age < 50 }, sortBy: [SortDescriptor(\.lastName)]))
        #expect(byName.map(\.lastName) == ["Adams", "Jones", "Novak", "Smith", "Wu"])

        #expect(SortKey(SortDescriptor(\Employee.firstName, comparator: .lexical)) == SortKey("firstName"))
        #expect(SortKey(SortDescriptor(\Employee.firstName, order: .reverse)) == SortKey("firstName", ascending: false))
        let everyone = FetchRequest<Employee>(sortBy: [SortDescriptor(\.firstName, comparator: .lexical, order: .reverse)])
        #expect(try context.fetch(everyone).map(\.firstName) == ["Émile", "olga", "Zed", "Mia", "Li", "Bob", "Ann"])
        let computed = SortKey(SortDescriptor(\Employee.fullName))
        #expect(computed.key.contains("not a stored attribute of Employee"), "\(computed.key)")
        #expect(throws: KeyValueError.self) { try context.fetch(FetchRequest<Employee>(sortDescriptors: [computed])) }

        let results = try FetchedResults(FetchRequest<Employee>(predicate: #Predicate { $0.department?.name == "Research" },
                                                                 sortDescriptors: [SortKey("firstName")]), context: context)
        #expect(results.objects.map(\.firstName) == ["Li", "Zed"])

        let update = BatchUpdateRequest(Employee.self, predicate: #Predicate { $0.department?.name == "Sales" },
                                        propertiesToUpdate: ["rank": Int32(9)])
        #expect(try context.execute(update).count == 3)
        var delete = BatchDeleteRequest(Employee.self, predicate: #Predicate { $0.rank == 9 && !$0.active })
        delete.resultType = .count
        #expect(try context.execute(delete).count == 1)
        let fresh = try context.fetch(FetchRequest<Employee>(predicate: #Predicate { $0.rank == 9 })).map(\.firstName).sorted()
        #expect(fresh == ["Ann", "Mia"])
    }

    @Test("A #Predicate combines with format-string and key-path predicates", arguments: StoreKind.allCases)
    func combining(_ kind: StoreKind) throws {
        let context = try kind.newStore().seededCompany()
        let combined = FetchPredicate(#Predicate<Employee> { $0.age > 40 }) && (try FetchPredicate("active == YES"))
        #expect(try context.employeeNames(combined) == ["Mia", "Émile"])
        #expect(try context.employeeNames(!FetchPredicate(#Predicate<Employee> { $0.age > 40 })) == ["Ann", "Li", "olga"])
        #expect(FetchPredicate(#Predicate<Employee> { $0.department?.name == "Sales" && $0.age > 40 }).predicateFormat
                == "(department.name == \"Sales\") AND (age > 40)")
    }

    // MARK: Refused forms

    /// The error a fetch with `predicate` throws; the request is made without throwing.
    private func refusal(_ predicate: Predicate<Employee>, on kind: StoreKind) throws -> FetchPredicateError? {
        let context = try kind.newStore().seededCompany()
        let request = FetchRequest<Employee>(predicate: predicate)
        do {
            _ = try context.fetch(request)
            return nil
        } catch let error as FetchPredicateError {
            #expect(throws: FetchPredicateError.self) { try context.count(for: request) }
            return error
        }
    }

    @Test("A computed property is refused at fetch time, naming the key path", arguments: StoreKind.allCases)
    func computedProperty(_ kind: StoreKind) throws {
        for predicate in [#Predicate<Employee> { $0.fullName == "Ann Smith" }, #Predicate<Employee> { $0.isSenior },
                          #Predicate<Employee> { $0.ageInMonths > 400 }] {
            let error = try #require(try refusal(predicate, on: kind))
            #expect(error.code == .unsupported)
            #expect(error.message.contains("is not a stored attribute or relationship of Employee"), "\(error)")
            #expect(error.key?.contains("Employee") == true)
        }
    }

    @Test("A computed property that reads one attribute unchanged means that attribute", arguments: StoreKind.allCases)
    func computedAlias(_ kind: StoreKind) throws {
        let context = try kind.newStore().seededCompany()
        #expect(try context.employeeNames(FetchPredicate(#Predicate<Employee> { $0.sameAge > 50 })) == ["Mia", "Émile"])
    }

    @Test("A transient attribute is refused, naming it", arguments: StoreKind.allCases)
    func transientAttribute(_ kind: StoreKind) throws {
        let error = try #require(try refusal(#Predicate { $0.scratch == "x" }, on: kind))
        #expect(error.code == .unsupported)
        #expect(error.message.contains("Employee.scratch is transient"), "\(error)")
    }

    @Test("String.count, a collection's first element and a type check are refused", arguments: StoreKind.allCases)
    func methodsWithoutSQLMeaning(_ kind: StoreKind) throws {
        let count = try #require(try refusal(#Predicate { $0.lastName.count > 3 }, on: kind))
        #expect(count.message.contains("String.count (of 'lastName') counts characters"), "\(count)")
        let typeCheck = try #require(try refusal(#Predicate { $0 is Manager }, on: kind))
        #expect(typeCheck.code == .unsupported)
        #expect(typeCheck.message.contains("a type check (is)"), "\(typeCheck)")
        let context = try kind.newStore().seededCompany()
        let first = FetchRequest<Project>(predicate: #Predicate { $0.tags.first?.label == "moon" })
        #expect {
            _ = try context.fetch(first)
        } throws: { error in
            (error as? FetchPredicateError)?.message.contains("has no meaning the stores can answer") == true
        }
    }

    @Test("A subscript of a to-many, a regular expression and a cast are refused, naming them", arguments: StoreKind.allCases)
    func subscriptsAndCasts(_ kind: StoreKind) throws {
        let context = try kind.newStore().seededCompany()
        let subscripted = FetchRequest<Project>(predicate: #Predicate { $0.tags[0].label == "moon" })
        #expect {
            _ = try context.fetch(subscripted)
        } throws: { error in
            (error as? FetchPredicateError)?.message.contains("subscripting a collection of the object ([i])") == true
        }
        let regex = try #require(try refusal(#Predicate { $0.lastName.contains(/Sm.th/) }, on: kind))
        #expect(regex.message.contains("contains(Regex) has no SQL meaning here; use MATCHES"), "\(regex)")
        let cast = try #require(try refusal(#Predicate { ($0 as? Manager)?.level == 2 }, on: kind))
        #expect(cast.code == .unsupported)
        #expect(cast.message.contains("a cast (as?)"), "\(cast)")
    }

    @Test("A refused #Predicate stays refused when combined, and in memory", arguments: StoreKind.allCases)
    func refusalPropagates(_ kind: StoreKind) throws {
        let context = try kind.newStore().seededCompany()
        let refused = FetchPredicate(#Predicate<Employee> { $0.isSenior })
        #expect(refused.translationError?.code == .unsupported)
        #expect((refused && FetchPredicate.always).translationError != nil)
        #expect((FetchPredicate.always || refused).translationError != nil)
        #expect((!refused).translationError != nil)
        let someone = try #require(try context.fetch(FetchRequest<Employee>()).first)
        #expect(throws: FetchPredicateError.self) { try refused.evaluate(with: someone) }
        #expect(throws: FetchPredicateError.self) {
            try context.fetch(FetchRequest<Employee>(predicate: refused && FetchPredicate.always))
        }
        var delete = BatchDeleteRequest(Employee.self, predicate: #Predicate { $0.isSenior })
        delete.resultType = .count
        #expect(throws: FetchPredicateError.self) { try context.execute(delete) }
        #expect(try context.count(for: FetchRequest<Employee>()) == 7, "nothing was deleted")
    }
}

/// Random companies: employees with every attribute type, nil and diacritics, managers,
/// departments (one empty), projects with tags (some with none).
enum RandomCompany {
    static func seed(_ seed: UInt64, in context: ManagedObjectContext) throws {
        var random = GraphRandom(seed: seed)
        let departments = ["Sales", "Études", "Research", "Légal"].map { name -> Department in
            let department = Department(context: context)
            department.name = name
            return department
        }
        let projects = ["Apollo", "Gemini", "Mercury", "Ümlaut"].map { title -> Project in
            let project = Project(context: context)
            project.title = title
            project.department = Bool.random(using: &random) ? departments.randomElement(using: &random) : nil
            project.tags = (0..<Int.random(in: 0...3, using: &random)).map { index in
                let tag = Tag(context: context)
                tag.label = ["moon", "orbit", "crew", "ẞig", "two"][(index + Int.random(in: 0...4, using: &random)) % 5]
                return tag
            }
            return project
        }
        let firstNames = ["Ann", "Bob", "Émile", "olga", "Zoë", "Li", "Mia", "Øyvind", "chloé", "Zed"]
        let lastNames = ["Smith", "Jones", "Zola", "Wu", "Lee", "Adams", "Novak", "Ångström", "Müller", "o'Brien"]
        let nicknames: [String?] = [nil, nil, "", "boss", "Élan", "zed", "annie"]
        var managers: [Manager] = []
        for index in 0..<30 {
            let employee: Employee
            if index % 5 == 0 {
                let manager = Manager(context: context)
                manager.level = Int.random(in: 1...3, using: &random)
                managers.append(manager)
                employee = manager
            } else {
                employee = Employee(context: context)
            }
            employee.firstName = firstNames.randomElement(using: &random)!
            employee.lastName = lastNames.randomElement(using: &random)!
            employee.nickname = nicknames.randomElement(using: &random)!
            employee.age = Int16.random(in: 18...70, using: &random)
            employee.rank = Int32.random(in: 0...5, using: &random)
            employee.serial = Int64(index * 7 - 50)
            employee.salary = Double(Int.random(in: 8...48, using: &random) * 250)
            employee.rating = Float(Int.random(in: 0...20, using: &random)) / 4
            employee.bonus = Decimal(Int.random(in: 0...100, using: &random))
            employee.active = Bool.random(using: &random)
            employee.badge = UUID(uuidString: String(format: "00000000-0000-0000-0000-%012d", index))!
            employee.hired = Int.random(in: 0...3, using: &random) == 0 ? nil : day(2015 + Int.random(in: 0...8, using: &random))
            employee.department = Int.random(in: 0...4, using: &random) == 0 ? nil : departments[Int.random(in: 0...2, using: &random)]
            employee.manager = Bool.random(using: &random) ? managers.randomElement(using: &random) : nil
            employee.projects = Set(projects.filter { _ in Int.random(in: 0...2, using: &random) == 0 })
        }
        try context.save()
    }
}

extension Employee {
    /// The manager, under another name.
    var boss: Manager? { manager }
    /// The manager's manager: typed as a relationship, but none.
    var grandBoss: Manager? { manager?.manager }
}

extension Department {
    /// One of the employees: typed as the relationship, but not it.
    var someEmployees: Set<Employee> { Set(employees.prefix(1)) }
}

/// Two to-one relationships of one class to the same destination: their key paths look alike.
final class Relative: ManagedObject {
    @Attribute var name: String = ""
    @Relationship var mother: Relative?
    @Relationship var father: Relative?
    /// A `Codable` value, stored encoded (transformable).
    @Attribute var hobbies: [String] = []
}

@Suite("#Predicate key paths", .onOwnThreads)
struct FoundationPredicateKeyPathTests {
    @Test("Two relationships alike are told apart, never confused", arguments: StoreKind.allCases)
    func relationshipsAlike(_ kind: StoreKind) throws {
        let store = try kind.newStore()
        let context = try store.container([Relative.self], name: "Family").viewContext
        let ann = Relative(context: context), bob = Relative(context: context), cy = Relative(context: context)
        (ann.name, bob.name, cy.name) = ("Ann", "Bob", "Cy")
        cy.mother = ann
        cy.father = bob
        try context.save()
        #expect(try context.fetch(FetchRequest<Relative>(predicate: #Predicate { $0.mother?.name == "Ann" })).map(\.name) == ["Cy"])
        #expect(try context.fetch(FetchRequest<Relative>(predicate: #Predicate { $0.father?.name == "Ann" })).isEmpty)
        #expect(try context.fetch(FetchRequest<Relative>(predicate: #Predicate { $0.father?.name == "Bob" })).map(\.name) == ["Cy"])
        #expect(try context.fetch(FetchRequest<Relative>(predicate: #Predicate { $0.name != "Cy" })).count == 2)
    }

    @Test("A computed property typed as a relationship means it only when it returns it unchanged", arguments: StoreKind.allCases)
    func computedRelationships(_ kind: StoreKind) throws {
        let context = try kind.newStore().container().viewContext
        let ann = Manager(context: context), bob = Manager(context: context), cy = Employee(context: context)
        (ann.firstName, bob.firstName, cy.firstName) = ("Ann", "Bob", "Cy")
        bob.manager = ann
        cy.manager = bob
        let sales = Department(context: context)
        sales.name = "Sales"
        (ann.department, bob.department) = (sales, sales)
        try context.save()

        #expect(try context.fetch(FetchRequest<Employee>(predicate: #Predicate { $0.boss?.firstName == "Ann" })).map(\.firstName) == ["Bob"],
                "an alias of manager means manager")
        func refused<Entity: ManagedObject>(_ request: FetchRequest<Entity>) -> Bool {
            do {
                _ = try context.fetch(request)
                return false
            } catch let error as FetchPredicateError {
                return error.code == .unsupported && error.message.contains("not a stored attribute or relationship")
            } catch {
                return false
            }
        }
        #expect(refused(FetchRequest<Employee>(predicate: #Predicate { $0.grandBoss?.firstName == "Ann" })),
                "manager?.manager is not manager (it would have matched Bob)")
        #expect(refused(FetchRequest<Department>(predicate: #Predicate { $0.someEmployees.count == 2 })),
                "one member of employees is not employees")
    }

    @Test("A transformable (Codable) attribute is refused, naming it", arguments: StoreKind.allCases)
    func transformableAttribute(_ kind: StoreKind) throws {
        let context = try kind.newStore().container([Relative.self], name: "Family").viewContext
        let request = FetchRequest<Relative>(predicate: #Predicate { $0.hobbies.contains("chess") })
        #expect {
            _ = try context.fetch(request)
        } throws: { error in
            guard let error = error as? FetchPredicateError else { return false }
            return error.code == .unsupported && error.message.contains("kept encoded (transformable: hobbies)")
        }
    }
}
