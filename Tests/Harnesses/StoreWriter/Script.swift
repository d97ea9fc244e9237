// `StoreWriter sqlite <path> script [plain]`: the other process of ObjectGraphTests' history
// tests. Opens the store with persistent history (without it with `plain`) and runs the
// commands it reads, one a line, each in a save of its own:
//
//   insert <name> <value>    a new counter
//   update <name> <value>    the counter's new value
//   delete <name>            the counter deleted
//   quit                     ends the process (exit 0)
//
// After each save it prints `committed <n> <seconds since 1970>` (the wall-clock time right
// after the commit), so the test can tell how long the commit took to reach it; a failure
// prints `failed <n> <error>`.
import Foundation
import ObjectGraph

func runScript(kind: String, place: String, history: Bool = true) -> Never {
    do {
        let container = try PersistentContainer(name: "Counters", entities: [Counter.self], store: try location(kind: kind, place: place),
                                                options: history ? [.persistentHistory] : [])
        let context = container.viewContext
        context.transactionAuthor = "StoreWriter"
        say("ready")
        var number = 0
        while let line = readLine() {
            number += 1
            let words = line.split(separator: " ").map(String.init)
            guard let command = words.first else { continue }
            if command == "quit" { exit(0) }
            do {
                try run(command, Array(words.dropFirst()), in: context)
                try context.save()
                say("committed \(number) \(String(format: "%.6f", Date().timeIntervalSince1970))")
            } catch {
                context.rollback()
                say("failed \(number) \(error)")
            }
        }
        exit(0)
    } catch {
        say("store writer script FAILED: \(error)")
        exit(1)
    }
}

private func run(_ command: String, _ arguments: [String], in context: ManagedObjectContext) throws {
    func counter(_ name: String) throws -> Counter {
        let request = FetchRequest<Counter>(predicate: try FetchPredicate("name == %@", name))
        guard let found = try context.fetch(request).first else { throw Failure(description: "no counter \(name)") }
        return found
    }
    switch (command, arguments.count) {
    case ("insert", 2):
        let counter = Counter(context: context)
        counter.name = arguments[0]
        counter.value = Int(arguments[1]) ?? 0
    case ("update", 2):
        try counter(arguments[0]).value = Int(arguments[1]) ?? 0
    case ("delete", 1):
        context.delete(try counter(arguments[0]))
    default:
        throw Failure(description: "unknown command \(command) \(arguments)")
    }
}

/// Writes a line at once (standard output is a pipe: `print` would hold it in a buffer).
private func say(_ line: String) {
    FileHandle.standardOutput.write(Data((line + "\n").utf8))
}
