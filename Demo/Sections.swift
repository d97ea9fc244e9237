import Foundation

// The sections made of the chapters written first (Basics, Reading, Concurrency,
// ActiveRecord, AsyncScript). Newer sections each have a file of their own.
extension DemoSection {
    static let modelAndSave = DemoSection("model", "a model in Swift classes, insert, relationships, save, validation, rollback, undo") { demo in
        demo.johnURI = try basics(storeURL: demo.companyStoreURL)
        demo.shell("schema", demo.companyStoreURL.path)
    }

    static let fetching = DemoSection("fetch", "object IDs, faulting, uniquing, sorted fetches, format-string and typed predicates") { demo in
        try await demo.require(.modelAndSave)
        try reading(storeURL: demo.companyStoreURL, johnURI: demo.johnURI!)
        demo.shell("fetch", demo.companyStoreURL.path, "Employee", "age > 40 AND department.name == 'Sales'", "--sort", "lastName,-age", "--format", "json")
    }

    static let contexts = DemoSection("contexts", "a background context's save merging into the view context, conflicts, delete rules") { demo in
        try await demo.require(.modelAndSave)
        try await concurrency(storeURL: demo.companyStoreURL)
        demo.shell("count", demo.companyStoreURL.path, "Employee")
    }

    static let managedRecord = DemoSection("active-record", "ManagedRecord's one-liners, and per-thread commits merging into the main context") { demo in
        try activeRecord(folder: demo.folder)
        demo.shell("fetch", demo.folder.appendingPathComponent("Staff.sqlite").path, "StaffMember", "--sort", "lastName", "--format", "csv")
    }

    static let asyncCode = DemoSection("async", "top-level async code: the main context across awaits, task contexts") { demo in
        try await demo.require(.managedRecord)
        try await asyncScript()
        demo.shell("aggregate", demo.folder.appendingPathComponent("Staff.sqlite").path, "StaffMember", "sum", "salary")
    }
}
