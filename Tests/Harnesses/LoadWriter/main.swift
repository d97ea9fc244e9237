// The second process of LoadTests: transfers between accounts of the load store
// through a background context of its own container, while the test process writes the
// same file. A merge conflict (the other process saved an account first) is rolled back,
// the two accounts are refreshed, and the transfer is tried again.
//
//   LoadWriter <store> <commits>
//
// Prints `load writer ok: commits=N conflicts=M`, or what went wrong (exit 1).
import Foundation
import ObjectGraph

/// The load test's account (the same entity as LoadTests' `LoadAccount`).
final class LoadAccount: ManagedObject {
    @Attribute var number: Int = 0
    @Attribute var balance: Int = 0
}

let arguments = CommandLine.arguments
guard arguments.count == 3, let commits = Int(arguments[2]) else {
    FileHandle.standardError.write(Data("usage: LoadWriter <store> <commits>\n".utf8))
    exit(2)
}
do {
    let container = try PersistentContainer(name: "Load", entities: [LoadAccount.self], storeURL: URL(fileURLWithPath: arguments[1]))
    let context = container.newBackgroundContext()
    let conflicts = try context.performAndWait { () -> Int in
        var request = FetchRequest<LoadAccount>()
        request.sortDescriptors = [SortKey("number")]
        let accounts = try context.fetch(request)
        var done = 0
        var conflicts = 0
        while done < commits {
            let first = Int.random(in: 0..<50)
            let second = (first + Int.random(in: 1..<50)) % 50
            let amount = Int.random(in: 1...10)
            accounts[first].balance -= amount
            accounts[second].balance += amount
            do {
                try context.save()
                done += 1
            } catch is MergeConflictError {
                context.rollback()
                context.refresh(accounts[first], mergeChanges: false)
                context.refresh(accounts[second], mergeChanges: false)
                conflicts += 1
            }
        }
        return conflicts
    }
    print("load writer ok: commits=\(commits) conflicts=\(conflicts)")
} catch {
    print("load writer FAILED: \(error)")
    exit(1)
}
