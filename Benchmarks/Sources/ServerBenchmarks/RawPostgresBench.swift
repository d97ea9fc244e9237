import Foundation
import Logging
import PostgresNIO

// The baseline: postgres-nio used directly on one connection, prepared statements, one
// transaction where the workload writes, a plain loop — what a careful hand-written
// server does. Same table as Fluent's (types as Fluent's schema builder writes them).

/// The raw table (Fluent's has the same columns and types).
let rawTableSQL = """
    CREATE TABLE raw_employee (id bigint PRIMARY KEY, first_name text NOT NULL, last_name text NOT NULL, \
    age bigint NOT NULL, salary double precision NOT NULL, hired timestamptz NOT NULL, \
    department_id bigint NOT NULL, active boolean NOT NULL)
    """
private let columns = "id, first_name, last_name, age, salary, hired, department_id, active"
private let condition = "age > $1 AND last_name LIKE $2"
private typealias EmployeeRow = (Int64, String, String, Int, Double, Date, Int64, Bool)

private func employee(_ r: EmployeeRow) -> Employee {
    Employee(id: r.0, firstName: r.1, lastName: r.2, age: r.3, salary: r.4, hired: r.5, departmentId: r.6, active: r.7)
}

private struct InsertEmployee: PostgresPreparedStatement {
    static let sql = "INSERT INTO raw_employee (\(columns)) VALUES ($1, $2, $3, $4, $5, $6, $7, $8)"
    typealias Row = ()
    let e: Employee

    func makeBindings() -> PostgresBindings {
        var b = PostgresBindings(capacity: 8)
        b.append(e.id); b.append(e.firstName); b.append(e.lastName); b.append(e.age)
        b.append(e.salary); b.append(e.hired); b.append(e.departmentId); b.append(e.active)
        return b
    }

    func decodeRow(_ row: PostgresRow) throws -> Row {}
}

private struct SelectAll: PostgresPreparedStatement {
    static let sql = "SELECT \(columns) FROM raw_employee"
    typealias Row = EmployeeRow
    func makeBindings() -> PostgresBindings { PostgresBindings() }
    func decodeRow(_ row: PostgresRow) throws -> Row { try row.decode(Row.self) }
}

/// The predicate's two parameters, as the raw SQLite loop binds them.
private func predicateBindings() -> PostgresBindings {
    var b = PostgresBindings(capacity: 2)
    b.append(predicateMinAge); b.append(predicateLastNamePrefix + "%")
    return b
}

private struct SelectWhere: PostgresPreparedStatement {
    static let sql = "SELECT \(columns) FROM raw_employee WHERE \(condition)"
    typealias Row = EmployeeRow
    func makeBindings() -> PostgresBindings { predicateBindings() }
    func decodeRow(_ row: PostgresRow) throws -> Row { try row.decode(Row.self) }
}

private struct CountWhere: PostgresPreparedStatement {
    static let sql = "SELECT count(*) FROM raw_employee WHERE \(condition)"
    typealias Row = Int
    func makeBindings() -> PostgresBindings { predicateBindings() }
    func decodeRow(_ row: PostgresRow) throws -> Row { try row.decode(Row.self) }
}

private struct AverageSalary: PostgresPreparedStatement {
    static let sql = "SELECT avg(salary) FROM raw_employee"
    typealias Row = Double?
    func makeBindings() -> PostgresBindings { PostgresBindings() }
    func decodeRow(_ row: PostgresRow) throws -> Row { try row.decode(Row.self) }
}

private struct DistinctLastName: PostgresPreparedStatement {
    static let sql = "SELECT DISTINCT last_name FROM raw_employee"
    typealias Row = String
    func makeBindings() -> PostgresBindings { PostgresBindings() }
    func decodeRow(_ row: PostgresRow) throws -> Row { try row.decode(Row.self) }
}

private struct UpdateSalary: PostgresPreparedStatement {
    static let sql = "UPDATE raw_employee SET salary = $1 WHERE id = $2"
    typealias Row = ()
    let salary: Double
    let id: Int64

    func makeBindings() -> PostgresBindings {
        var b = PostgresBindings(capacity: 2)
        b.append(salary); b.append(id)
        return b
    }

    func decodeRow(_ row: PostgresRow) throws -> Row {}
}

enum RawPostgresBench {
    /// One pass of the eight workloads on a new connection and a new table.
    static func run(rows: [Employee], settings: ServerSettings, logger: Logger) async throws -> RunResult {
        let db = try await settings.connect(id: 1, logger: logger)
        try await db.query(PostgresQuery(unsafeSQL: rawTableSQL), logger: logger)
        var r = RunResult()

        try await r.time(.insert) {
            try await db.query("BEGIN", logger: logger)
            for e in rows {
                try await perform(InsertEmployee(e: e), on: db, logger)
            }
            try await db.query("COMMIT", logger: logger)
        }
        r.check[.insert] = "count=\(try await rowCount(db, logger))"

        func fetch<S: PostgresPreparedStatement>(_ statement: S) async throws -> [Employee] where S.Row == EmployeeRow {
            var result: [Employee] = []
            for try await row in try await db.execute(statement, logger: logger) { result.append(employee(row)) }
            return result
        }

        let all = try await r.time(.fetchAll) { try await fetch(SelectAll()) }
        r.check[.fetchAll] = digest(all)

        let some = try await r.time(.fetchPredicate) { try await fetch(SelectWhere()) }
        r.check[.fetchPredicate] = digest(some)

        let count = try await r.time(.countPredicate) {
            var n = 0
            for try await value in try await db.execute(CountWhere(), logger: logger) { n = value }
            return n
        }
        r.check[.countPredicate] = "count=\(count)"

        let avg = try await r.time(.avgSalary) {
            var average = Double.nan
            for try await value in try await db.execute(AverageSalary(), logger: logger) { average = value ?? .nan }
            return average
        }
        r.check[.avgSalary] = String(format: "avg=%.6f", avg)

        let names = try await r.time(.distinctLastName) {
            var result: [String] = []
            for try await name in try await db.execute(DistinctLastName(), logger: logger) { result.append(name) }
            return result
        }
        r.check[.distinctLastName] = digest(strings: names)

        try await r.time(.updateAll) {
            try await db.query("BEGIN", logger: logger)
            var employees = try await fetch(SelectAll())
            for i in employees.indices {
                employees[i].salary += salaryIncrement
                try await perform(UpdateSalary(salary: employees[i].salary, id: employees[i].id), on: db, logger)
            }
            try await db.query("COMMIT", logger: logger)
        }
        r.check[.updateAll] = digest(try await fetch(SelectAll()))

        try await r.time(.deleteAll) {
            _ = try await db.query("DELETE FROM raw_employee", logger: logger)
        }
        r.check[.deleteAll] = "count=\(try await rowCount(db, logger))"

        try await db.query("DROP TABLE raw_employee", logger: logger)
        try await db.close()
        return r
    }

    /// Runs a statement that returns no rows. (postgres-nio 1.33.2's `execute` that answers the
    /// command tag stops the process with "commandTag may only be called if all rows have been
    /// consumed" on this server, so the empty row sequence is read instead; the digest after
    /// workload 7 checks that every row was updated.)
    private static func perform<S: PostgresPreparedStatement>(_ statement: S, on db: PostgresConnection, _ logger: Logger) async throws
    where S.Row == () {
        let rows: AsyncThrowingMapSequence<PostgresRowSequence, ()> = try await db.execute(statement, logger: logger)
        for try await _ in rows {}
    }

    /// The table's row count (untimed checks).
    private static func rowCount(_ db: PostgresConnection, _ logger: Logger) async throws -> Int {
        var n = -1
        for try await value in try await db.query("SELECT count(*) FROM raw_employee", logger: logger).decode(Int.self) { n = value }
        return n
    }
}
