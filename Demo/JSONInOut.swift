import Foundation
import ObjectGraph

extension DemoSection {
    static let json = DemoSection("json", "JSON out of one store and into another, upserting by a unique attribute") { demo in
        try await demo.require(.modelAndSave)
        let source = try PersistentContainer(name: "Company", entities: demoEntities, storeURL: demo.companyStoreURL)
        var byName = FetchRequest<Employee>()
        byName.sortDescriptors = [SortKey("lastName")]

        step("Export: a fetch as JSON; relationships as the related objects' keys.")
        var options = JSONExportOptions()
        options.mapping = JSONMapping(relatedBy: ["Department": "name", "Employee": "badge"])
        let departments = try source.viewContext.exportJSON(FetchRequest<Department>(), options: JSONExportOptions(relationships: .omitted))
        let employees = try source.viewContext.exportJSON(byName, options: options)
        say("\(departments.count + employees.count) bytes of JSON; the first employee:")
        let records = try JSONSerialization.jsonObject(with: employees) as? [[String: Any]] ?? []
        if let first = records.first { say(String(decoding: try JSONSerialization.data(withJSONObject: first, options: [.sortedKeys]), as: UTF8.self)) }

        step("Import into an empty store: departments first, then employees naming them by key.")
        let copyURL = demo.folder.appendingPathComponent("CompanyCopy.sqlite")
        let copy = try PersistentContainer(name: "CompanyCopy", entities: demoEntities, storeURL: copyURL)
        let relatedBy = JSONImportOptions(relatedBy: ["Department": "name", "Employee": "badge"])
        let first = try copy.viewContext.importJSON(departments, entityName: "Department", options: relatedBy)
        let second = try copy.viewContext.importJSON(employees, entityName: "Employee", options: relatedBy)
        say("departments: \(first.inserted.count) inserted; employees: \(second.inserted.count) inserted")
        let before = try source.viewContext.fetch(byName).map { "\($0.fullName) (\($0.entity.name), \($0.department?.name ?? "-"))" }
        let after = try copy.viewContext.fetch(byName).map { "\($0.fullName) (\($0.entity.name), \($0.department?.name ?? "-"))" }
        say("in the copy: \(after.joined(separator: ", "))")
        expect(after == before, "the copy holds the same employees, managers and departments")

        step("Import again: records are matched by badge, so nothing is duplicated.")
        let again = try copy.viewContext.importJSON(employees, entityName: "Employee", options: relatedBy)
        say("inserted \(again.inserted.count), updated \(again.updated.count), skipped \(again.skipped.count) (unchanged)")
        let count = try copy.viewContext.count(for: FetchRequest<Employee>())
        expect(again.inserted.isEmpty && count == before.count, "an upsert, not a second copy")
        demo.shell("export", demo.companyStoreURL.path, "Employee", "--related-by", "Department=name", "--output", "employees.json")
        demo.shell("import", copyURL.path, "Employee", "employees.json", "--related-by", "Employee=badge", "--related-by", "Department=name")
    }
}
