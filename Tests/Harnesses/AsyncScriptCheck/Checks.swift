import Foundation
import ManagedRecord
import Synchronization

/// The checks the script made, from any thread or task.
private let results = Mutex<(passed: Int, failed: [String])>((0, []))

/// Records one check: prints it, and remembers a failure for ``finish()``.
func check(_ condition: @autoclosure () throws -> Bool, _ what: @autoclosure () -> String) {
    let outcome: Bool
    do { outcome = try condition() } catch {
        results.withLock { $0.failed.append("\(what()): threw \(error)") }
        print("FAIL \(what()): threw \(error)")
        return
    }
    results.withLock { outcome ? ($0.passed += 1) : $0.failed.append(what()) }
    print("\(outcome ? "ok  " : "FAIL") \(what())")
}

/// Prints the closing line (`N passed, N failed`) and exits non-zero when a check failed.
func finish() -> Never {
    let (passed, failed) = results.withLock { ($0.passed, $0.failed) }
    for failure in failed { print("failed: \(failure)") }
    print("AsyncScriptCheck: \(passed) passed, \(failed.count) failed")
    exit(failed.isEmpty ? 0 : 1)
}

/// The employees matching `format` as the store holds them, read by a stack of its own (so
/// no context's memory answers).
func stored(where format: String, _ arguments: Any...) throws -> [Employee] {
    let reader = try PersistentContainer(name: "Reader", entities: [Department.self, Employee.self, Manager.self], storeURL: storeURL)
    var request = FetchRequest<Employee>()
    request.predicate = try FetchPredicate(format, argumentArray: arguments)
    return try reader.viewContext.fetch(request)
}

/// The age stored for the employee called `firstName`.
func storedAge(of firstName: String) throws -> Int? {
    try stored(where: "firstName == %@", firstName).first?.age
}
