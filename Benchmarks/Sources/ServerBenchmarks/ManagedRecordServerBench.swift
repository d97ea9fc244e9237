import Foundation
import ManagedRecord
import ObjectGraphPostgres

// ManagedRecord's class-level helpers on a PostgreSQL store, as a script writes them (the
// user's benchmark's MRBench, line for line): `setUp(store: .postgres(url))` once, then the
// eight workloads on this thread's hidden context; `deleteStore()` after each run drops the
// store's schema and opens a new, empty one (untimed).

/// The benchmark entity, written the way users write models.
final class Staff: ManagedObject {
    @Attribute var ident: Int64 = 0
    @Attribute var firstName: String = ""
    @Attribute var lastName: String = ""
    @Attribute var age: Int = 0
    @Attribute var salary: Double = 0
    @Attribute var hired: Date = Date(timeIntervalSince1970: 0)
    @Attribute var departmentId: Int64 = 0
    @Attribute var active: Bool = false

    /// Reads every attribute, as the raw loop reads every column.
    var row: Employee {
        Employee(id: ident, firstName: firstName, lastName: lastName, age: age, salary: salary,
                 hired: hired, departmentId: departmentId, active: active)
    }
}

enum ManagedRecordServerBench {
    static let model = "ServerBench"
    @MainActor private static var configured = false

    /// One pass of the eight workloads through the class-level helpers on the main thread.
    @MainActor static func run(rows: [Employee], settings: ServerSettings) throws -> RunResult {
        try setUp(settings: settings)
        defer { try? Staff.deleteStore() }
        var r = RunResult()

        try r.time(.insert) { try insert(rows) }
        r.check[.insert] = "count=\(try Staff.count())"

        let all = try r.time(.fetchAll) { try Staff.fetchAll().map(\.row) }
        r.check[.fetchAll] = digest(all)

        let some = try r.time(.fetchPredicate) {
            try Staff.fetch(where: "age > %@ AND lastName BEGINSWITH %@", predicateMinAge, predicateLastNamePrefix).map(\.row)
        }
        r.check[.fetchPredicate] = digest(some)

        let count = try r.time(.countPredicate) {
            try Staff.count(where: "age > %@ AND lastName BEGINSWITH %@", predicateMinAge, predicateLastNamePrefix)
        }
        r.check[.countPredicate] = "count=\(count)"

        let avg = try r.time(.avgSalary) { try Staff.aggregate(.average, of: "salary") ?? .nan }
        r.check[.avgSalary] = String(format: "avg=%.6f", avg)

        let names = try r.time(.distinctLastName) { try Staff.distinctValues(of: "lastName", as: String.self) }
        r.check[.distinctLastName] = digest(strings: names)

        try r.time(.updateAll) {
            for s in try Staff.fetchAll() { s.salary += salaryIncrement }
            try Staff.commit()
        }
        r.check[.updateAll] = digest(try Staff.fetchAll().map(\.row))

        try r.time(.deleteAll) { _ = try Staff.deleteAll(where: "TRUEPREDICATE") }
        r.check[.deleteAll] = "count=\(try Staff.count())"
        return r
    }

    /// Sets the model up on the store's schema, once per process.
    @MainActor static func setUp(settings: ServerSettings) throws {
        guard !configured else { return }
        try ManagedRecord.setUp(model: model, entities: [Staff.self], store: .postgres(settings.storeURL))
        configured = true
    }

    /// Workload 1: a new object per row, one commit.
    @MainActor static func insert(_ rows: [Employee]) throws {
        for e in rows {
            let s = Staff.newEntity()
            s.ident = e.id; s.firstName = e.firstName; s.lastName = e.lastName; s.age = e.age
            s.salary = e.salary; s.hired = e.hired; s.departmentId = e.departmentId; s.active = e.active
        }
        try Staff.commit()
    }

    /// Closes the store (its schema is dropped with the others by ``ServerSettings``).
    @MainActor static func tearDown() {
        if configured { ManagedRecord.tearDown(model: model) }
    }
}
