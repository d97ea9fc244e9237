import Foundation
import ObjectGraph

// What translating a `#Predicate` costs, against parsing the equivalent format string
// (docs/performance.md, "#Predicate translation"):
//
//   swift build -c release --product PredicateTranslationCost
//   .build/release/PredicateTranslationCost 100000
//
// Each pair is made the given number of times: `FetchPredicate(#Predicate …)` (the tree
// walk and the key-path names, which are read once per class and key path, then cached) and
// `FetchPredicate("format", args)` (the lexer and parser). Neither touches a store; binding to
// the entity, the same for both, happens at fetch time and is not counted. The times are the
// best of 5 runs, per predicate made; the first translation of each, which reads its new key
// paths on a probe object, is timed apart.

final class Department: ManagedObject {
    @Attribute var name: String = ""
    @Relationship(inverse: \Employee.$department) var employees: Set<Employee>
}

final class Employee: ManagedObject {
    @Attribute var firstName: String = ""
    @Attribute var lastName: String = ""
    @Attribute var age: Int = 0
    @Attribute var salary: Double = 0
    @Attribute var nickname: String? = nil
    @Attribute var active: Bool = true
    @Relationship var department: Department?
    @Relationship(inverse: \Employee.$reportsTo) var reports: Set<Employee>
    @Relationship var reportsTo: Employee?
}

struct Pair {
    let name: String
    let foundation: () -> FetchPredicate
    let format: () throws -> FetchPredicate
}

let minimumAge = 40
let pairs = [
    Pair(name: "age > 40",
         foundation: { FetchPredicate(#Predicate<Employee> { $0.age > minimumAge }) },
         format: { try FetchPredicate("age > %@", minimumAge) }),
    Pair(name: "age > 40 AND department.name == 'Sales' AND nickname != nil",
         foundation: { FetchPredicate(#Predicate<Employee> { $0.age > minimumAge && $0.department?.name == "Sales" && $0.nickname != nil }) },
         format: { try FetchPredicate("age > %@ AND department.name == %@ AND nickname != nil", minimumAge, "Sales") }),
    Pair(name: "SUBQUERY(reports, $r, $r.age > 30 AND $r.active == YES).@count > 0",
         foundation: { FetchPredicate(#Predicate<Employee> { $0.reports.contains { $0.age > 30 && $0.active } }) },
         format: { try FetchPredicate("SUBQUERY(reports, $r, $r.age > 30 AND $r.active == YES).@count > 0") }),
    Pair(name: "(salary + 100) * 2 > 9000 OR lastName BEGINSWITH 'S'",
         foundation: { FetchPredicate(#Predicate<Employee> { ($0.salary + 100) * 2 > 9000 || $0.lastName.starts(with: "S") }) },
         format: { try FetchPredicate("(salary + 100) * 2 > 9000 OR lastName BEGINSWITH 'S'") }),
]

let count = CommandLine.arguments.count > 1 ? Int(CommandLine.arguments[1]) ?? 100_000 : 100_000

func best(_ body: () throws -> Void) rethrows -> Double {
    var times: [Double] = []
    for _ in 0..<5 {
        let start = ContinuousClock.now
        try body()
        let elapsed = ContinuousClock.now - start
        times.append(Double(elapsed.components.seconds) + Double(elapsed.components.attoseconds) / 1e18)
    }
    return times.min()! / Double(count)
}

print("Made \(count) times each, best of 5 runs, per predicate:")
for pair in pairs {
    let coldStart = ContinuousClock.now
    let translated = pair.foundation()     // the first: its key paths are read on a probe object
    let cold = ContinuousClock.now - coldStart
    precondition(translated.translationError == nil, "\(pair.name): \(translated.translationError!)")
    let foundation = best { for _ in 0..<count { _ = pair.foundation() } }
    let format = try best { for _ in 0..<count { _ = try pair.format() } }
    print(pair.name.padding(toLength: 72, withPad: " ", startingAt: 0)
          + String(format: " #Predicate %6.2f µs   format string %6.2f µs   (x%.2f)", foundation * 1e6, format * 1e6, foundation / format))
    print("    first translation (new key paths read on a probe object): \(cold); it means \(translated.predicateFormat)")
}
