import Foundation
import ManagedRecord
import ObjectGraph

/// ManagedRecord's class-level helpers as a script uses them: `ManagedRecord.setUp` once, then
/// every step on this thread's one hidden context, which stays warm from step to step
/// (objects fetched by one step are still registered when the next one runs if the script
/// holds them; here, as in a script, each step's result is dropped at the end of the step).
final class ScriptHelpersWay: ScriptWay {
    let name = "MR helpers (one context)"
    let key = "helpers"
    static let model = "BenchScript"
    private var path = ""

    func open(_ directory: URL) throws {
        let url = directory.appendingPathComponent("Script.sqlite")
        path = url.path
        try ManagedRecord.setUp(model: Self.model, entities: [Person.self], storeURL: url)
        _ = try Person.count()
    }

    func close() { ManagedRecord.tearDown(model: Self.model) }

    private func summary() throws -> Checksum {
        try PlainTable.summary(path: path, table: "ZPERSON", prefix: "Z")
    }

    @inline(never)
    func insert(_ data: Dataset) throws -> Sample {
        let start = now()
        for e in data.employees {
            let person = Person.newEntity()
            person.firstName = e.firstName
            person.lastName = e.lastName
            person.age = e.age
            person.salary = e.salary
            person.hired = Date(timeIntervalSinceReferenceDate: e.hired)
            person.code = Int64(e.department)
            person.active = e.active
        }
        try Person.commit()
        let time = seconds(since: start)
        return Sample(seconds: time, check: try summary())
    }

    private func read(_ items: [Person], start: UInt64) -> Sample {
        ScriptCheck.read(items, start: start) { ($0.firstName, $0.lastName, $0.age, $0.salary, $0.hired, $0.code, $0.active) }
    }

    @inline(never)
    func fetchAll() throws -> Sample {
        let start = now()
        return read(try Person.fetchAll(), start: start)
    }

    @inline(never)
    func predicateFetch() throws -> Sample {
        let start = now()
        let people = try Person.fetch(where: PredicateWorkload.format, PredicateWorkload.minimumAge, PredicateWorkload.lastNamePrefix)
        return read(people, start: start)
    }

    @inline(never)
    func predicateCount() throws -> Sample {
        let start = now()
        let count = try Person.count(where: PredicateWorkload.format, PredicateWorkload.minimumAge, PredicateWorkload.lastNamePrefix)
        let time = seconds(since: start)
        return Sample(seconds: time, check: Checksum(count: count))
    }

    @inline(never)
    func average() throws -> Sample {
        let start = now()
        let average = try Person.aggregate(.average, of: "salary")
        let time = seconds(since: start)
        return Sample(seconds: time, check: Checksum(extra: average ?? .nan))
    }

    @inline(never)
    func distinct() throws -> Sample {
        let start = now()
        let names = try Person.distinctValues(of: "lastName", as: String.self)
        let time = seconds(since: start)
        return Sample(seconds: time, check: ScriptCheck.distinct(names))
    }

    @inline(never)
    func fetchModifyCommit() throws -> Sample {
        let start = now()
        for p in try Person.fetchAll() { p.salary += 1 }
        try Person.commit()
        let time = seconds(since: start)
        return Sample(seconds: time, check: try summary())
    }

    @inline(never)
    func deleteAll() throws -> Sample {
        let start = now()
        try Person.deleteAll(where: "TRUEPREDICATE")
        let time = seconds(since: start)
        return Sample(seconds: time, check: try summary())
    }

    func bytesPerObject() throws -> Double {
        let before = mallocInUse()
        let people = try Person.fetchAll()
        let bytes = Double(mallocInUse() - before) / Double(max(1, people.count))
        blackHole(people)
        return bytes
    }
}
