import Foundation
import ManagedRecord
import Testing

// The class-level helpers with a `#Predicate`, in the serialized suite of the
// helpers: they find their stack through ManagedRecord's process-wide registry.
extension RecordHelperTests {
    @Test("fetch, get, count, observe, delete and deleteAll take a #Predicate", arguments: StoreKind.allCases)
    func foundationPredicates(_ kind: StoreKind) throws {
        let store = try kind.newStore()
        try store.setUpRecords()
        defer { ManagedRecord.tearDown(model: SuiteModel.name) }
        for (first, age, active) in [("Ann", Int16(30), true), ("Bob", 45, false), ("Cy", 52, true), ("Dee", 61, false)] {
            let employee = Employee.newEntity()
            (employee.firstName, employee.age, employee.active) = (first, age, active)
        }
        try Employee.commit()

        #expect(try Employee.fetch(where: #Predicate { $0.age > 40 }, sortedBy: [SortKey("firstName")]).map(\.firstName) == ["Bob", "Cy", "Dee"])
        #expect(try Employee.fetch(where: #Predicate { $0.age > 40 }, sortBy: [SortDescriptor(\.age, order: .reverse)], limit: 2)
            .map(\.firstName) == ["Dee", "Cy"])
        #expect(try Employee.get(where: #Predicate { $0.firstName.starts(with: "C") })?.firstName == "Cy")
        #expect(try Employee.count(where: #Predicate { $0.active }) == 2)
        let observed = try Employee.observe(where: #Predicate { $0.age < 50 }, sortedBy: [SortKey("firstName")])
        #expect(observed.objects.map(\.firstName) == ["Ann", "Bob"])

        #expect(try Employee.delete(where: #Predicate { $0.firstName == "Ann" }) == 1)
        try Employee.commit()
        #expect(try Employee.deleteAll(where: #Predicate { !$0.active }) == 2)
        #expect(try Employee.fetchAll().map(\.firstName) == ["Cy"])
        #expect(throws: FetchPredicateError.self) { try Employee.count(where: #Predicate { $0.isSenior }) }
        #expect(throws: FetchPredicateError.self) { try Employee.deleteAll(where: #Predicate { $0.isSenior }) }
        #expect(try Employee.count() == 1, "a refused #Predicate deletes nothing")
    }
}
