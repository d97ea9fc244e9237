// A process of StoreBehaviourTests' two-process test: two of these commit concurrently to
// the same counters of one store (a SQLite file or a PostgreSQL database).
//
//   StoreWriter <sqlite|postgres> <path or URL> <role: left|right> <other role> <increments>
//
// 1. Announces itself (a counter named "<role>-ready") and waits to see the other's.
// 2. Increments the counters c0, c1, c2 in turn, <increments> times, under `.error`: a merge
//    conflict (the other process saved the counter first) is rolled back, the counter
//    refreshed, and the increment tried again.
// 3. Writes its role into its own attribute (`left` or `right`) of every counter under
//    `.mergeByPropertyObjectTrump`, without refreshing first: where the other process saved
//    since, the policy keeps the other's values and this one's change.
// 4. Announces "<role>-done", waits for the other's, and checks that it sees the other's
//    changes: every increment of both, and both attributes.
//
// Prints `store writer <role> ok: increments=N conflicts=M`, or what went wrong (exit 1).
//
//   StoreWriter sqlite <path> script [plain]
//
// Runs insert/update/delete commands read from its input, with persistent history on
// (without it with `plain`) (Script.swift).
//
//   StoreWriter <sqlite|postgres> <path or URL> migrate <log file> [kill point]
//
// Migrates a store of contacts through a staged chain (Migrate.swift).
//
//   StoreWriter <sqlite|postgres> <path or URL> tasks <n>
//
// Opens the store from <n> child tasks at once, on Swift's cooperative pool (as async code
// does), each counting the counters; with <n> at least the pool's width every pool thread
// is taken by a caller waiting for its store. Prints `store writer tasks ok: ...` (exit 0),
// or what went wrong (exit 1).
import Foundation
import ObjectGraph
import ObjectGraphPostgres
import Synchronization

/// The suite's counter (the same entity as StoreBehaviourTests' `Counter`).
final class Counter: ManagedObject {
    @Attribute(.unique) var name: String = ""
    @Attribute var value: Int = 0
    @Attribute var left: String = ""
    @Attribute var right: String = ""
}

struct Failure: Error, CustomStringConvertible {
    let description: String
}

let arguments = CommandLine.arguments
if arguments.count == 4, arguments[3] == "script" {
    runScript(kind: arguments[1], place: arguments[2])
}
if arguments.count == 5, arguments[3] == "script", arguments[4] == "plain" {
    runScript(kind: arguments[1], place: arguments[2], history: false)
}
if arguments.count >= 5, arguments[3] == "migrate" {
    migrateContacts(kind: arguments[1], place: arguments[2], log: arguments[4], killPoint: arguments.count > 5 ? arguments[5] : nil)
}
if arguments.count == 5, arguments[3] == "tasks", let tasks = Int(arguments[4]) {
    openFromTasks(tasks, kind: arguments[1], place: arguments[2])
}
guard arguments.count == 6, ["left", "right"].contains(arguments[3]), let increments = Int(arguments[5]) else {
    FileHandle.standardError.write(Data("usage: StoreWriter <sqlite|postgres> <path or URL> <left|right> <other role> <increments>\n".utf8))
    exit(2)
}
let (kind, place, role, other) = (arguments[1], arguments[2], arguments[3], arguments[4])

func location() throws -> PersistentContainer.Location {
    try location(kind: kind, place: place)
}

func location(kind: String, place: String) throws -> PersistentContainer.Location {
    switch kind {
    case "sqlite": return .file(URL(fileURLWithPath: place))
    case "postgres":
        guard let url = URL(string: place) else { throw Failure(description: "not a URL: \(place)") }
        return .postgres(url)
    default: throw Failure(description: "unknown store kind \(kind)")
    }
}

/// What the tasks of ``openFromTasks(_:kind:place:)`` gave.
final class TaskOutcome: Sendable {
    let result = Mutex<Result<[Int], any Error>?>(nil)
}

/// Opens the store from `tasks` child tasks at once and exits: 0 when every one could count
/// the counters within 150 s (the stores time out before), 1 otherwise.
func openFromTasks(_ tasks: Int, kind: String, place: String) -> Never {
    let outcome = TaskOutcome()
    let done = DispatchSemaphore(value: 0)
    let start = ContinuousClock.now
    Task.detached {
        let result: Result<[Int], any Error>
        do {
            let store = try location(kind: kind, place: place)
            result = .success(try await withThrowingTaskGroup(of: Int.self) { group in
                for _ in 0..<tasks {
                    group.addTask {
                        let container = try PersistentContainer(name: "Counters", entities: [Counter.self], store: store)
                        return try container.viewContext.count(for: FetchRequest<Counter>())
                    }
                }
                return try await group.reduce(into: [Int]()) { $0.append($1) }
            })
        } catch {
            result = .failure(error)
        }
        outcome.result.withLock { $0 = result }
        done.signal()
    }
    guard done.wait(timeout: .now() + 150) == .success else {
        print("store writer tasks FAILED: \(tasks) tasks did not open the store within 150 s")
        exit(1)
    }
    let elapsed = ContinuousClock.now - start
    switch outcome.result.withLock({ $0 }) {
    case .success(let counts):
        print("store writer tasks ok: tasks=\(tasks) counts=\(counts) in \(elapsed)")
        exit(0)
    case .failure(let error):
        print("store writer tasks FAILED after \(elapsed): \(error)")
        exit(1)
    case nil:
        exit(1)
    }
}

/// Polls until a counter called `name` is in the store (60 s at most).
func waitFor(_ name: String, in context: ManagedObjectContext) throws {
    let request = FetchRequest<Counter>(predicate: try FetchPredicate("name == %@", name))
    let deadline = Date().addingTimeInterval(60)
    while try context.count(for: request) == 0 {
        guard Date() < deadline else { throw Failure(description: "\(role) did not see \(name) within 60 s") }
        usleep(2_000)
    }
}

func announce(_ name: String, in context: ManagedObjectContext) throws {
    let marker = Counter(context: context)
    marker.name = name
    try context.save()
}

do {
    let container = try PersistentContainer(name: "Counters", entities: [Counter.self], store: try location())
    let context = container.viewContext
    context.mergePolicy = .error
    try announce("\(role)-ready", in: context)
    try waitFor("\(other)-ready", in: context)

    let counters = try context.fetch(FetchRequest<Counter>(predicate: try FetchPredicate("name BEGINSWITH 'c'"),
                                                           sortDescriptors: [SortKey("name")]))
    guard counters.map(\.name) == ["c0", "c1", "c2"] else { throw Failure(description: "counters: \(counters.map(\.name))") }
    var conflicts = 0
    var done = 0
    while done < increments {
        let counter = counters[done % counters.count]
        counter.value += 1
        do {
            try context.save()
            done += 1
        } catch is MergeConflictError {
            conflicts += 1
            context.rollback()
            context.refresh(counter, mergeChanges: false)
        }
    }

    context.mergePolicy = .mergeByPropertyObjectTrump
    for counter in counters {
        if role == "left" { counter.left = role } else { counter.right = role }
    }
    try context.save()
    context.mergePolicy = .error
    try announce("\(role)-done", in: context)
    try waitFor("\(other)-done", in: context)

    // What this process sees of the other's work, through a fetch of the store.
    let reader = try PersistentContainer(name: "Counters", entities: [Counter.self], store: try location()).viewContext
    let seen = try reader.fetch(FetchRequest<Counter>(predicate: try FetchPredicate("name BEGINSWITH 'c'"), sortDescriptors: [SortKey("name")]))
    let values = seen.map(\.value)
    guard values.reduce(0, +) == 2 * increments, seen.allSatisfy({ $0.left == "left" && $0.right == "right" }) else {
        throw Failure(description: "\(role) sees \(seen.map { "\($0.name)=\($0.value) \($0.left)/\($0.right)" })")
    }
    print("store writer \(role) ok: increments=\(increments) conflicts=\(conflicts) values=\(values)")
} catch {
    print("store writer \(role) FAILED: \(error)")
    exit(1)
}
