import Foundation
import ObjectGraph
import Testing

/// Batch deletes and updates: run by the store without loading objects, with the delete rules
/// applied, and merged into every context of the container.
@Suite("Batch requests", .onOwnThreads)
struct BatchRequestTests {
    @Test("A batch delete with a predicate removes the rows, nullifies join rows and reaches every context", arguments: StoreKind.allCases)
    func batchDeleteWithPredicate(_ kind: StoreKind) throws {
        let store = try kind.newStore()
        let container = try store.container()
        let company = try Company.seed(in: container.viewContext)
        let background = container.newBackgroundContext()
        let annID = company.ann.objectID
        let backgroundAnn = try background.performAndWait { try background.existingObject(with: annID) }

        var request = BatchDeleteRequest(Employee.self, predicate: try FetchPredicate("age < %@", 35))
        request.resultType = .objectIDs
        let result = try container.viewContext.execute(request)
        #expect(result.count == 2)
        #expect(Set(result.objectIDs) == [annID, company.olga.objectID])
        #expect(company.ann.isDeleted && company.olga.isDeleted, "registered objects of this context are deleted at once")
        #expect(!company.bob.isDeleted)
        #expect(try container.viewContext.employeeNames("TRUEPREDICATE") == ["Bob", "Li", "Mia", "Zed", "Émile"])
        background.performAndWait {
            _ = background.registeredObjects      // an entry point: the batch merges here
            #expect(backgroundAnn.isDeleted, "another context of the container learns it at its next entry point")
        }

        let reader = try store.container().viewContext
        #expect(try reader.count(for: FetchRequest<Employee>()) == 5)
        #expect(try reader.projectTitles("ANY members.firstName == 'Ann'") == [], "join rows of deleted members are gone")
        #expect(try reader.fetch(FetchRequest<Project>(predicate: FetchPredicate("title == 'Apollo'"))).first?.members.map(\.firstName).sorted()
                == ["Bob", "Mia"])
        #expect(try reader.fetch(FetchRequest<Manager>(predicate: FetchPredicate("firstName == 'Mia'"))).first?.reports.map(\.firstName) == ["Bob"])
    }

    @Test("A batch delete without a predicate removes every row of the entity and its sub-entities", arguments: StoreKind.allCases)
    func batchDeleteWithoutPredicate(_ kind: StoreKind) throws {
        let store = try kind.newStore()
        let container = try store.container()
        let company = try Company.seed(in: container.viewContext)
        let newcomer = Employee(context: container.viewContext)
        newcomer.firstName = "Unsaved"

        let tags = try container.viewContext.execute(BatchDeleteRequest(Tag.self))
        #expect(tags.count == 5)
        #expect(company.apollo.tags.isEmpty, "the nullified ordered to-many reloads empty")
        let everyone = try container.viewContext.execute(BatchDeleteRequest(Employee.self))
        #expect(everyone.count == 7)
        #expect(company.mia.isDeleted && company.ann.isDeleted)
        #expect(!newcomer.isDeleted, "an unsaved insert is not affected")
        #expect(try container.viewContext.employeeNames("TRUEPREDICATE") == ["Unsaved"])

        let reader = try store.container().viewContext
        #expect(try reader.count(for: FetchRequest<Employee>()) == 0)
        #expect(try reader.count(for: FetchRequest<Tag>()) == 0)
        #expect(try reader.count(for: FetchRequest<Department>()) == 4)
        #expect(try reader.fetch(FetchRequest<Department>()).allSatisfy { $0.employees.isEmpty })
        #expect(try reader.fetch(FetchRequest<Project>()).allSatisfy { $0.members.isEmpty && $0.tags.isEmpty })
    }

    @Test("A batch delete cascades, and a deny rule refuses the whole batch", arguments: StoreKind.allCases)
    func batchDeleteCascadesAndDenies(_ kind: StoreKind) throws {
        let store = try kind.newStore()
        let container = try store.container()
        let company = try Company.seed(in: container.viewContext)
        let context = container.viewContext

        var etudes = BatchDeleteRequest(Department.self, predicate: try FetchPredicate("name == %@", "Études"))
        etudes.resultType = .objectIDs
        let result = try context.execute(etudes)
        #expect(result.objectIDs == [company.etudes.objectID])
        #expect(result.cascadedObjectIDs == [company.emile.objectID])
        #expect(company.emile.isDeleted)

        let refused = #expect(throws: BatchRequestError.self) {
            _ = try context.execute(BatchDeleteRequest(Department.self, predicate: try FetchPredicate("name BEGINSWITH 'S' OR name == 'Legal'")))
        }
        #expect(refused?.code == .denied)
        #expect(refused?.entity == "Department")
        #expect(!company.sales.isDeleted && !company.legal.isDeleted)

        let cascadedProjects = try context.execute(BatchDeleteRequest(Project.self, predicate: try FetchPredicate("title == 'Apollo'")))
        #expect(cascadedProjects.count == 1)
        #expect(company.apollo.isDeleted)

        let reader = try store.container().viewContext
        #expect(try reader.departmentNames("TRUEPREDICATE") == ["Legal", "Research", "Sales"], "nothing of the refused batch was deleted")
        #expect(try reader.employeeNames("TRUEPREDICATE") == ["Ann", "Bob", "Li", "Mia", "Zed", "olga"])
        #expect(try reader.fetch(FetchRequest<Tag>(sortDescriptors: [SortKey("label")])).map(\.label) == ["orbit", "two"],
                "Apollo's tags went with it (cascade)")
        #expect(try reader.fetch(FetchRequest<Department>(predicate: FetchPredicate("name == 'Sales'"))).first?.projects.isEmpty == true)
    }

    @Test("A batch update sets stored values and refreshes every context, keeping unsaved edits", arguments: StoreKind.allCases)
    func batchUpdate(_ kind: StoreKind) throws {
        let store = try kind.newStore()
        let container = try store.container()
        let company = try Company.seed(in: container.viewContext)
        let context = container.viewContext
        company.bob.firstName = "Robert"           // unsaved: kept through the batch
        let background = container.newBackgroundContext()
        let annID = company.ann.objectID
        let backgroundAnn = try background.performAndWait { try background.existingObject(with: annID) as! Employee }

        let result = try context.execute(BatchUpdateRequest(Employee.self, predicate: try FetchPredicate("department.name == %@", "Sales"),
                                                            propertiesToUpdate: ["salary": 7100.0, "nickname": nil, "hired": day(2022),
                                                                                 "bonus": Decimal(string: "0.01")!]))
        #expect(result.count == 3)
        #expect(Set(result.objectIDs) == Set([company.ann, company.bob, company.mia].map(\.objectID)))
        #expect(company.ann.salary == 7100)
        #expect(company.mia.nickname == nil)
        #expect(company.mia.hired == day(2022))
        #expect(company.ann.bonus == Decimal(string: "0.01"))
        #expect(company.bob.firstName == "Robert", "an unsaved edit survives the refresh")
        #expect(company.li.salary == 6000)
        background.performAndWait {
            #expect(backgroundAnn.salary == 7100, "another context of the container shows the new value")
        }

        #expect(throws: MergeConflictError.self, "Bob's unsaved edit meets the batch's new version") { try context.save() }
        context.mergePolicy = .mergeByPropertyObjectTrump
        try context.save()
        let reader = try store.container().viewContext
        #expect(try reader.employeeNames("salary == 7100 AND hired == %@ AND nickname == nil", day(2022)) == ["Ann", "Mia", "Robert"])
        #expect(try reader.employeeNames("bonus == %@", Decimal(string: "0.01")!) == ["Ann", "Mia", "Robert"])

        let invalid = #expect(throws: BatchRequestError.self) {
            _ = try context.execute(BatchUpdateRequest(Employee.self, propertiesToUpdate: ["age": "old"]))
        }
        #expect(invalid?.code == .invalidUpdate)
        #expect(try reader.count(for: FetchRequest<Employee>(predicate: FetchPredicate("age == 0"))) == 0)
    }
}
