import Foundation
import ObjectGraph

/// ManagedRecord through an explicit context (`import ObjectGraph`), as DESIGN.md's
/// Core Data-style API is used.
struct ContextWay: Way {
    let name = "MR context"
    let key = "context"
    let model: ManagedObjectModel

    /// A new container on `store`, its reader connection already open (outside the timing,
    /// as for the other ways).
    func open(_ store: StoreURL) throws -> PersistentContainer {
        let container = try PersistentContainer(name: "Bench", model: model, location: .file(store.url))
        _ = try container.viewContext.count(for: FetchRequest<Department>())
        return container
    }

    static func checksum(_ employees: [Employee]) -> Checksum {
        var builder = ChecksumBuilder()
        for e in employees {
            builder.add(firstName: e.firstName, lastName: e.lastName, age: e.age, salary: e.salary,
                        hired: e.hired?.timeIntervalSinceReferenceDate, department: e.department?.objectID.primaryKey, active: e.active)
        }
        return builder.result
    }

    @inline(__always)
    static func touch(_ e: Employee, _ sink: inout Int) {
        sink &+= e.firstName.utf8.count &+ e.lastName.utf8.count &+ e.age &+ Int(e.salary)
            &+ Int(e.hired?.timeIntervalSinceReferenceDate ?? 0) &+ Int(e.department?.objectID.primaryKey ?? 0) &+ (e.active ? 1 : 0)
    }

    func insert(_ store: StoreURL, _ data: Dataset) throws -> Sample {
        let container = try open(store)
        let context = container.viewContext
        let start = now()
        let departments = data.departments.map { name in
            let department = Department(context: context)
            department.name = name
            return department
        }
        for e in data.employees {
            let employee = Employee(context: context)
            employee.firstName = e.firstName
            employee.lastName = e.lastName
            employee.age = e.age
            employee.salary = e.salary
            employee.hired = Date(timeIntervalSinceReferenceDate: e.hired)
            employee.department = departments[e.department]
            employee.active = e.active
        }
        try context.save()
        let time = seconds(since: start)
        return Sample(seconds: time, check: try StoreSummary.read(store))
    }

    func fetchAll(_ store: StoreURL) throws -> Sample {
        let container = try open(store)
        let context = container.viewContext
        let start = now()
        let employees = try context.fetch(FetchRequest<Employee>())
        var sink = 0
        for e in employees { Self.touch(e, &sink) }
        let time = seconds(since: start)
        blackHole(sink)
        return Sample(seconds: time, check: Self.checksum(employees))
    }

    static func predicateRequest() throws -> FetchRequest<Employee> {
        var request = FetchRequest<Employee>()
        request.predicate = try FetchPredicate(PredicateWorkload.format, PredicateWorkload.minimumAge, PredicateWorkload.lastNamePrefix)
        return request
    }

    func predicateFetch(_ store: StoreURL) throws -> Sample {
        let container = try open(store)
        let context = container.viewContext
        let start = now()
        let employees = try context.fetch(Self.predicateRequest())
        var sink = 0
        for e in employees { Self.touch(e, &sink) }
        let time = seconds(since: start)
        blackHole(sink)
        return Sample(seconds: time, check: Self.checksum(employees))
    }

    func predicateCount(_ store: StoreURL) throws -> Sample {
        let container = try open(store)
        let context = container.viewContext
        let start = now()
        let count = try context.count(for: Self.predicateRequest())
        let time = seconds(since: start)
        return Sample(seconds: time, check: Checksum(count: count))
    }

    func averageSalary(_ store: StoreURL) throws -> Sample {
        let container = try open(store)
        let context = container.viewContext
        let start = now()
        let average = try context.aggregate(.average, of: "salary", for: FetchRequest<Employee>())
        let time = seconds(since: start)
        return Sample(seconds: time, check: Checksum(extra: average ?? .nan))
    }

    func distinctLastNames(_ store: StoreURL) throws -> Sample {
        let container = try open(store)
        let context = container.viewContext
        let start = now()
        let names = try context.distinctValues(of: "lastName", as: String.self, for: FetchRequest<Employee>())
        let time = seconds(since: start)
        return Sample(seconds: time, check: Checksum(count: names.count, nameBytes: names.reduce(0) { $0 + $1.utf8.count }))
    }

    func fetchModifySave(_ store: StoreURL) throws -> Sample {
        let container = try open(store)
        let context = container.viewContext
        let start = now()
        let employees = try context.fetch(FetchRequest<Employee>())
        for e in employees { e.salary += 1 }
        try context.save()
        let time = seconds(since: start)
        return Sample(seconds: time, check: try StoreSummary.read(store))
    }

    func deleteAll(_ store: StoreURL) throws -> Sample {
        let container = try open(store)
        let context = container.viewContext
        let start = now()
        // A batch delete: one SQL transaction, delete rules applied, contexts updated.
        _ = try context.execute(BatchDeleteRequest(Employee.self))
        let time = seconds(since: start)
        return Sample(seconds: time, check: try StoreSummary.read(store))
    }

    func traverse(_ store: StoreURL) throws -> Sample {
        let container = try open(store)
        let context = container.viewContext
        let start = now()
        let departments = try context.fetch(FetchRequest<Department>())
        var all: [Employee] = []
        var sink = 0
        for department in departments {
            for e in department.employees { sink &+= Int(e.salary); all.append(e) }
        }
        let time = seconds(since: start)
        blackHole(sink)
        return Sample(seconds: time, check: Self.checksum(all))
    }

    func backgroundChangeAndMerge(_ store: StoreURL, count: Int) throws -> (commit: Sample, merge: Sample) {
        let container = try open(store)
        let main = container.viewContext
        var request = FetchRequest<Employee>()
        request.fetchLimit = count
        let held = try main.fetch(request)
        let background = container.newBackgroundContext()
        try background.performAndWait { _ = try background.count(for: FetchRequest<Department>()) }

        let start = now()
        let changed = try background.performAndWait {
            let employees = try background.fetch(request)
            for e in employees { e.salary += 1 }
            try background.save()
            return employees.count
        }
        let commitTime = seconds(since: start)

        // The merge happens at the main context's next access.
        let mergeStart = now()
        blackHole(held[0].salary)
        let mergeTime = seconds(since: mergeStart)
        return (Sample(seconds: commitTime, check: Checksum(count: changed)),
                Sample(seconds: mergeTime, check: Self.checksum(held)))
    }
}

// MARK: Memory and scaling

extension ContextWay {
    /// Bytes malloc'ed per registered object: fully fetched objects, then faults (object IDs
    /// turned into objects with `object(with:)`), each in a new container.
    func bytesPerObject(_ store: StoreURL) throws -> (fetched: Double, fault: Double, count: Int) {
        var fetched = 0.0
        var count = 0
        do {
            let container = try open(store)
            let before = mallocInUse()
            let employees = try container.viewContext.fetch(FetchRequest<Employee>())
            fetched = Double(mallocInUse() - before) / Double(max(1, employees.count))
            count = employees.count
            blackHole(employees)
        }
        var fault = 0.0
        do {
            let container = try open(store)
            let context = container.viewContext
            let ids = try context.fetchObjectIDs(FetchRequest<Employee>())
            let before = mallocInUse()
            let faults = ids.map { context.object(with: $0) }
            fault = Double(mallocInUse() - before) / Double(max(1, faults.count))
            blackHole(faults)
        }
        return (fetched, fault, count)
    }
}
