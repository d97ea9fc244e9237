import Foundation

/// One way of running the user-style script: open a store (untimed), then the
/// eight steps in sequence on ONE connection or context, as a script does them. Each step
/// times itself and returns what it produced (checked equal across the ways). Steps are
/// separate functions so a profile can collect one step (`--toggle-collect`).
protocol ScriptWay: AnyObject {
    /// Column header.
    var name: String { get }
    /// `--ways` key.
    var key: String { get }

    /// Opens a new empty store in `directory` (untimed) for one run of the script.
    func open(_ directory: URL) throws
    /// Closes the store (untimed).
    func close()

    /// 1. Insert every person of `data` and commit.
    func insert(_ data: Dataset) throws -> Sample
    /// 2. Fetch all and read every attribute.
    func fetchAll() throws -> Sample
    /// 3. Fetch `age > 40 AND lastName BEGINSWITH 'S'` and read every attribute.
    func predicateFetch() throws -> Sample
    /// 4. Count `age > 40 AND lastName BEGINSWITH 'S'`.
    func predicateCount() throws -> Sample
    /// 5. Average salary.
    func average() throws -> Sample
    /// 6. Distinct last names (in whatever order the way gives them).
    func distinct() throws -> Sample
    /// 7. Fetch all, add 1 to every salary, commit.
    func fetchModifyCommit() throws -> Sample
    /// 8. Delete every row.
    func deleteAll() throws -> Sample

    /// Malloc'ed bytes per fetched object (result array included) on the open, filled store.
    func bytesPerObject() throws -> Double
}

/// The script's steps, in order, with the ratio to the raw loop that ManagedRecord must stay within (`target`).
enum ScriptStep: Int, CaseIterable {
    case insert, fetchAll, predicateFetch, predicateCount, average, distinct, fetchModifyCommit, deleteAll

    var label: String {
        switch self {
        case .insert: "insert + commit"
        case .fetchAll: "fetch all, read every attribute"
        case .predicateFetch: "predicate fetch (age > 40 AND lastName BEGINSWITH 'S')"
        case .predicateCount: "predicate count"
        case .average: "average salary"
        case .distinct: "distinct last names"
        case .fetchModifyCommit: "fetch-modify-commit (salary + 1)"
        case .deleteAll: "delete all (deleteAll(where: \"TRUEPREDICATE\"))"
        }
    }

    var target: Double {
        switch self {
        case .insert: 1.5
        case .fetchAll, .predicateFetch, .fetchModifyCommit: 2
        case .predicateCount, .average, .distinct: 1.1
        case .deleteAll: 1.2
        }
    }

    func run(_ way: any ScriptWay, _ data: Dataset) throws -> Sample {
        switch self {
        case .insert: try way.insert(data)
        case .fetchAll: try way.fetchAll()
        case .predicateFetch: try way.predicateFetch()
        case .predicateCount: try way.predicateCount()
        case .average: try way.average()
        case .distinct: try way.distinct()
        case .fetchModifyCommit: try way.fetchModifyCommit()
        case .deleteAll: try way.deleteAll()
        }
    }
}

/// Checksum helpers shared by the script's ways.
enum ScriptCheck {
    static func add(_ builder: inout ChecksumBuilder, firstName: String, lastName: String, age: Int, salary: Double,
                    hired: Date, code: Int64, active: Bool) {
        builder.add(firstName: firstName, lastName: lastName, age: age, salary: salary,
                    hired: hired.timeIntervalSinceReferenceDate, department: code, active: active)
    }

    @inline(__always)
    static func touch(_ sink: inout Int, _ firstName: String, _ lastName: String, _ age: Int, _ salary: Double,
                      _ hired: Date, _ code: Int64, _ active: Bool) {
        sink &+= firstName.utf8.count &+ lastName.utf8.count &+ age &+ Int(salary)
            &+ Int(hired.timeIntervalSinceReferenceDate) &+ Int(code) &+ (active ? 1 : 0)
    }

    /// Reads every attribute of `items` (`fields` gives them), stops the clock started at
    /// `start`, then builds the checksum (untimed).
    @inline(__always)
    static func read<T>(_ items: [T], start: UInt64,
                        _ fields: (T) -> (String, String, Int, Double, Date, Int64, Bool)) -> Sample {
        var sink = 0
        for item in items {
            let f = fields(item)
            touch(&sink, f.0, f.1, f.2, f.3, f.4, f.5, f.6)
        }
        let time = seconds(since: start)
        blackHole(sink)
        var builder = ChecksumBuilder()
        for item in items {
            let f = fields(item)
            add(&builder, firstName: f.0, lastName: f.1, age: f.2, salary: f.3, hired: f.4, code: f.5, active: f.6)
        }
        return Sample(seconds: time, check: builder.result)
    }

    static func distinct(_ names: [String]) -> Checksum {
        Checksum(count: names.count, nameBytes: names.reduce(0) { $0 + $1.utf8.count })
    }
}
