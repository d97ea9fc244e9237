import Foundation

/// The user's hand-written code: the sqlite3 C API on a plain table (WAL, synchronous=NORMAL),
/// prepared statements, one transaction per write, rows read into plain structs. The
/// baseline of the script's ratios.
final class ScriptRawWay: ScriptWay {
    let name = "raw SQLite (plain table)"
    let key = "raw"
    private var db: RawDatabase?
    private var path = ""

    func open(_ directory: URL) throws {
        path = directory.appendingPathComponent("raw.sqlite").path
        let db = try RawDatabase(path: path)
        try db.execute(PlainTable.create)
        _ = try db.int64("SELECT count(*) FROM person")
        self.db = db
    }

    func close() { db = nil }

    private var database: RawDatabase { db! }

    @inline(never)
    func insert(_ data: Dataset) throws -> Sample {
        let start = now()
        try database.execute("BEGIN")
        let statement = try database.prepare("INSERT INTO person (\(PlainTable.columns)) VALUES (?, ?, ?, ?, ?, ?, ?, ?)")
        for (index, e) in data.employees.enumerated() {
            statement.bind(Int64(index + 1), 1)
            statement.bind(e.firstName, 2)
            statement.bind(e.lastName, 3)
            statement.bind(Int64(e.age), 4)
            statement.bind(e.salary, 5)
            statement.bind(e.hired, 6)
            statement.bind(Int64(e.department), 7)
            statement.bind(Int64(e.active ? 1 : 0), 8)
            _ = try statement.step()
            statement.reset()
        }
        try database.execute("COMMIT")
        let time = seconds(since: start)
        return Sample(seconds: time, check: try PlainTable.summary(path: path, table: "person", prefix: ""))
    }

    private func rows(_ statement: RawStatement) throws -> [PlainPerson] {
        var rows: [PlainPerson] = []
        while try statement.step() {
            rows.append(PlainPerson(id: statement.int64(0), firstName: statement.text(1), lastName: statement.text(2),
                                    age: Int(statement.int64(3)), salary: statement.double(4),
                                    hired: Date(timeIntervalSinceReferenceDate: statement.double(5)),
                                    code: statement.int64(6), active: statement.int64(7) != 0))
        }
        return rows
    }

    private func read(_ items: [PlainPerson], start: UInt64) -> Sample {
        ScriptCheck.read(items, start: start) { ($0.firstName, $0.lastName, $0.age, $0.salary, $0.hired, $0.code, $0.active) }
    }

    @inline(never)
    func fetchAll() throws -> Sample {
        let start = now()
        let rows = try rows(database.prepare("SELECT \(PlainTable.columns) FROM person"))
        return read(rows, start: start)
    }

    @inline(never)
    func predicateFetch() throws -> Sample {
        let start = now()
        let statement = try database.prepare("SELECT \(PlainTable.columns) FROM person WHERE \(PlainTable.condition)")
        statement.bind(Int64(PredicateWorkload.minimumAge), 1)
        statement.bind(PredicateWorkload.lastNamePrefix, 2)
        let rows = try rows(statement)
        return read(rows, start: start)
    }

    @inline(never)
    func predicateCount() throws -> Sample {
        let start = now()
        let statement = try database.prepare("SELECT count(*) FROM person WHERE \(PlainTable.condition)")
        statement.bind(Int64(PredicateWorkload.minimumAge), 1)
        statement.bind(PredicateWorkload.lastNamePrefix, 2)
        let count = try statement.step() ? Int(statement.int64(0)) : 0
        let time = seconds(since: start)
        return Sample(seconds: time, check: Checksum(count: count))
    }

    @inline(never)
    func average() throws -> Sample {
        let start = now()
        let average = try database.double("SELECT avg(salary) FROM person")
        let time = seconds(since: start)
        return Sample(seconds: time, check: Checksum(extra: average))
    }

    @inline(never)
    func distinct() throws -> Sample {
        let start = now()
        let statement = try database.prepare("SELECT DISTINCT lastName FROM person")
        var names: [String] = []
        while try statement.step() { names.append(statement.text(0)) }
        let time = seconds(since: start)
        return Sample(seconds: time, check: ScriptCheck.distinct(names))
    }

    @inline(never)
    func fetchModifyCommit() throws -> Sample {
        let start = now()
        var rows = try rows(database.prepare("SELECT \(PlainTable.columns) FROM person"))
        for index in rows.indices { rows[index].salary += 1 }
        try database.execute("BEGIN")
        let update = try database.prepare("UPDATE person SET salary = ? WHERE id = ?")
        for r in rows {
            update.bind(r.salary, 1)
            update.bind(r.id, 2)
            _ = try update.step()
            update.reset()
        }
        try database.execute("COMMIT")
        let time = seconds(since: start)
        return Sample(seconds: time, check: try PlainTable.summary(path: path, table: "person", prefix: ""))
    }

    @inline(never)
    func deleteAll() throws -> Sample {
        let start = now()
        try database.execute("DELETE FROM person")
        let time = seconds(since: start)
        return Sample(seconds: time, check: try PlainTable.summary(path: path, table: "person", prefix: ""))
    }

    func bytesPerObject() throws -> Double {
        let before = mallocInUse()
        let rows = try rows(database.prepare("SELECT \(PlainTable.columns) FROM person"))
        let bytes = Double(mallocInUse() - before) / Double(max(1, rows.count))
        blackHole(rows)
        return bytes
    }
}
