import Foundation
import GRDB

/// An employee as a GRDB user writes it: a record with hand-written row decoding.
struct EmployeeRecord: FetchableRecord, PersistableRecord {
    static let databaseTableName = "ZEMPLOYEE"
    static var databaseSelection: [any SQLSelectable] { Layout.employee.map { Column($0) } }

    var id: Int64
    var entity: Int64
    var version: Int64
    var firstName: String
    var lastName: String
    var age: Int
    var salary: Double
    var hired: Double?
    var department: Int64?
    var active: Bool

    init(id: Int64, entity: Int64, version: Int64, firstName: String, lastName: String, age: Int, salary: Double,
         hired: Double?, department: Int64?, active: Bool) {
        self.id = id; self.entity = entity; self.version = version; self.firstName = firstName; self.lastName = lastName
        self.age = age; self.salary = salary; self.hired = hired; self.department = department; self.active = active
    }

    init(row: Row) throws {
        id = row[0]
        entity = row[1]
        version = row[2]
        firstName = row[3]
        lastName = row[4]
        age = row[5]
        salary = row[6]
        hired = row[7]
        department = row[8]
        active = row[9]
    }

    func encode(to container: inout PersistenceContainer) throws {
        container["Z_PK"] = id
        container["Z_ENT"] = entity
        container["Z_OPT"] = version
        container["ZFIRSTNAME"] = firstName
        container["ZLASTNAME"] = lastName
        container["ZAGE"] = age
        container["ZSALARY"] = salary
        container["ZHIRED"] = hired
        container["ZDEPARTMENT"] = department
        container["ZACTIVE"] = active
    }
}

struct DepartmentRecord: FetchableRecord, PersistableRecord {
    static let databaseTableName = "ZDEPARTMENT"
    static var databaseSelection: [any SQLSelectable] { Layout.department.map { Column($0) } }

    var id: Int64
    var entity: Int64
    var version: Int64
    var name: String

    init(id: Int64, entity: Int64, version: Int64, name: String) {
        self.id = id; self.entity = entity; self.version = version; self.name = name
    }

    init(row: Row) throws {
        id = row[0]
        entity = row[1]
        version = row[2]
        name = row[3]
    }

    func encode(to container: inout PersistenceContainer) throws {
        container["Z_PK"] = id
        container["Z_ENT"] = entity
        container["Z_OPT"] = version
        container["ZNAME"] = name
    }
}

/// GRDB 7 records on a `DatabaseQueue` (WAL, synchronous=NORMAL), query interface where a
/// GRDB user would use it.
struct GRDBWay: Way {
    let name = "GRDB"
    let key = "grdb"
    let entities: EntityNumbers

    static let condition = EmployeeRecord.filter(sql: PredicateWorkload.sqlCondition,
                                                 arguments: [PredicateWorkload.minimumAge, PredicateWorkload.lastNamePrefix])

    func open(_ store: StoreURL) throws -> DatabaseQueue {
        var configuration = Configuration()
        configuration.prepareDatabase { db in
            try db.execute(sql: "PRAGMA journal_mode = WAL")
            try db.execute(sql: "PRAGMA synchronous = NORMAL")
        }
        let queue = try DatabaseQueue(path: store.path, configuration: configuration)
        _ = try queue.read { db in try Int.fetchOne(db, sql: "SELECT count(*) FROM Z_PRIMARYKEY") }
        return queue
    }

    static func checksum(_ records: [EmployeeRecord]) -> Checksum {
        var builder = ChecksumBuilder()
        for r in records {
            builder.add(firstName: r.firstName, lastName: r.lastName, age: r.age, salary: r.salary, hired: r.hired,
                        department: r.department, active: r.active)
        }
        return builder.result
    }

    @inline(__always)
    static func touch(_ r: EmployeeRecord, _ sink: inout Int) {
        sink &+= r.firstName.utf8.count &+ r.lastName.utf8.count &+ r.age &+ Int(r.salary) &+ Int(r.hired ?? 0)
            &+ Int(r.department ?? 0) &+ (r.active ? 1 : 0)
    }

    /// Key allocation as the library does it, so the rows are the same.
    static func allocateKeys(_ db: Database, entity: Int64, table: String, count: Int) throws -> Int64 {
        var last = try Int64.fetchOne(db, sql: "SELECT Z_MAX FROM Z_PRIMARYKEY WHERE Z_ENT = ?", arguments: [entity]) ?? 0
        last = max(last, try Int64.fetchOne(db, sql: "SELECT MAX(Z_PK) FROM \(table)") ?? 0)
        try db.execute(sql: "UPDATE Z_PRIMARYKEY SET Z_MAX = ? WHERE Z_ENT = ?", arguments: [last + Int64(count), entity])
        return last
    }

    func insert(_ store: StoreURL, _ data: Dataset) throws -> Sample {
        let queue = try open(store)
        let start = now()
        try queue.write { db in
            let firstDepartment = try Self.allocateKeys(db, entity: entities.department, table: "ZDEPARTMENT", count: data.departments.count)
            let firstEmployee = try Self.allocateKeys(db, entity: entities.employee, table: "ZEMPLOYEE", count: data.employees.count)
            for (index, name) in data.departments.enumerated() {
                try DepartmentRecord(id: firstDepartment + 1 + Int64(index), entity: entities.department, version: 1, name: name).insert(db)
            }
            for (index, e) in data.employees.enumerated() {
                try EmployeeRecord(id: firstEmployee + 1 + Int64(index), entity: entities.employee, version: 1,
                                   firstName: e.firstName, lastName: e.lastName, age: e.age, salary: e.salary, hired: e.hired,
                                   department: firstDepartment + 1 + Int64(e.department), active: e.active).insert(db)
            }
        }
        let time = seconds(since: start)
        return Sample(seconds: time, check: try StoreSummary.read(store))
    }

    func fetchAll(_ store: StoreURL) throws -> Sample {
        let queue = try open(store)
        let start = now()
        let records = try queue.read { db in try EmployeeRecord.fetchAll(db) }
        var sink = 0
        for r in records { Self.touch(r, &sink) }
        let time = seconds(since: start)
        blackHole(sink)
        return Sample(seconds: time, check: Self.checksum(records))
    }

    func predicateFetch(_ store: StoreURL) throws -> Sample {
        let queue = try open(store)
        let start = now()
        let records = try queue.read { db in try Self.condition.fetchAll(db) }
        var sink = 0
        for r in records { Self.touch(r, &sink) }
        let time = seconds(since: start)
        blackHole(sink)
        return Sample(seconds: time, check: Self.checksum(records))
    }

    func predicateCount(_ store: StoreURL) throws -> Sample {
        let queue = try open(store)
        let start = now()
        let count = try queue.read { db in try Self.condition.fetchCount(db) }
        let time = seconds(since: start)
        return Sample(seconds: time, check: Checksum(count: count))
    }

    func averageSalary(_ store: StoreURL) throws -> Sample {
        let queue = try open(store)
        let start = now()
        let average = try queue.read { db in
            try Double.fetchOne(db, EmployeeRecord.select(GRDB.average(Column("ZSALARY"))))
        }
        let time = seconds(since: start)
        return Sample(seconds: time, check: Checksum(extra: average ?? .nan))
    }

    func distinctLastNames(_ store: StoreURL) throws -> Sample {
        let queue = try open(store)
        let start = now()
        let names = try queue.read { db in try String.fetchAll(db, EmployeeRecord.select(Column("ZLASTNAME")).filter(Column("ZLASTNAME") != nil).distinct().order(Column("ZLASTNAME"))) }
        let time = seconds(since: start)
        return Sample(seconds: time, check: Checksum(count: names.count, nameBytes: names.reduce(0) { $0 + $1.utf8.count }))
    }

    func fetchModifySave(_ store: StoreURL) throws -> Sample {
        let queue = try open(store)
        let start = now()
        try queue.write { db in
            var records = try EmployeeRecord.fetchAll(db)
            for index in records.indices {
                records[index].salary += 1
                records[index].version += 1
                try records[index].update(db, columns: ["Z_OPT", "ZSALARY"])
            }
        }
        let time = seconds(since: start)
        return Sample(seconds: time, check: try StoreSummary.read(store))
    }

    func deleteAll(_ store: StoreURL) throws -> Sample {
        let queue = try open(store)
        let start = now()
        _ = try queue.write { db in try EmployeeRecord.deleteAll(db) }
        let time = seconds(since: start)
        return Sample(seconds: time, check: try StoreSummary.read(store))
    }

    func traverse(_ store: StoreURL) throws -> Sample {
        let queue = try open(store)
        let start = now()
        var all: [EmployeeRecord] = []
        var sink = 0
        try queue.read { db in
            let departments = try DepartmentRecord.fetchAll(db)
            for department in departments {
                let employees = try EmployeeRecord.filter(Column("ZDEPARTMENT") == department.id).fetchAll(db)
                for e in employees { sink &+= Int(e.salary) }
                all += employees
            }
        }
        let time = seconds(since: start)
        blackHole(sink)
        return Sample(seconds: time, check: Self.checksum(all))
    }

    func backgroundChangeAndMerge(_ store: StoreURL, count: Int) throws -> (commit: Sample, merge: Sample) {
        let main = try open(store)
        var held = try main.read { db in try EmployeeRecord.limit(count).fetchAll(db) }
        let background = try open(store)

        let start = now()
        let changed = try background.write { db in
            let records = try EmployeeRecord.limit(count).fetchAll(db)
            for var r in records {
                r.salary += 1
                r.version += 1
                try r.update(db, columns: ["Z_OPT", "ZSALARY"])
            }
            return records.count
        }
        let commitTime = seconds(since: start)

        // The main queue refetches the records it holds.
        let mergeStart = now()
        held = try main.read { db in try EmployeeRecord.fetchAll(db, keys: held.map(\.id)) }
        let mergeTime = seconds(since: mergeStart)
        return (Sample(seconds: commitTime, check: Checksum(count: changed)),
                Sample(seconds: mergeTime, check: Self.checksum(held)))
    }
}

extension GRDBWay {
    /// Bytes malloc'ed per fetched record.
    func bytesPerRecord(_ store: StoreURL) throws -> Double {
        let queue = try open(store)
        let before = mallocInUse()
        let records = try queue.read { db in try EmployeeRecord.fetchAll(db) }
        let bytes = Double(mallocInUse() - before) / Double(max(1, records.count))
        blackHole(records)
        return bytes
    }
}
