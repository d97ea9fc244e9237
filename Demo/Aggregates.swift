import Foundation
import ObjectGraph

extension DemoSection {
    static let aggregates = DemoSection("aggregates", "count, sum, average, min, max, distinct and grouped results, each one SQL statement") { demo in
        try await demo.require(.modelAndSave)
        let container = try PersistentContainer(name: "Company", entities: demoEntities, storeURL: demo.companyStoreURL)
        let context = container.viewContext
        let everyone = try context.fetch(FetchRequest<Employee>())

        step("Aggregates: SQLite computes them over the saved rows; no object is made.")
        let total = try context.aggregate(.sum, of: "salary", for: FetchRequest<Employee>()) ?? 0
        let mean = try context.aggregate(.average, of: "age", for: FetchRequest<Employee>()) ?? 0
        let youngest = try context.aggregate(.min, of: "age", as: Int.self, for: FetchRequest<Employee>())
        let latest = try context.aggregate(.max, of: "hired", as: Date.self, for: FetchRequest<Employee>())
        say("sum of salaries \(total), average age \(mean), youngest \(youngest ?? 0), latest hire \(latest.map { "\($0)" } ?? "none")")
        expect(total == everyone.map(\.salary).reduce(0, +), "the SQL sum is the sum of the fetched objects' salaries")
        expect(abs(mean - Double(everyone.map(\.age).reduce(0, +)) / Double(everyone.count)) < 1e-9, "the SQL average is the objects' average")
        expect(youngest == everyone.map(\.age).min(), "min(age) is the youngest's age")
        expect(latest == everyone.compactMap(\.hired).max(), "max(hired) is a Date, the latest hire")

        step("With a predicate, and through a to-one relationship.")
        var sales = FetchRequest<Employee>()
        sales.predicate = try FetchPredicate("department.name == %@", "Sales")
        let salesTotal = try context.aggregate(.sum, of: "salary", for: sales) ?? 0
        say("sum of salaries in Sales: \(salesTotal)")
        expect(salesTotal == everyone.filter { $0.department?.name == "Sales" }.map(\.salary).reduce(0, +), "the filtered sum")

        step("Distinct values and a grouped dictionary result.")
        let names = try context.distinctValues(of: "department.name", as: String.self, for: FetchRequest<Employee>())
        say("distinct department.name of employees: \(names.sorted())")
        expect(Set(names) == Set(everyone.compactMap { $0.department?.name }), "distinct values through a relationship")
        var grouped = FetchRequest<Employee>()
        grouped.resultType = .dictionary
        grouped.propertiesToFetch = ["department.name", .aggregate(.count, of: "age", as: "people")]
        grouped.propertiesToGroupBy = ["department.name"]
        grouped.sortDescriptors = [SortKey("department.name")]
        let rows = try context.fetchDictionaries(grouped)
        for row in rows { say("\(row["department.name"] ?? "-"): \(row["people"] ?? 0) people") }
        let withoutDepartment = everyone.contains { $0.department == nil } ? 1 : 0
        expect(rows.count == names.count + withoutDepartment, "one row per department (and one for employees without)")
        demo.shell("aggregate", demo.companyStoreURL.path, "Employee", "sum", "salary", "department.name == 'Sales'")
        demo.shell("distinct", demo.companyStoreURL.path, "Employee", "department.name")
    }
}
