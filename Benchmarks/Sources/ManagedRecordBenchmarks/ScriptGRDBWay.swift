import Foundation
import GRDB

/// GRDB 7 records with hand-written encoding on the same plain table, one `DatabaseQueue`
/// (WAL, synchronous=NORMAL) for the whole script; the query interface where a GRDB user
/// would use it.
final class ScriptGRDBWay: ScriptWay {
    let name = "GRDB (plain table)"
    let key = "grdb"
    private var queue: DatabaseQueue?
    private var path = ""

    static let condition = PersonRecord.filter(sql: PlainTable.condition,
                                               arguments: [PredicateWorkload.minimumAge, PredicateWorkload.lastNamePrefix])

    func open(_ directory: URL) throws {
        path = directory.appendingPathComponent("grdb.sqlite").path
        var configuration = Configuration()
        configuration.prepareDatabase { db in
            try db.execute(sql: "PRAGMA journal_mode = WAL")
            try db.execute(sql: "PRAGMA synchronous = NORMAL")
        }
        let queue = try DatabaseQueue(path: path, configuration: configuration)
        try queue.write { db in try db.execute(sql: PlainTable.create) }
        _ = try queue.read { db in try PersonRecord.fetchCount(db) }
        self.queue = queue
    }

    func close() { queue = nil }

    private var database: DatabaseQueue { queue! }

    @inline(never)
    func insert(_ data: Dataset) throws -> Sample {
        let start = now()
        try database.write { db in
            for (index, e) in data.employees.enumerated() {
                try PersonRecord(id: Int64(index + 1), firstName: e.firstName, lastName: e.lastName, age: e.age, salary: e.salary,
                                 hired: Date(timeIntervalSinceReferenceDate: e.hired), code: Int64(e.department), active: e.active).insert(db)
            }
        }
        let time = seconds(since: start)
        return Sample(seconds: time, check: try PlainTable.summary(path: path, table: "person", prefix: ""))
    }

    private func read(_ items: [PersonRecord], start: UInt64) -> Sample {
        ScriptCheck.read(items, start: start) { ($0.firstName, $0.lastName, $0.age, $0.salary, $0.hired, $0.code, $0.active) }
    }

    @inline(never)
    func fetchAll() throws -> Sample {
        let start = now()
        let records = try database.read { db in try PersonRecord.fetchAll(db) }
        return read(records, start: start)
    }

    @inline(never)
    func predicateFetch() throws -> Sample {
        let start = now()
        let records = try database.read { db in try Self.condition.fetchAll(db) }
        return read(records, start: start)
    }

    @inline(never)
    func predicateCount() throws -> Sample {
        let start = now()
        let count = try database.read { db in try Self.condition.fetchCount(db) }
        let time = seconds(since: start)
        return Sample(seconds: time, check: Checksum(count: count))
    }

    @inline(never)
    func average() throws -> Sample {
        let start = now()
        let mean = try database.read { db in try PersonRecord.select(GRDB.average(Column("salary")), as: Double.self).fetchOne(db) }
        let time = seconds(since: start)
        return Sample(seconds: time, check: Checksum(extra: mean ?? .nan))
    }

    @inline(never)
    func distinct() throws -> Sample {
        let start = now()
        let names = try database.read { db in try PersonRecord.select(Column("lastName"), as: String.self).distinct().fetchAll(db) }
        let time = seconds(since: start)
        return Sample(seconds: time, check: ScriptCheck.distinct(names))
    }

    @inline(never)
    func fetchModifyCommit() throws -> Sample {
        let start = now()
        try database.write { db in
            for var r in try PersonRecord.fetchAll(db) {
                r.salary += 1
                try r.update(db, columns: ["salary"])
            }
        }
        let time = seconds(since: start)
        return Sample(seconds: time, check: try PlainTable.summary(path: path, table: "person", prefix: ""))
    }

    @inline(never)
    func deleteAll() throws -> Sample {
        let start = now()
        _ = try database.write { db in try PersonRecord.deleteAll(db) }
        let time = seconds(since: start)
        return Sample(seconds: time, check: try PlainTable.summary(path: path, table: "person", prefix: ""))
    }

    func bytesPerObject() throws -> Double {
        let before = mallocInUse()
        let records = try database.read { db in try PersonRecord.fetchAll(db) }
        let bytes = Double(mallocInUse() - before) / Double(max(1, records.count))
        blackHole(records)
        return bytes
    }
}
