import Foundation
import ObjectGraph

// The benchmark's model, as a library user declares it.

final class Department: ManagedObject {
    @Attribute var name: String = ""
    @Relationship(inverse: \Employee.$department, deleteRule: .nullify)
    var employees: Set<Employee>
}

final class Employee: ManagedObject {
    @Attribute var firstName: String = ""
    @Attribute var lastName: String = ""
    @Attribute var age: Int = 0
    @Attribute var salary: Double = 0
    @Attribute var hired: Date? = nil
    @Relationship(deleteRule: .nullify) var department: Department?
    @Attribute var active: Bool = false
}

/// Builds the model once and makes stores with the library's own layout and metadata.
final class StoreFactory {
    let model: ManagedObjectModel
    let directory: URL
    private var counter = 0

    init(directory: String) throws {
        model = try ManagedObjectModel(entities: [Department.self, Employee.self])
        self.directory = URL(fileURLWithPath: directory, isDirectory: true)
            .appendingPathComponent("managedrecord-bench-\(getpid())", isDirectory: true)
        try? FileManager.default.removeItem(at: self.directory)
        try FileManager.default.createDirectory(at: self.directory, withIntermediateDirectories: true)
    }

    /// A new empty store, created (schema, Z_PRIMARYKEY, Z_METADATA) by the library and closed.
    func emptyStore() throws -> StoreURL {
        counter += 1
        let url = directory.appendingPathComponent("store-\(counter)", isDirectory: true).appendingPathComponent("Bench.sqlite")
        do {
            let container = try PersistentContainer(name: "Bench", model: model, location: .file(url))
            _ = try container.viewContext.count(for: FetchRequest<Employee>())
        }
        return StoreURL(url: url)
    }

    func remove(_ store: StoreURL) {
        try? FileManager.default.removeItem(at: store.url.deletingLastPathComponent())
    }

    func removeAll() {
        try? FileManager.default.removeItem(at: directory)
    }
}
