import Foundation
import ObjectGraph
import Testing

/// Every relationship kind, saved and read back through a fresh container; delete rules;
/// faults and prefetching.
@Suite("Relationships", .onOwnThreads)
struct RelationshipTests {
    private func one<T: ManagedObject>(_ type: T.Type, _ format: String, _ arguments: Any?..., in context: ManagedObjectContext) throws -> T {
        let found = try context.fetch(FetchRequest<T>(predicate: FetchPredicate(format, argumentArray: arguments)))
        try #require(found.count == 1, "\(format) found \(found.count) objects")
        return found[0]
    }

    @Test("A to-one and its inverse to-many are kept in step and read in both directions", arguments: StoreKind.allCases)
    func toOneWithInverse(_ kind: StoreKind) throws {
        let store = try kind.newStore()
        let context = try store.container().viewContext
        let sales = Department(context: context)
        sales.name = "Sales"
        let ann = Employee(context: context)
        ann.firstName = "Ann"
        ann.department = sales
        #expect(sales.employees == [ann], "setting the to-one updates the inverse at once")
        let mia = Manager(context: context)
        mia.firstName = "Mia"
        mia.reports.insert(ann)
        #expect(ann.manager === mia, "inserting into the to-many sets the inverse to-one")
        try context.save()

        let reader = try store.container().viewContext
        let readAnn = try one(Employee.self, "firstName == 'Ann'", in: reader)
        #expect(readAnn.department?.name == "Sales")
        #expect(readAnn.manager?.firstName == "Mia")
        let readSales = try one(Department.self, "name == 'Sales'", in: reader)
        #expect(readSales.employees.map(\.firstName) == ["Ann"])
        let readMia = try one(Manager.self, "firstName == 'Mia'", in: reader)
        #expect(readMia.reports.map(\.firstName) == ["Ann"])

        readAnn.department = nil
        readAnn.manager = nil
        #expect(readSales.employees.isEmpty)
        try reader.save()
        let third = try store.container().viewContext
        #expect(try one(Employee.self, "firstName == 'Ann'", in: third).department == nil)
        #expect(try one(Department.self, "name == 'Sales'", in: third).employees.isEmpty)
        #expect(try one(Manager.self, "firstName == 'Mia'", in: third).reports.isEmpty)
    }

    @Test("A many-to-many is read from both sides, and a removed member leaves both", arguments: StoreKind.allCases)
    func manyToMany(_ kind: StoreKind) throws {
        let store = try kind.newStore()
        let context = try store.container().viewContext
        let people = ["Ann", "Bob", "Cy"].map { name in
            let employee = Employee(context: context)
            employee.firstName = name
            return employee
        }
        let apollo = Project(context: context)
        apollo.title = "Apollo"
        apollo.members = Set(people)
        let gemini = Project(context: context)
        gemini.title = "Gemini"
        people[0].projects.insert(gemini)
        #expect(gemini.members == [people[0]], "the inverse many-to-many is updated at once")
        try context.save()

        let reader = try store.container().viewContext
        #expect(try one(Project.self, "title == 'Apollo'", in: reader).members.map(\.firstName).sorted() == ["Ann", "Bob", "Cy"])
        let readAnn = try one(Employee.self, "firstName == 'Ann'", in: reader)
        #expect(readAnn.projects.map(\.title).sorted() == ["Apollo", "Gemini"])
        let readBob = try one(Employee.self, "firstName == 'Bob'", in: reader)
        readBob.projects.removeAll()
        readAnn.projects.remove(try one(Project.self, "title == 'Gemini'", in: reader))
        try reader.save()

        let third = try store.container().viewContext
        #expect(try one(Project.self, "title == 'Apollo'", in: third).members.map(\.firstName).sorted() == ["Ann", "Cy"])
        #expect(try one(Project.self, "title == 'Gemini'", in: third).members.isEmpty)
        #expect(try one(Employee.self, "firstName == 'Bob'", in: third).projects.isEmpty)
    }

    @Test("An ordered to-many keeps its order through saves, reorders, inserts and removals", arguments: StoreKind.allCases)
    func orderedToMany(_ kind: StoreKind) throws {
        let store = try kind.newStore()
        let context = try store.container().viewContext
        let project = Project(context: context)
        project.title = "Apollo"
        project.tags = ["zeta", "alpha", "mid"].map { label in
            let tag = Tag(context: context)
            tag.label = label
            return tag
        }
        #expect(project.tags.allSatisfy { $0.project === project }, "the inverse to-one is set at once")
        try context.save()

        let reader = try store.container().viewContext
        let read = try one(Project.self, "title == 'Apollo'", in: reader)
        #expect(read.tags.map(\.label) == ["zeta", "alpha", "mid"])
        #expect(read.tags.allSatisfy { $0.project === read })
        var tags = read.tags
        tags.swapAt(0, 2)
        let inserted = Tag(context: reader)
        inserted.label = "new"
        tags.insert(inserted, at: 1)
        tags.removeAll { $0.label == "alpha" }
        read.tags = tags
        try reader.save()

        let third = try store.container().viewContext
        #expect(try one(Project.self, "title == 'Apollo'", in: third).tags.map(\.label) == ["mid", "new", "zeta"])
        let alpha = try one(Tag.self, "label == 'alpha'", in: third)
        #expect(alpha.project == nil, "a tag removed from the ordered to-many loses its inverse")
    }

    @Test("cascade deletes the destinations, nullify clears the inverse, deny refuses while related", arguments: StoreKind.allCases)
    func deleteRules(_ kind: StoreKind) throws {
        let store = try kind.newStore()
        try Company.seed(in: try store.container().viewContext)
        let context = try store.container().viewContext

        // cascade: Études goes with Émile; Legal (no employees) alone.
        context.delete(try one(Department.self, "name == 'Études'", in: context))
        try context.save()
        #expect(try context.employeeNames("TRUEPREDICATE") == ["Ann", "Bob", "Li", "Mia", "Zed", "olga"])

        // nullify: Bob leaves Sales, his manager's reports and Apollo's members.
        let bob = try one(Employee.self, "firstName == 'Bob'", in: context)
        context.delete(bob)
        try context.save()
        // many-to-many nullify and ordered cascade: Gemini goes with its tags, its members stay.
        context.delete(try one(Project.self, "title == 'Gemini'", in: context))
        try context.save()

        // deny: Sales still has Apollo.
        let sales = try one(Department.self, "name == 'Sales'", in: context)
        context.delete(sales)
        let denied = #expect(throws: ValidationError.self) { try context.save() }
        #expect(denied?.problems.first?.key == "projects")
        context.rollback()
        #expect(!sales.isDeleted)

        let reader = try store.container().viewContext
        #expect(try reader.count(for: FetchRequest<Department>()) == 3)
        #expect(try one(Department.self, "name == 'Sales'", in: reader).employees.map(\.firstName).sorted() == ["Ann", "Mia"])
        #expect(try one(Manager.self, "firstName == 'Mia'", in: reader).reports.map(\.firstName) == ["Ann"])
        #expect(try one(Project.self, "title == 'Apollo'", in: reader).members.map(\.firstName).sorted() == ["Ann", "Mia"])
        #expect(try one(Employee.self, "firstName == 'Ann'", in: reader).projects.map(\.title) == ["Apollo"])
        #expect(try reader.fetch(FetchRequest<Tag>(sortDescriptors: [SortKey("label")])).map(\.label) == ["crew", "launch", "moon"])

        // deny again, then allowed once the project is detached.
        let readSales = try one(Department.self, "name == 'Sales'", in: reader)
        let apollo = try one(Project.self, "title == 'Apollo'", in: reader)
        reader.delete(readSales)
        #expect(throws: ValidationError.self) { try reader.save() }
        apollo.department = nil
        try reader.save()
        let third = try store.container().viewContext
        #expect(try third.departmentNames("TRUEPREDICATE") == ["Legal", "Research"])
        #expect(try third.employeeNames("TRUEPREDICATE") == ["Li", "Zed", "olga"], "Sales' employees went with it")
        #expect(try one(Project.self, "title == 'Apollo'", in: third).members.isEmpty)
    }

    @Test("object(with:) gives a fault that loads on first touch; one row is one instance per context", arguments: StoreKind.allCases)
    func faults(_ kind: StoreKind) throws {
        let store = try kind.newStore()
        let company = try Company.seed(in: try store.container().viewContext)
        let context = try store.container().viewContext
        let id = try #require(context.persistentStoreCoordinator.managedObjectID(forURIRepresentation: company.ann.objectID.uriRepresentation))

        let ann = try #require(context.object(with: id) as? Employee)
        #expect(ann.isFault)
        #expect(ann.lastName == "Smith")
        #expect(!ann.isFault)
        #expect(ann.bonus == Decimal(string: "10.10"))
        let manager = try #require(ann.manager)
        #expect(manager.isFault, "a to-one destination stays a fault until touched")
        #expect(manager.firstName == "Mia")
        let fetched = try context.fetch(FetchRequest<Employee>(predicate: FetchPredicate("lastName == 'Smith'")))
        #expect(fetched.first === ann, "a fetch returns the registered instance")
        #expect(try context.existingObject(with: id) === ann)

        context.refresh(ann, mergeChanges: false)
        #expect(ann.isFault)
        #expect(ann.firstName == "Ann")
    }

    @Test("Prefetching loads to-one, to-many and many-to-many relationships with the fetch", arguments: StoreKind.allCases)
    func prefetching(_ kind: StoreKind) throws {
        let store = try kind.newStore()
        try Company.seed(in: try store.container().viewContext)
        let container = try store.container()
        let statements = Locked(0)
        container.persistentStoreCoordinator.sqlTrace = { _ in statements.withLock { $0 += 1 } }
        var request = FetchRequest<Employee>(sortDescriptors: [SortKey("firstName")])
        request.relationshipKeyPathsForPrefetching = ["department", "projects", "manager"]
        let employees = try container.viewContext.fetch(request)
        #expect(statements.value >= 1, "the store traces its statements")
        statements.withLock { $0 = 0 }

        let seen = employees.map { employee in
            "\(employee.firstName): \(employee.department?.name ?? "-") \(employee.manager?.firstName ?? "-") "
                + employee.projects.map(\.title).sorted().joined(separator: ",")
        }
        #expect(seen == ["Ann: Sales Mia Apollo,Gemini", "Bob: Sales Mia Apollo", "Li: Research Zed Gemini", "Mia: Sales - Apollo",
                         "Zed: Research - Gemini", "olga: - - ", "Émile: Études - "])
        #expect(statements.value == 0, "everything touched was prefetched")
    }
}

