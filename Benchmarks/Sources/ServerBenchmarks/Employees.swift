import Foundation

// The user's benchmark data (../shared/bench/baseline's BenchCore): the same rows, the same
// order-independent digests, so the three ways are checked against each other every run.

/// One employee row as the raw loop reads it; the other ways convert their objects to it.
struct Employee: Sendable {
    var id: Int64
    var firstName: String
    var lastName: String
    var age: Int
    var salary: Double
    var hired: Date
    var departmentId: Int64
    var active: Bool
}

/// Predicate of workloads 3 and 4: `age > 40 AND lastName BEGINSWITH "S"`.
let predicateMinAge = 40
let predicateLastNamePrefix = "S"
/// Increment applied to every salary in workload 7.
let salaryIncrement = 100.0

/// SplitMix64: deterministic, fast, good enough for test data.
private struct SplitMix64 {
    var state: UInt64
    mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }
    mutating func next(below n: Int) -> Int { Int(next() % UInt64(n)) }
}

private let firstNames = [
    "James", "Mary", "John", "Patricia", "Robert", "Jennifer", "Michael", "Linda",
    "William", "Elizabeth", "David", "Barbara", "Richard", "Susan", "Joseph", "Jessica",
    "Thomas", "Sarah", "Charles", "Karen", "Christopher", "Nancy", "Daniel", "Lisa",
    "Matthew", "Betty", "Anthony", "Margaret", "Mark", "Sandra", "Donald", "Ashley",
]
private let lastNames = [
    "Smith", "Johnson", "Williams", "Brown", "Jones", "Garcia", "Miller", "Davis",
    "Rodriguez", "Martinez", "Hernandez", "Lopez", "Gonzalez", "Wilson", "Anderson",
    "Thomas", "Taylor", "Moore", "Jackson", "Martin", "Lee", "Perez", "Thompson",
    "White", "Harris", "Sanchez", "Clark", "Ramirez", "Lewis", "Robinson", "Walker",
    "Young", "Allen", "King", "Wright", "Scott", "Torres", "Nguyen", "Hill", "Flores",
    "Green", "Adams", "Nelson", "Baker", "Hall", "Rivera", "Campbell", "Mitchell",
    "Carter", "Roberts", "Stewart", "Sullivan", "Shaw", "Simmons", "Spencer", "Stone",
]

/// `count` employees with ids 1...count; the same rows on every call (seed 42, as the user's benchmark).
func makeEmployees(count: Int, seed: UInt64 = 42) -> [Employee] {
    var rng = SplitMix64(state: seed)
    let base = 946_684_800.0 // 2000-01-01T00:00:00Z
    return (1...count).map { i in
        Employee(
            id: Int64(i),
            firstName: firstNames[rng.next(below: firstNames.count)],
            lastName: lastNames[rng.next(below: lastNames.count)],
            age: 20 + rng.next(below: 46),
            salary: Double(30_000 + rng.next(below: 120_000)) + Double(rng.next(below: 100)) / 100,
            hired: Date(timeIntervalSince1970: base + Double(rng.next(below: 25 * 365 * 86_400))),
            departmentId: Int64(1 + rng.next(below: 20)),
            active: rng.next(below: 10) != 0)
    }
}

/// Order-independent digest of employees (computed outside the timed regions): catches lost
/// rows and mis-decoded columns.
func digest(_ rows: [Employee]) -> String {
    var ids: Int64 = 0, ages = 0, nameBytes = 0, dept: Int64 = 0, active = 0
    var salary = 0.0, hired = 0.0
    for r in rows {
        ids &+= r.id
        ages &+= r.age
        nameBytes &+= r.firstName.utf8.count &+ 7 &* r.lastName.utf8.count
        dept &+= r.departmentId
        active &+= r.active ? 1 : 0
        salary += r.salary
        hired += r.hired.timeIntervalSince1970
    }
    return "n=\(rows.count) ids=\(ids) ages=\(ages) names=\(nameBytes) dept=\(dept) active=\(active) "
        + "salary=\(String(format: "%.2f", salary)) hired=\(String(format: "%.0f", hired))"
}

/// Digest of a distinct-values result.
func digest(strings: [String]) -> String {
    "n=\(strings.count) bytes=\(strings.reduce(0) { $0 + $1.utf8.count }) set=\(Set(strings).count)"
}

func median(_ xs: [Double]) -> Double {
    let s = xs.sorted()
    precondition(!s.isEmpty)
    return s.count % 2 == 1 ? s[s.count / 2] : (s[s.count / 2 - 1] + s[s.count / 2]) / 2
}
