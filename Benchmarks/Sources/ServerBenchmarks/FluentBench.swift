import FluentKit
import FluentPostgresDriver
import Foundation
import Logging
import PostgresNIO

// Fluent as a Vapor user writes it: a `Model` with the same fields, `Model.query(on:)`,
// `create`, `filter`, `count`, `average`, `unique().all(\.$field)`, `update`, `delete`; the
// database from `Databases` with fluent-postgres-driver's default pool (one connection per
// event loop), as `app.databases.use(.postgres(configuration:), as: .psql)` sets it up.

/// The Fluent model: the same columns as the raw table; the id is the user's (1...n).
final class FluentEmployee: Model, @unchecked Sendable {
    static let schema = "fluent_employee"

    @ID(custom: "id", generatedBy: .user) var id: Int64?
    @Field(key: "first_name") var firstName: String
    @Field(key: "last_name") var lastName: String
    @Field(key: "age") var age: Int
    @Field(key: "salary") var salary: Double
    @Field(key: "hired") var hired: Date
    @Field(key: "department_id") var departmentId: Int64
    @Field(key: "active") var active: Bool

    init() {}

    init(_ e: Employee) {
        id = e.id; firstName = e.firstName; lastName = e.lastName; age = e.age
        salary = e.salary; hired = e.hired; departmentId = e.departmentId; active = e.active
    }

    /// Reads every field, as the raw loop reads every column.
    var row: Employee {
        Employee(id: id!, firstName: firstName, lastName: lastName, age: age, salary: salary,
                 hired: hired, departmentId: departmentId, active: active)
    }
}

enum FluentBench {
    /// Rows per batch `create`: one INSERT binds 8 values a row, and PostgreSQL takes at
    /// most 65,535 parameters a statement, so Fluent's batch insert is cut in batches.
    static let batchRows = 65_535 / 8

    /// One pass of the eight workloads on a new `Databases` (new pool) and a new table.
    static func run(rows: [Employee], settings: ServerSettings, logger: Logger) async throws -> RunResult {
        let eventLoopGroup = MultiThreadedEventLoopGroup.singleton
        let databases = Databases(threadPool: NIOThreadPool.singleton, on: eventLoopGroup)
        let configuration = SQLPostgresConfiguration(coreConfiguration: settings.connection, searchPath: [settings.schema])
        databases.use(.postgres(configuration: configuration), as: .psql)
        guard let db = databases.database(logger: logger, on: eventLoopGroup.any()) else {
            throw ServerSettings.Missing(description: "Fluent gave no database (Databases already shut down)")
        }
        try await db.schema(FluentEmployee.schema)
            .field("id", .int64, .identifier(auto: false))
            .field("first_name", .string, .required)
            .field("last_name", .string, .required)
            .field("age", .int, .required)
            .field("salary", .double, .required)
            .field("hired", .datetime, .required)
            .field("department_id", .int64, .required)
            .field("active", .bool, .required)
            .create()
        var r = RunResult()

        try await r.time(.insert) {
            let models = rows.map { FluentEmployee($0) }
            try await db.transaction { db in
                for start in stride(from: 0, to: models.count, by: batchRows) {
                    try await Array(models[start..<min(start + batchRows, models.count)]).create(on: db)
                }
            }
        }
        r.check[.insert] = "count=\(try await FluentEmployee.query(on: db).count())"

        let all = try await r.time(.fetchAll) { try await FluentEmployee.query(on: db).all().map(\.row) }
        r.check[.fetchAll] = digest(all)

        let some = try await r.time(.fetchPredicate) {
            try await FluentEmployee.query(on: db)
                .filter(\.$age > predicateMinAge).filter(\.$lastName =~ predicateLastNamePrefix)
                .all().map(\.row)
        }
        r.check[.fetchPredicate] = digest(some)

        let count = try await r.time(.countPredicate) {
            try await FluentEmployee.query(on: db)
                .filter(\.$age > predicateMinAge).filter(\.$lastName =~ predicateLastNamePrefix)
                .count()
        }
        r.check[.countPredicate] = "count=\(count)"

        let avg = try await r.time(.avgSalary) { try await FluentEmployee.query(on: db).average(\.$salary) ?? .nan }
        r.check[.avgSalary] = String(format: "avg=%.6f", avg)

        let names = try await r.time(.distinctLastName) { try await FluentEmployee.query(on: db).unique().all(\.$lastName) }
        r.check[.distinctLastName] = digest(strings: names)

        try await r.time(.updateAll) {
            let employees = try await FluentEmployee.query(on: db).all()
            for e in employees { e.salary += salaryIncrement }
            try await db.transaction { db in
                for e in employees { try await e.update(on: db) }
            }
        }
        r.check[.updateAll] = digest(try await FluentEmployee.query(on: db).all().map(\.row))

        try await r.time(.deleteAll) { try await FluentEmployee.query(on: db).delete() }
        r.check[.deleteAll] = "count=\(try await FluentEmployee.query(on: db).count())"

        try await db.schema(FluentEmployee.schema).delete()
        await databases.shutdownAsync()
        return r
    }
}
