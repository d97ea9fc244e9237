import Foundation
import GRDB
import ManagedRecord
import ObjectGraph

// Workloads 11 and 12: JSON in and out. The input is what a web service would send: an array
// of employees, dates in ISO 8601, each with its department as a nested object that names it.
// ManagedRecord imports it with `importJSON` (departments upserted by name) and exports with
// `exportJSON` (the helpers column: `Employee.importJSON`, `Employee.exportJSON`); GRDB decodes and encodes `Codable` structs and writes records. The raw way
// has no JSON code: it shows n/a.

/// An employee as JSON, as a GRDB user declares it.
struct EmployeeJSON: Codable {
    struct DepartmentJSON: Codable { var name: String }
    var firstName: String
    var lastName: String
    var age: Int
    var salary: Double
    var hired: Date?
    var department: DepartmentJSON?
    var active: Bool
}

enum JSONWorkload {
    /// The import input for `data`, built outside the timings.
    static func input(_ data: Dataset) throws -> Data {
        let records = data.employees.map { e in
            EmployeeJSON(firstName: e.firstName, lastName: e.lastName, age: e.age, salary: e.salary,
                         hired: Date(timeIntervalSinceReferenceDate: e.hired),
                         department: .init(name: data.departments[e.department]), active: e.active)
        }
        return try encoder.encode(records)
    }

    static var encoder: JSONEncoder {
        let encoder = JSONEncoder()
        encoder.dateEncodingStrategy = .iso8601
        return encoder
    }

    static var decoder: JSONDecoder {
        let decoder = JSONDecoder()
        decoder.dateDecodingStrategy = .iso8601
        return decoder
    }

    /// ManagedRecord's mapping: departments are matched by name, written as nested objects.
    static let mapping = JSONMapping(relatedBy: ["Department": "name"])

    /// What an export holds, read back outside the timing (departments by name, so the
    /// checksum does not depend on keys).
    static func checksum(ofExport json: Data) throws -> Checksum {
        var builder = ChecksumBuilder()
        var departments: [String: Int64] = [:]
        for e in try decoder.decode([EmployeeJSON].self, from: json) {
            let department = e.department.map { name in
                departments[name.name] ?? { departments[name.name] = Int64(departments.count + 1); return Int64(departments.count) }()
            }
            builder.add(firstName: e.firstName, lastName: e.lastName, age: e.age, salary: e.salary,
                        hired: e.hired?.timeIntervalSinceReferenceDate, department: department, active: e.active)
        }
        return builder.result
    }
}

extension Way {
    func importJSON(_ store: StoreURL, _ json: Data) throws -> Sample {
        throw Unavailable(reason: "no JSON code in this way (raw SQLite); compare ManagedRecord with GRDB's Codable records")
    }

    func exportJSON(_ store: StoreURL) throws -> Sample {
        throw Unavailable(reason: "no JSON code in this way (raw SQLite); compare ManagedRecord with GRDB's Codable records")
    }
}

extension ContextWay {
    func importJSON(_ store: StoreURL, _ json: Data) throws -> Sample {
        let container = try open(store)
        let start = now()
        try container.viewContext.importJSON(json, entityName: "Employee", options: JSONImportOptions(relatedBy: JSONWorkload.mapping.relatedBy))
        let time = seconds(since: start)
        return Sample(seconds: time, check: try StoreSummary.read(store))
    }

    func exportJSON(_ store: StoreURL) throws -> Sample {
        let container = try open(store)
        let start = now()
        let json = try container.viewContext.exportJSON(FetchRequest<Employee>(), options: JSONExportOptions(mapping: JSONWorkload.mapping, relationships: .nested(depth: 1)))
        let time = seconds(since: start)
        return Sample(seconds: time, check: try JSONWorkload.checksum(ofExport: json))
    }
}

extension ClassHelpersWay {
    func importJSON(_ store: StoreURL, _ json: Data) throws -> Sample {
        try withStack(store) {
            let start = now()
            try Employee.importJSON(json, options: JSONImportOptions(relatedBy: JSONWorkload.mapping.relatedBy))
            let time = seconds(since: start)
            return Sample(seconds: time, check: try StoreSummary.read(store))
        }
    }

    func exportJSON(_ store: StoreURL) throws -> Sample {
        try withStack(store) {
            let start = now()
            let json = try Employee.exportJSON(options: JSONExportOptions(mapping: JSONWorkload.mapping, relationships: .nested(depth: 1)))
            let time = seconds(since: start)
            return Sample(seconds: time, check: try JSONWorkload.checksum(ofExport: json))
        }
    }
}

extension GRDBWay {
    func importJSON(_ store: StoreURL, _ json: Data) throws -> Sample {
        let queue = try open(store)
        let start = now()
        let employees = try JSONWorkload.decoder.decode([EmployeeJSON].self, from: json)
        try queue.write { db in
            var departments: [String: Int64] = [:]
            for name in employees.compactMap({ $0.department?.name }) where departments[name] == nil {
                departments[name] = try Int64.fetchOne(db, sql: "SELECT Z_PK FROM ZDEPARTMENT WHERE ZNAME = ?", arguments: [name])
            }
            let missing = Set(employees.compactMap { $0.department?.name }).filter { departments[$0] == nil }.sorted()
            var nextDepartment = try Self.allocateKeys(db, entity: entities.department, table: "ZDEPARTMENT", count: missing.count)
            for name in missing {
                nextDepartment += 1
                try DepartmentRecord(id: nextDepartment, entity: entities.department, version: 1, name: name).insert(db)
                departments[name] = nextDepartment
            }
            var nextEmployee = try Self.allocateKeys(db, entity: entities.employee, table: "ZEMPLOYEE", count: employees.count)
            for e in employees {
                nextEmployee += 1
                try EmployeeRecord(id: nextEmployee, entity: entities.employee, version: 1, firstName: e.firstName, lastName: e.lastName,
                                   age: e.age, salary: e.salary, hired: e.hired?.timeIntervalSinceReferenceDate,
                                   department: e.department.flatMap { departments[$0.name] }, active: e.active).insert(db)
            }
        }
        let time = seconds(since: start)
        return Sample(seconds: time, check: try StoreSummary.read(store))
    }

    func exportJSON(_ store: StoreURL) throws -> Sample {
        let queue = try open(store)
        let start = now()
        let json = try queue.read { db in
            let names = Dictionary(uniqueKeysWithValues: try DepartmentRecord.fetchAll(db).map { ($0.id, $0.name) })
            let rows = try EmployeeRecord.fetchAll(db).map { r in
                EmployeeJSON(firstName: r.firstName, lastName: r.lastName, age: r.age, salary: r.salary,
                             hired: r.hired.map { Date(timeIntervalSinceReferenceDate: $0) },
                             department: r.department.flatMap { names[$0] }.map { .init(name: $0) }, active: r.active)
            }
            return try JSONWorkload.encoder.encode(rows)
        }
        let time = seconds(since: start)
        return Sample(seconds: time, check: try JSONWorkload.checksum(ofExport: json))
    }
}
