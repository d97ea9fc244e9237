import Foundation
import ManagedRecord
import ObjectGraph

/// ManagedRecord through the class-level helpers of `import ManagedRecord` (`Employee.newEntity()`,
/// `Employee.fetchAll()`, `Employee.commit()`, ...) on the hidden per-thread contexts. Each
/// workload is one function (a helper not written yet would throw ``Unavailable``).
struct ClassHelpersWay: Way {
    let name = "MR helpers"
    let key = "helpers"
    static let model = "BenchHelpers"

    /// Sets the model up on `store` (outside the timing), runs `body`, tears it down.
    func withStack<T>(_ store: StoreURL, _ body: () throws -> T) throws -> T {
        try ManagedRecord.setUp(model: Self.model, entities: [Department.self, Employee.self], storeURL: store.url)
        defer { ManagedRecord.tearDown(model: Self.model) }
        _ = try Department.count()
        return try body()
    }

    func insert(_ store: StoreURL, _ data: Dataset) throws -> Sample {
        try withStack(store) {
            let start = now()
            let departments = data.departments.map { name in
                let department = Department.newEntity()
                department.name = name
                return department
            }
            for e in data.employees {
                let employee = Employee.newEntity()
                employee.firstName = e.firstName
                employee.lastName = e.lastName
                employee.age = e.age
                employee.salary = e.salary
                employee.hired = Date(timeIntervalSinceReferenceDate: e.hired)
                employee.department = departments[e.department]
                employee.active = e.active
            }
            try Employee.commit()
            let time = seconds(since: start)
            return Sample(seconds: time, check: try StoreSummary.read(store))
        }
    }

    func fetchAll(_ store: StoreURL) throws -> Sample {
        try withStack(store) {
            let start = now()
            let employees = try Employee.fetchAll()
            var sink = 0
            for e in employees { ContextWay.touch(e, &sink) }
            let time = seconds(since: start)
            blackHole(sink)
            return Sample(seconds: time, check: ContextWay.checksum(employees))
        }
    }

    func predicateFetch(_ store: StoreURL) throws -> Sample {
        try withStack(store) {
            let start = now()
            let employees = try Employee.fetch(where: PredicateWorkload.format, PredicateWorkload.minimumAge, PredicateWorkload.lastNamePrefix)
            var sink = 0
            for e in employees { ContextWay.touch(e, &sink) }
            let time = seconds(since: start)
            blackHole(sink)
            return Sample(seconds: time, check: ContextWay.checksum(employees))
        }
    }

    func predicateCount(_ store: StoreURL) throws -> Sample {
        try withStack(store) {
            let start = now()
            let count = try Employee.count(where: PredicateWorkload.format, PredicateWorkload.minimumAge, PredicateWorkload.lastNamePrefix)
            let time = seconds(since: start)
            return Sample(seconds: time, check: Checksum(count: count))
        }
    }

    func averageSalary(_ store: StoreURL) throws -> Sample {
        try withStack(store) {
            let start = now()
            let average = try Employee.aggregate(.average, of: "salary")
            let time = seconds(since: start)
            return Sample(seconds: time, check: Checksum(extra: average ?? .nan))
        }
    }

    func distinctLastNames(_ store: StoreURL) throws -> Sample {
        try withStack(store) {
            let start = now()
            let names = try Employee.distinctValues(of: "lastName", as: String.self)
            let time = seconds(since: start)
            return Sample(seconds: time, check: Checksum(count: names.count, nameBytes: names.reduce(0) { $0 + $1.utf8.count }))
        }
    }

    func fetchModifySave(_ store: StoreURL) throws -> Sample {
        try withStack(store) {
            let start = now()
            for e in try Employee.fetchAll() { e.salary += 1 }
            try Employee.commit()
            let time = seconds(since: start)
            return Sample(seconds: time, check: try StoreSummary.read(store))
        }
    }

    func deleteAll(_ store: StoreURL) throws -> Sample {
        try withStack(store) {
            let start = now()
            try Employee.deleteAll()
            let time = seconds(since: start)
            return Sample(seconds: time, check: try StoreSummary.read(store))
        }
    }

    func traverse(_ store: StoreURL) throws -> Sample {
        try withStack(store) {
            let start = now()
            var all: [Employee] = []
            var sink = 0
            for department in try Department.fetchAll() {
                for e in department.employees { sink &+= Int(e.salary); all.append(e) }
            }
            let time = seconds(since: start)
            blackHole(sink)
            return Sample(seconds: time, check: ContextWay.checksum(all))
        }
    }

    func backgroundChangeAndMerge(_ store: StoreURL, count: Int) throws -> (commit: Sample, merge: Sample) {
        try withStack(store) {
            let held = try Employee.contextForCurrentThread.fetch(Employee.fetchRequest(limit: count))
            let outcome = ThreadOutcome()
            let start = now()
            // Another thread changes the same employees in its own hidden context and commits.
            let thread = Thread {
                do {
                    let employees = try Employee.contextForCurrentThread.fetch(Employee.fetchRequest(limit: count))
                    for e in employees { e.salary += 1 }
                    try Employee.commit()
                    outcome.finish(.success(employees.count))
                } catch {
                    outcome.finish(.failure(error))
                }
            }
            thread.start()
            let changed = try outcome.wait()
            let commitTime = seconds(since: start)

            let mergeStart = now()
            blackHole(held[0].salary)
            let mergeTime = seconds(since: mergeStart)
            return (Sample(seconds: commitTime, check: Checksum(count: changed)),
                    Sample(seconds: mergeTime, check: ContextWay.checksum(held)))
        }
    }
}

/// The result of work on another thread.
final class ThreadOutcome: @unchecked Sendable {  // `result` is guarded by `lock`
    private let lock = NSCondition()
    private var result: Result<Int, any Error>?

    func finish(_ result: Result<Int, any Error>) {
        lock.lock()
        self.result = result
        lock.signal()
        lock.unlock()
    }

    func wait() throws -> Int {
        lock.lock()
        defer { lock.unlock() }
        while result == nil { lock.wait() }
        return try result!.get()
    }
}
