import CSQLiteBench
import Foundation

/// An employee row as a hand-written C-API program holds it.
struct RawEmployee {
    var pk: Int64
    var version: Int64
    var firstName: String
    var lastName: String
    var age: Int
    var salary: Double
    var hired: Double?
    var department: Int64?
    var active: Bool
}

/// The baseline: the sqlite3 C API, prepared statements, one transaction per write, the
/// same SQL the library runs (Core Data layout, key allocation through Z_PRIMARYKEY,
/// optimistic-locking updates).
struct RawWay: Way {
    let name = "raw SQLite"
    let key = "raw"
    let entities: EntityNumbers

    static let selectEmployees = "SELECT \(Layout.employeeList) FROM ZEMPLOYEE"

    @inline(__always)
    static func read(_ s: RawStatement) -> RawEmployee {
        RawEmployee(pk: s.int64(0), version: s.int64(2), firstName: s.text(3), lastName: s.text(4), age: Int(s.int64(5)),
                    salary: s.double(6), hired: s.isNull(7) ? nil : s.double(7),
                    department: s.isNull(8) ? nil : s.int64(8), active: s.int64(9) != 0)
    }

    static func checksum(_ rows: [RawEmployee]) -> Checksum {
        var builder = ChecksumBuilder()
        for r in rows {
            builder.add(firstName: r.firstName, lastName: r.lastName, age: r.age, salary: r.salary, hired: r.hired,
                        department: r.department, active: r.active)
        }
        return builder.result
    }

    /// Reads every field, as "read every attribute" asks, into a value the optimizer must keep.
    @inline(__always)
    static func touch(_ r: RawEmployee, _ sink: inout Int) {
        sink &+= r.firstName.utf8.count &+ r.lastName.utf8.count &+ r.age &+ Int(r.salary) &+ Int(r.hired ?? 0)
            &+ Int(r.department ?? 0) &+ (r.active ? 1 : 0)
    }

    /// Takes `count` primary keys for `entity` the way the library does.
    static func allocateKeys(_ db: RawDatabase, entity: Int64, table: String, count: Int) throws -> Int64 {
        let max = try db.prepare("SELECT Z_MAX FROM Z_PRIMARYKEY WHERE Z_ENT = ?")
        max.bind(entity, 1)
        var last: Int64 = try max.step() ? max.int64(0) : 0
        last = Swift.max(last, try db.int64("SELECT MAX(Z_PK) FROM \(table)"))
        let update = try db.prepare("UPDATE Z_PRIMARYKEY SET Z_MAX = ? WHERE Z_ENT = ?")
        update.bind(last + Int64(count), 1)
        update.bind(entity, 2)
        _ = try update.step()
        return last
    }

    /// Writes `data` in one transaction (also used, untimed, to fill stores for the other workloads).
    static func write(_ data: Dataset, to db: RawDatabase, entities: EntityNumbers) throws {
        try db.execute("BEGIN IMMEDIATE")
        let firstDepartment = try allocateKeys(db, entity: entities.department, table: "ZDEPARTMENT", count: data.departments.count)
        let firstEmployee = try allocateKeys(db, entity: entities.employee, table: "ZEMPLOYEE", count: data.employees.count)
        let department = try db.prepare("INSERT INTO ZDEPARTMENT (Z_PK, Z_ENT, Z_OPT, ZNAME) VALUES (?, ?, 1, ?)")
        for (index, name) in data.departments.enumerated() {
            department.bind(firstDepartment + 1 + Int64(index), 1)
            department.bind(entities.department, 2)
            department.bind(name, 3)
            _ = try department.step()
            department.reset()
        }
        let employee = try db.prepare("INSERT INTO ZEMPLOYEE (\(Layout.employeeList)) VALUES (?, ?, 1, ?, ?, ?, ?, ?, ?, ?)")
        for (index, e) in data.employees.enumerated() {
            employee.bind(firstEmployee + 1 + Int64(index), 1)
            employee.bind(entities.employee, 2)
            employee.bind(e.firstName, 3)
            employee.bind(e.lastName, 4)
            employee.bind(Int64(e.age), 5)
            employee.bind(e.salary, 6)
            employee.bind(e.hired, 7)
            employee.bind(firstDepartment + 1 + Int64(e.department), 8)
            employee.bind(Int64(e.active ? 1 : 0), 9)
            _ = try employee.step()
            employee.reset()
        }
        try db.execute("COMMIT")
    }

    func insert(_ store: StoreURL, _ data: Dataset) throws -> Sample {
        let db = try RawDatabase(path: store.path)
        _ = try db.int64("SELECT count(*) FROM Z_PRIMARYKEY")
        let start = now()
        try Self.write(data, to: db, entities: entities)
        let time = seconds(since: start)
        return Sample(seconds: time, check: try StoreSummary.read(store))
    }

    func fetchAll(_ store: StoreURL) throws -> Sample {
        let db = try RawDatabase(path: store.path)
        _ = try db.int64("SELECT count(*) FROM Z_PRIMARYKEY")
        let start = now()
        let statement = try db.prepare(Self.selectEmployees)
        var rows: [RawEmployee] = []
        while try statement.step() { rows.append(Self.read(statement)) }
        var sink = 0
        for r in rows { Self.touch(r, &sink) }
        let time = seconds(since: start)
        blackHole(sink)
        return Sample(seconds: time, check: Self.checksum(rows))
    }

    func predicateFetch(_ store: StoreURL) throws -> Sample {
        let db = try RawDatabase(path: store.path)
        _ = try db.int64("SELECT count(*) FROM Z_PRIMARYKEY")
        let start = now()
        let statement = try db.prepare("\(Self.selectEmployees) WHERE \(PredicateWorkload.sqlCondition)")
        statement.bind(Int64(PredicateWorkload.minimumAge), 1)
        statement.bind(PredicateWorkload.lastNamePrefix, 2)
        var rows: [RawEmployee] = []
        while try statement.step() { rows.append(Self.read(statement)) }
        var sink = 0
        for r in rows { Self.touch(r, &sink) }
        let time = seconds(since: start)
        blackHole(sink)
        return Sample(seconds: time, check: Self.checksum(rows))
    }

    func predicateCount(_ store: StoreURL) throws -> Sample {
        let db = try RawDatabase(path: store.path)
        _ = try db.int64("SELECT count(*) FROM Z_PRIMARYKEY")
        let start = now()
        let statement = try db.prepare("SELECT COUNT(*) FROM ZEMPLOYEE WHERE \(PredicateWorkload.sqlCondition)")
        statement.bind(Int64(PredicateWorkload.minimumAge), 1)
        statement.bind(PredicateWorkload.lastNamePrefix, 2)
        let count = try statement.step() ? Int(statement.int64(0)) : -1
        let time = seconds(since: start)
        return Sample(seconds: time, check: Checksum(count: count))
    }

    func averageSalary(_ store: StoreURL) throws -> Sample {
        let db = try RawDatabase(path: store.path)
        _ = try db.int64("SELECT count(*) FROM Z_PRIMARYKEY")
        let start = now()
        let average = try db.double("SELECT AVG(ZSALARY) FROM ZEMPLOYEE")
        let time = seconds(since: start)
        return Sample(seconds: time, check: Checksum(extra: average))
    }

    func distinctLastNames(_ store: StoreURL) throws -> Sample {
        let db = try RawDatabase(path: store.path)
        _ = try db.int64("SELECT count(*) FROM Z_PRIMARYKEY")
        let start = now()
        let statement = try db.prepare("SELECT DISTINCT ZLASTNAME AS value FROM ZEMPLOYEE WHERE value IS NOT NULL ORDER BY value")
        var names: [String] = []
        while try statement.step() { names.append(statement.text(0)) }
        let time = seconds(since: start)
        return Sample(seconds: time, check: Checksum(count: names.count, nameBytes: names.reduce(0) { $0 + $1.utf8.count }))
    }

    func fetchModifySave(_ store: StoreURL) throws -> Sample {
        let db = try RawDatabase(path: store.path)
        _ = try db.int64("SELECT count(*) FROM Z_PRIMARYKEY")
        let start = now()
        let statement = try db.prepare(Self.selectEmployees)
        var rows: [RawEmployee] = []
        while try statement.step() { rows.append(Self.read(statement)) }
        for index in rows.indices { rows[index].salary += 1 }
        try db.execute("BEGIN IMMEDIATE")
        let update = try db.prepare("UPDATE ZEMPLOYEE SET Z_OPT = ?, ZSALARY = ? WHERE Z_PK = ? AND Z_OPT = ?")
        for index in rows.indices {
            let r = rows[index]
            update.bind(r.version + 1, 1)
            update.bind(r.salary, 2)
            update.bind(r.pk, 3)
            update.bind(r.version, 4)
            _ = try update.step()
            update.reset()
            guard sqlite3_changes(db.handle) == 1 else { throw RawError(message: "optimistic locking failed for \(r.pk)") }
            rows[index].version += 1
        }
        try db.execute("COMMIT")
        let time = seconds(since: start)
        return Sample(seconds: time, check: try StoreSummary.read(store))
    }

    func deleteAll(_ store: StoreURL) throws -> Sample {
        let db = try RawDatabase(path: store.path)
        _ = try db.int64("SELECT count(*) FROM Z_PRIMARYKEY")
        let start = now()
        try db.execute("BEGIN IMMEDIATE")
        try db.execute("DELETE FROM ZEMPLOYEE")
        try db.execute("COMMIT")
        let time = seconds(since: start)
        return Sample(seconds: time, check: try StoreSummary.read(store))
    }

    func traverse(_ store: StoreURL) throws -> Sample {
        let db = try RawDatabase(path: store.path)
        _ = try db.int64("SELECT count(*) FROM Z_PRIMARYKEY")
        let start = now()
        let departments = try db.prepare("SELECT \(Layout.departmentList) FROM ZDEPARTMENT")
        var keys: [(Int64, String)] = []
        while try departments.step() { keys.append((departments.int64(0), departments.text(3))) }
        let members = try db.prepare("\(Self.selectEmployees) WHERE ZDEPARTMENT = ?")
        var all: [RawEmployee] = []
        var sink = 0
        for (key, _) in keys {
            members.bind(key, 1)
            var rows: [RawEmployee] = []
            while try members.step() { rows.append(Self.read(members)) }
            members.reset()
            for r in rows { sink &+= Int(r.salary) }
            all += rows
        }
        let time = seconds(since: start)
        blackHole(sink)
        return Sample(seconds: time, check: Self.checksum(all))
    }

    func backgroundChangeAndMerge(_ store: StoreURL, count: Int) throws -> (commit: Sample, merge: Sample) {
        let main = try RawDatabase(path: store.path)
        let held = try main.prepare("\(Self.selectEmployees) LIMIT \(count)")
        var rows: [RawEmployee] = []
        while try held.step() { rows.append(Self.read(held)) }
        held.reset()
        let background = try RawDatabase(path: store.path)
        _ = try background.int64("SELECT count(*) FROM Z_PRIMARYKEY")

        let start = now()
        try background.execute("BEGIN IMMEDIATE")
        let select = try background.prepare("\(Self.selectEmployees) LIMIT \(count)")
        var changed: [RawEmployee] = []
        while try select.step() { changed.append(Self.read(select)) }
        let update = try background.prepare("UPDATE ZEMPLOYEE SET Z_OPT = ?, ZSALARY = ? WHERE Z_PK = ? AND Z_OPT = ?")
        for r in changed {
            update.bind(r.version + 1, 1)
            update.bind(r.salary + 1, 2)
            update.bind(r.pk, 3)
            update.bind(r.version, 4)
            _ = try update.step()
            update.reset()
        }
        try background.execute("COMMIT")
        let commitTime = seconds(since: start)

        // The main connection refreshes the rows it holds (what an app without an object
        // graph does after hearing that they changed).
        let mergeStart = now()
        let reload = try main.prepare("\(Self.selectEmployees) WHERE Z_PK = ?")
        for index in rows.indices {
            reload.bind(rows[index].pk, 1)
            if try reload.step() { rows[index] = Self.read(reload) }
            reload.reset()
        }
        let mergeTime = seconds(since: mergeStart)
        let check = Self.checksum(rows)
        return (Sample(seconds: commitTime, check: Checksum(count: changed.count)), Sample(seconds: mergeTime, check: check))
    }
}

/// Keeps a value alive so the optimizer cannot drop the reads that produced it.
@inline(never)
func blackHole<T>(_ value: T) { withExtendedLifetime(value) {} }

/// `Z_ENT` numbers of the two entities in the stores the library creates.
struct EntityNumbers {
    var department: Int64
    var employee: Int64

    static func read(_ store: StoreURL) throws -> EntityNumbers {
        let db = try RawDatabase(path: store.path)
        let statement = try db.prepare("SELECT Z_ENT, Z_NAME FROM Z_PRIMARYKEY")
        var numbers: [String: Int64] = [:]
        while try statement.step() { numbers[statement.text(1)] = statement.int64(0) }
        guard let department = numbers["Department"], let employee = numbers["Employee"] else {
            throw RawError(message: "Z_PRIMARYKEY lacks Department or Employee: \(numbers)")
        }
        // The columns the raw and GRDB ways use must be the library's.
        for (table, expected) in [("ZEMPLOYEE", Layout.employee), ("ZDEPARTMENT", Layout.department)] {
            let info = try db.prepare("SELECT name FROM pragma_table_info('\(table)')")
            var names = Set<String>()
            while try info.step() { names.insert(info.text(0)) }
            let missing = Set(expected).subtracting(names)
            guard missing.isEmpty else { throw RawError(message: "\(table) has columns \(names.sorted()), lacks \(missing.sorted())") }
        }
        return EntityNumbers(department: department, employee: employee)
    }
}

/// What a store holds, read with SQL after a write workload: the same for every way.
enum StoreSummary {
    static func read(_ store: StoreURL) throws -> Checksum {
        let db = try RawDatabase(path: store.path)
        let statement = try db.prepare("""
            SELECT COUNT(*), TOTAL(ZAGE), TOTAL(ZSALARY), TOTAL(LENGTH(ZFIRSTNAME) + LENGTH(ZLASTNAME)), TOTAL(ZHIRED), TOTAL(ZACTIVE)
            FROM ZEMPLOYEE
            """)
        guard try statement.step() else { throw RawError(message: "no summary row") }
        var sum = Checksum(count: Int(statement.int64(0)), ageSum: Int(statement.double(1)), salarySum: statement.double(2),
                           nameBytes: Int(statement.double(3)), hiredSum: statement.double(4), activeCount: Int(statement.double(5)))
        let groups = try db.prepare("SELECT COUNT(*) FROM ZEMPLOYEE WHERE ZDEPARTMENT IS NOT NULL GROUP BY ZDEPARTMENT")
        while try groups.step() { sum.departmentSquares += Int(groups.int64(0) * groups.int64(0)) }
        return sum
    }
}

extension RawWay {
    /// Bytes malloc'ed per fetched row struct.
    func bytesPerRow(_ store: StoreURL) throws -> Double {
        let db = try RawDatabase(path: store.path)
        let statement = try db.prepare(Self.selectEmployees)
        _ = try db.int64("SELECT count(*) FROM Z_PRIMARYKEY")
        let before = mallocInUse()
        var rows: [RawEmployee] = []
        while try statement.step() { rows.append(Self.read(statement)) }
        let bytes = Double(mallocInUse() - before) / Double(max(1, rows.count))
        blackHole(rows)
        return bytes
    }
}
