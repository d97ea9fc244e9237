import Foundation

/// One employee's values, generated deterministically so every way writes the same data.
struct EmployeeData {
    var firstName: String
    var lastName: String
    var age: Int
    var salary: Double
    /// Seconds since 2001-01-01 (Core Data's reference date), whole days.
    var hired: Double
    /// Index into the departments, 0-based.
    var department: Int
    var active: Bool
}

struct Dataset {
    let departments: [String]
    let employees: [EmployeeData]

    static let firstNames = ["James", "Mary", "John", "Patricia", "Robert", "Jennifer", "Michael", "Linda", "William",
                             "Elizabeth", "David", "Barbara", "Richard", "Susan", "Joseph", "Jessica", "Thomas", "Sarah",
                             "Charles", "Karen", "Wei", "Aiko", "Omar", "Fatima", "Lars", "Ingrid", "Pedro", "Lucia"]
    static let lastNames: [String] = {
        let heads = ["S", "Sch", "Sm", "M", "K", "B", "T", "W", "L", "R", "H", "D", "G", "P", "N", "C"]
        let tails = ["anders", "ith", "orton", "iller", "ellogg", "aker", "ucker", "alsh", "ee", "eyes", "all", "avis",
                     "arcia", "erez", "guyen", "hen", "ong", "ilva", "ansen", "ertz"]
        return heads.flatMap { head in tails.map { head + $0 } }
    }()

    /// `count` employees in `departmentCount` departments: randomly assigned, or in blocks
    /// of equal size (`blocks`, for the traversal workload).
    init(count: Int, departmentCount: Int, blocks: Bool = false) {
        departments = (0..<departmentCount).map { "Department \($0)" }
        var state: UInt64 = 0x9E37_79B9_7F4A_7C15
        func next() -> Int {
            state = state &* 6364136223846793005 &+ 1442695040888963407
            return Int(truncatingIfNeeded: (state >> 33) & 0x7FFF_FFFF)
        }
        let perDepartment = max(1, count / max(1, departmentCount))
        employees = (0..<count).map { index in
            EmployeeData(firstName: Self.firstNames[next() % Self.firstNames.count],
                         lastName: Self.lastNames[next() % Self.lastNames.count],
                         age: 20 + next() % 45,
                         salary: Double(30_000 + next() % 90_000) + 0.5,
                         hired: Double(next() % 9_000) * 86_400,
                         department: blocks ? min(departmentCount - 1, index / perDepartment) : next() % departmentCount,
                         active: next() % 4 != 0)
        }
    }

    /// What reading every employee back must give.
    var checksum: Checksum {
        var builder = ChecksumBuilder()
        for e in employees {
            builder.add(firstName: e.firstName, lastName: e.lastName, age: e.age, salary: e.salary, hired: e.hired,
                        department: Int64(e.department), active: e.active)
        }
        return builder.result
    }
}
