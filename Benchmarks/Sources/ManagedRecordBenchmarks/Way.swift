import Foundation

/// One way of doing every workload. Each method gets a store prepared for it (see
/// ``Workload``), opens its own connection or container outside the timed part, and returns
/// the median-able time of the timed part with a checksum of what it produced. A way that
/// cannot run a workload yet throws ``Unavailable`` with the reason.
protocol Way {
    /// Column header.
    var name: String { get }
    /// `--ways` key.
    var key: String { get }

    /// 1. Insert the departments and employees of `data` into the empty store and save.
    func insert(_ store: StoreURL, _ data: Dataset) throws -> Sample
    /// 2. Fetch every employee into objects and read every attribute.
    func fetchAll(_ store: StoreURL) throws -> Sample
    /// 3. Fetch `age > 40 AND lastName BEGINSWITH 'S'` into objects, read every attribute.
    func predicateFetch(_ store: StoreURL) throws -> Sample
    /// 4. Count `age > 40 AND lastName BEGINSWITH 'S'`.
    func predicateCount(_ store: StoreURL) throws -> Sample
    /// 5. Average salary of all employees.
    func averageSalary(_ store: StoreURL) throws -> Sample
    /// 6. Distinct last names of all employees, in ascending order (as the library returns them).
    func distinctLastNames(_ store: StoreURL) throws -> Sample
    /// 7. Fetch all, add 1 to every salary, save.
    func fetchModifySave(_ store: StoreURL) throws -> Sample
    /// 8. Delete every employee.
    func deleteAll(_ store: StoreURL) throws -> Sample
    /// 9. Fetch every department and touch each one's employees.
    func traverse(_ store: StoreURL) throws -> Sample
    /// 10. A second context/connection changes the salary of the first `count` employees and
    /// commits (`commit`); then the main one, which holds those employees, sees the new
    /// values (`merge`).
    func backgroundChangeAndMerge(_ store: StoreURL, count: Int) throws -> (commit: Sample, merge: Sample)
    /// 11. Import `json` (employees, each with its department as a nested object matched by
    /// name) into the empty store and save (see JSONWorkloads.swift).
    func importJSON(_ store: StoreURL, _ json: Data) throws -> Sample
    /// 12. Export every employee, with its department's name, as JSON.
    func exportJSON(_ store: StoreURL) throws -> Sample
}

/// A store file prepared by ``StoreFactory``.
struct StoreURL {
    let url: URL
    var path: String { url.path }
}

/// The filter of workloads 3 and 4, as each way spells it.
enum PredicateWorkload {
    static let minimumAge = 40
    static let lastNamePrefix = "S"
    /// The SQL the library compiles `age > %@ AND lastName BEGINSWITH %@` to (case-sensitive
    /// prefix test with `substr`, not `LIKE`, which ignores ASCII case).
    static let sqlCondition = "ZAGE > ? AND substr(ZLASTNAME, 1, 1) = ?"
    static let format = "age > %@ AND lastName BEGINSWITH %@"
    static func matches(_ e: EmployeeData) -> Bool { e.age > minimumAge && e.lastName.hasPrefix(lastNamePrefix) }
}

/// Column names of the Core Data layout the library writes (checked against a new store
/// at start-up), in the order the raw and GRDB ways select them.
enum Layout {
    static let employee = ["Z_PK", "Z_ENT", "Z_OPT", "ZFIRSTNAME", "ZLASTNAME", "ZAGE", "ZSALARY", "ZHIRED", "ZDEPARTMENT", "ZACTIVE"]
    static let employeeList = employee.joined(separator: ", ")
    static let department = ["Z_PK", "Z_ENT", "Z_OPT", "ZNAME"]
    static let departmentList = department.joined(separator: ", ")
}
